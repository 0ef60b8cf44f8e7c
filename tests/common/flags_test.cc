#include "hetbench/common/flags.h"

#include <gtest/gtest.h>

namespace hetbench::common {
namespace {

using namespace std::chrono_literals;

struct Flags {
  std::string kubeconfig = "";
  bool leaderElect = false;
  std::int64_t workers = 1;
  double qps = 20;
  std::chrono::nanoseconds lease = 15s;
  std::vector<std::string> namespaces = {"default"};
};

Result<std::vector<std::string>> parseArgs(FlagSet& set, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return set.parse(static_cast<int>(args.size()), args.data());
}

void registerAll(FlagSet& set, Flags& f) {
  set.addString("kubeconfig", &f.kubeconfig, "Path to a kubeconfig.");
  set.addBool("leader-elect", &f.leaderElect, "Use leader election.");
  set.addInt("workers", &f.workers, "Concurrent reconciles.", 1, 64);
  set.addDouble("kube-api-qps", &f.qps, "Client QPS.", 0.1, 10000);
  set.addDuration("lease-duration", &f.lease, "Lease duration.");
  set.addStringList("namespace", &f.namespaces, "Namespaces to watch.");
}

// Verifies both value spellings, booleans, lists and positional arguments.
TEST(FlagSet, ParsesEveryKind) {
  FlagSet set("prog", "test");
  Flags f;
  registerAll(set, f);
  Result<std::vector<std::string>> rest =
      parseArgs(set, {"--kubeconfig", "/k", "--leader-elect", "--workers=4", "--kube-api-qps",
                      "50.5", "--lease-duration=30s", "--namespace=a,b", "--namespace", "c", "run1",
                      "-", "--", "--not-a-flag"});
  ASSERT_TRUE(rest.isOk()) << rest.status().toString();
  EXPECT_EQ(f.kubeconfig, "/k");
  EXPECT_TRUE(f.leaderElect);
  EXPECT_EQ(f.workers, 4);
  EXPECT_DOUBLE_EQ(f.qps, 50.5);
  EXPECT_EQ(f.lease, 30s);
  EXPECT_EQ(f.namespaces, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(*rest, (std::vector<std::string>{"run1", "-", "--not-a-flag"}));
  EXPECT_FALSE(set.helpRequested());
}

// Verifies that each kind of bad input is Invalid with a message naming the flag.
TEST(FlagSet, RejectsBadInput) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{"--nope"}, "unknown flag --nope"},
      {{"-x"}, "unknown flag -x"},
      {{"--kubeconfig"}, "--kubeconfig needs a value"},
      {{"--workers=0"}, "--workers: must be between 1 and 64, got 0"},
      {{"--workers=4x"}, "--workers: expected an integer"},
      {{"--kube-api-qps=nan"}, "--kube-api-qps: expected a number"},
      {{"--leader-elect=maybe"}, "--leader-elect: expected true or false"},
      {{"--lease-duration=5"}, "--lease-duration: invalid duration \"5\": missing unit"},
      {{"--workers=2", "--workers=3"}, "--workers given more than once"},
  };
  for (const auto& [args, message] : cases) {
    FlagSet set("prog", "test");
    Flags f;
    registerAll(set, f);
    Result<std::vector<std::string>> got = parseArgs(set, args);
    ASSERT_FALSE(got.isOk()) << message;
    EXPECT_TRUE(got.status().isInvalid());
    EXPECT_NE(got.status().message().find(message), std::string::npos) << got.status().message();
  }
}

// Verifies that the usage lists every flag with its default, sorted, and that -h is seen.
TEST(FlagSet, UsageAndHelp) {
  FlagSet set("prog", "Does things.");
  Flags f;
  registerAll(set, f);
  ASSERT_TRUE(parseArgs(set, {"-h"}).isOk());
  EXPECT_TRUE(set.helpRequested());
  const std::string usage = set.usage();
  EXPECT_NE(usage.find("Usage: prog [flags]"), std::string::npos);
  EXPECT_NE(usage.find("--lease-duration duration\n      Lease duration. (default 15s)"),
            std::string::npos)
      << usage;
  EXPECT_NE(usage.find("(default default)"), std::string::npos);
  EXPECT_LT(usage.find("--kube-api-qps"), usage.find("--kubeconfig"));
}

struct KubectlFlags {
  std::string ns;
  bool all = false;
  bool quiet = false;
  std::int64_t tail = -1;
};

void registerKubectl(FlagSet& set, KubectlFlags& f) {
  set.addString("namespace", &f.ns, "The namespace.");
  set.setShorthand("namespace", 'n');
  set.addBool("all-namespaces", &f.all, "Every namespace.");
  set.setShorthand("all-namespaces", 'A');
  set.addBool("quiet", &f.quiet, "Say less.");
  set.setShorthand("quiet", 'q');
  set.addInt("tail", &f.tail, "Lines.", -1, 100);
}

// Verifies every spelling of a shorthand that pflag (kubectl's flags) accepts, each against the
// values it sets and the arguments it leaves.
TEST(FlagSet, Shorthands) {
  struct Case {
    std::vector<const char*> args;
    std::string ns;
    bool all;
    bool quiet;
    std::vector<std::string> rest;
  };
  const std::vector<Case> cases = {
      {{"-n", "lab", "run"}, "lab", false, false, {"run"}},
      {{"-n=lab"}, "lab", false, false, {}},
      {{"-nlab", "run"}, "lab", false, false, {"run"}},
      {{"-n", "-", "run"}, "-", false, false, {"run"}},
      {{"-A"}, "", true, false, {}},
      {{"-A=false", "x"}, "", false, false, {"x"}},
      {{"-Aq"}, "", true, true, {}},
      {{"-qn", "lab"}, "lab", false, true, {}},
      {{"-qnlab"}, "lab", false, true, {}},
      {{"run", "-A", "--namespace=lab"}, "lab", true, false, {"run"}},
      {{"-", "--", "-n", "x"}, "", false, false, {"-", "-n", "x"}},
  };
  for (const Case& c : cases) {
    FlagSet set("prog", "test");
    KubectlFlags f;
    registerKubectl(set, f);
    Result<std::vector<std::string>> rest = parseArgs(set, c.args);
    ASSERT_TRUE(rest.isOk()) << c.args[0] << ": " << rest.status().toString();
    EXPECT_EQ(f.ns, c.ns) << c.args[0];
    EXPECT_EQ(f.all, c.all) << c.args[0];
    EXPECT_EQ(f.quiet, c.quiet) << c.args[0];
    EXPECT_EQ(*rest, c.rest) << c.args[0];
  }
}

// Verifies that a bad shorthand is Invalid with a message naming it as it was written.
TEST(FlagSet, RejectsBadShorthands) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{"-x"}, "unknown flag -x"},
      {{"-Ax"}, "unknown flag -x in -Ax"},
      {{"-n"}, "flag -n needs a value"},
      {{"-An"}, "flag -n needs a value"},
      {{"-n", "a", "--namespace", "b"}, "--namespace given more than once"},
      {{"-A=maybe"}, "invalid value for -A: expected true or false"},
  };
  for (const auto& [args, message] : cases) {
    FlagSet set("prog", "test");
    KubectlFlags f;
    registerKubectl(set, f);
    Result<std::vector<std::string>> got = parseArgs(set, args);
    ASSERT_FALSE(got.isOk()) << message;
    EXPECT_TRUE(got.status().isInvalid());
    EXPECT_NE(got.status().message().find(message), std::string::npos) << got.status().message();
  }
}

// Verifies that usage and describe() show a shorthand beside its flag, and that a flag without
// one and a boolean are described as such.
TEST(FlagSet, DescribesShorthands) {
  FlagSet set("prog", "test");
  KubectlFlags f;
  registerKubectl(set, f);
  EXPECT_NE(set.usage().find("  -n, --namespace string\n"), std::string::npos) << set.usage();
  EXPECT_NE(set.usage().find("  --tail int\n"), std::string::npos) << set.usage();
  const std::vector<FlagSet::Info> info = set.describe();
  ASSERT_EQ(info.size(), 4u);
  EXPECT_EQ(info[0].name, "namespace");
  EXPECT_EQ(info[0].shorthand, 'n');
  EXPECT_TRUE(info[0].takesValue);
  EXPECT_EQ(info[1].shorthand, 'A');
  EXPECT_FALSE(info[1].takesValue);
  EXPECT_EQ(info[3].shorthand, 0);
}

}  // namespace
}  // namespace hetbench::common
