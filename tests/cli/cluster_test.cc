#include "hetbench/cli/cluster.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hetbench::cli {
namespace {

// Verifies kubectl's order: the flag, then the context's namespace, then "default".
TEST(Cluster, ChooseNamespace) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"lab", "ctx", "lab"},
      {"lab", "", "lab"},
      {"", "ctx", "ctx"},
      {"", "", "default"},
  };
  for (const auto& [flag, context, want] : cases) {
    EXPECT_EQ(chooseNamespace(flag, context), want) << flag << "/" << context;
  }
}

class ResolveNamespace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("cluster_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "home" / ".kube");
    std::filesystem::create_directories(dir_ / "empty-home");
    write(dir_ / "home" / ".kube" / "config", "lab");
    write(dir_ / "other", "other");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// A kubeconfig whose current context is `current`; context "lab" has namespace lab, "other"
  /// namespace other and "plain" none.
  static void write(const std::filesystem::path& path, const std::string& current) {
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: " << current << "\n"
                        << "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n"
                        << "users:\n- name: u\n  user: {token: t}\n"
                        << "contexts:\n"
                        << "- name: lab\n  context: {cluster: c, user: u, namespace: lab}\n"
                        << "- name: other\n  context: {cluster: c, user: u, namespace: other}\n"
                        << "- name: plain\n  context: {cluster: c, user: u}\n";
  }

  std::filesystem::path dir_;
};

// Verifies which namespace each combination of flags and kubeconfigs gives, and that a named
// kubeconfig that cannot be read is an error unless -n makes reading it unneeded.
TEST_F(ResolveNamespace, AsKubectlDoes) {
  const std::string home = (dir_ / "home").string();
  const std::string emptyHome = (dir_ / "empty-home").string();
  const std::string other = (dir_ / "other").string();
  const std::string missing = (dir_ / "missing").string();
  struct Case {
    const char* what;
    ClusterFlags flags;
    KubeEnvironment env;
    std::string want;  // "" for an error
  };
  const std::vector<Case> cases = {
      {"~/.kube/config's current context", {}, {"", home}, "lab"},
      {"-n wins", {"", "", "mine"}, {"", home}, "mine"},
      {"--context without a namespace", {"", "plain", ""}, {"", home}, "default"},
      {"--context with one", {"", "other", ""}, {"", home}, "other"},
      {"no kubeconfig at all", {}, {"", emptyHome}, "default"},
      {"$KUBECONFIG before ~/.kube/config", {}, {other, home}, "other"},
      {"--kubeconfig before $KUBECONFIG", {other, "", ""}, {missing, home}, "other"},
      {"--kubeconfig missing", {missing, "", ""}, {"", home}, ""},
      {"--context unknown", {"", "nope", ""}, {"", home}, ""},
      {"-n needs no kubeconfig", {missing, "", "mine"}, {"", home}, "mine"},
  };
  for (const Case& c : cases) {
    common::Result<std::string> got = resolveNamespace(c.flags, c.env);
    if (c.want.empty()) {
      EXPECT_FALSE(got.isOk()) << c.what;
    } else {
      ASSERT_TRUE(got.isOk()) << c.what << ": " << got.status().toString();
      EXPECT_EQ(got.value(), c.want) << c.what;
    }
  }
}

// Verifies that commands that list get -A and the others do not, and that -n is --namespace.
TEST(Cluster, FlagsAreKubectls) {
  for (bool listing : {true, false}) {
    common::FlagSet flags("prog", "test");
    ClusterFlags cluster;
    cluster.addTo(flags, listing);
    std::vector<const char*> args = {"prog", "-n", "lab", "--context=c", "--kubeconfig", "/k"};
    if (listing) args.push_back("-A");
    ASSERT_TRUE(flags.parse(static_cast<int>(args.size()), args.data()).isOk());
    EXPECT_EQ(cluster.ns, "lab");
    EXPECT_EQ(cluster.context, "c");
    EXPECT_EQ(cluster.kubeconfig, "/k");
    EXPECT_EQ(cluster.allNamespaces, listing);
    const char* all[] = {"prog", "-A"};
    common::FlagSet again("prog", "test");
    ClusterFlags other;
    other.addTo(again, listing);
    EXPECT_EQ(again.parse(2, all).isOk(), listing);
  }
}

}  // namespace
}  // namespace hetbench::cli
