#include "hetbench/benchmark/validate.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

const RunRef kRun = {"lab", "sweep", "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b"};

json validSpec() {
  return {{"benchmark", "resnet50"},
          {"system", "lab"},
          {"matrix", {{"gpus", {1, 2}}}},
          {"repetitions", 2},
          {"workload",
           {{"image", "hetbench/resnet50"},
            {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", "$(params.gpus)"}}}}},
          {"references", {{"effective_throughput", {{"value", 100}, {"lower", 0.1}}}}}};
}

// Verifies the one validation: what it accepts and reads out, and that every part of a spec it
// refuses is named by field.
TEST(ValidateRun, AcceptsAndRefusesWithFieldCauses) {
  common::Result<AcceptedRun> ok = validateRun(kRun, validSpec());
  ASSERT_TRUE(ok.isOk()) << ok.status().toString();
  EXPECT_EQ(ok.value().spec.matrix.size(), 1u);
  EXPECT_EQ(ok.value().required, std::vector<std::string>{"effective_throughput"});
  EXPECT_EQ(trialConfigurations("lab", ok.value()).size(), 2u);
  EXPECT_EQ(trialConfigurations("lab", ok.value())[1].accelerators, "2");

  struct Row {
    const char* name;
    RunRef ref;
    json spec;
    const char* field;
    const char* message;
  };
  json badPattern = validSpec();
  badPattern["metrics"] = json::array({{{"name", "speed"}, {"pattern", "speed ([0-9."}}});
  json badReference = validSpec();
  badReference["references"]["effective_throughput"]["lower"] = 2;
  json badTrial = validSpec();
  badTrial["matrix"]["gpus"] = json::array({1, "many"});
  json badSpec = validSpec();
  badSpec["repetitions"] = 0;
  json queuedIpuJob = validSpec();
  queuedIpuJob["queueName"] = "ipus";
  queuedIpuJob["workload"] = {{"kind", "IPUJob"},
                              {"image", "graphcore/resnet50"},
                              {"accelerator", {{"resource", "graphcore.ai/ipu"}, {"count", 4}}}};
  const Row rows[] = {
      {"name too long",
       {"lab", std::string(64, 'x'), kRun.uid},
       validSpec(),
       "metadata.name",
       "63 characters"},
      {"run spec", kRun, badSpec, "spec.repetitions", ""},
      {"metric pattern", kRun, badPattern, "spec.metrics[0].pattern", ""},
      {"reference", kRun, badReference, "spec.references.effective_throughput.lower", ""},
      {"one trial renders badly", kRun, badTrial, "spec.workload.accelerator.count", "trial 1: "},
      {"an IPUJob in a queue", kRun, queuedIpuJob, "spec.queueName", "no integration for IPUJobs"},
  };
  for (const Row& row : rows) {
    common::Result<AcceptedRun> got = validateRun(row.ref, row.spec);
    ASSERT_FALSE(got.isOk()) << row.name;
    EXPECT_TRUE(got.status().isInvalid()) << row.name;
    ASSERT_FALSE(got.status().causes().empty()) << row.name;
    EXPECT_EQ(got.status().causes()[0].field, row.field) << row.name;
    EXPECT_NE(got.status().causes()[0].message.find(row.message), std::string::npos)
        << row.name << ": " << got.status().causes()[0].message;
    EXPECT_NE(describeInvalid(got.status()).find(row.field), std::string::npos) << row.name;
  }
}

// Verifies that the readers of an accepted run parse the annotation, and find nothing before.
TEST(ValidateRun, AcceptedRunFromTheAnnotation) {
  benchmark::Run run;
  EXPECT_FALSE(acceptedRun(run));
  run.acceptedSpecText = validSpec().dump();
  ASSERT_TRUE(acceptedRun(run));
  EXPECT_EQ(acceptedRun(run)->spec.repetitions, 2);
  run.acceptedSpecText = "{not json";
  EXPECT_FALSE(acceptedRun(run));
}

// Verifies that at most five causes make a message, and the rest are counted.
TEST(ValidateRun, DescribesAtMostFiveCauses) {
  std::vector<common::StatusCause> causes;
  for (int i = 0; i < 7; ++i)
    causes.push_back({"spec.f" + std::to_string(i), "FieldValueInvalid", "bad"});
  const std::string message = describeInvalid(common::invalidError("x", causes));
  EXPECT_EQ(message,
            "spec.f0: bad; spec.f1: bad; spec.f2: bad; spec.f3: bad; spec.f4: bad; and 2 more");
  EXPECT_EQ(describeInvalid(common::invalidError("plain")), "plain");
}

// Verifies the annotation budget of the accepted spec: the other annotations count, the old
// accepted spec does not, and the message says how much there was.
TEST(ValidateRun, AcceptedSpecMustFitTheAnnotations) {
  const std::size_t room = kMaxAnnotationBytes - std::string("hetbench.io/accepted-spec").size();
  EXPECT_FALSE(acceptedSpecTooLarge(nullptr, std::string(room, 'x')));
  EXPECT_TRUE(acceptedSpecTooLarge(nullptr, std::string(room + 1, 'x')));
  const nlohmann::json annotations = {{"a", "bc"}, {"hetbench.io/accepted-spec", "old"}};
  EXPECT_FALSE(acceptedSpecTooLarge(annotations, std::string(room - 3, 'x')));
  const std::optional<std::string> why = acceptedSpecTooLarge(annotations, std::string(room, 'x'));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the spec is " + std::to_string(room) + " bytes as JSON"), std::string::npos)
      << *why;
  EXPECT_NE(why->find("other annotations (3 bytes"), std::string::npos) << *why;
}

// Verifies that a condition shows at most 512 bytes of each cause, cut between runes, while the
// cause itself keeps the whole value.
TEST(ValidateRun, CutsLongCausesBetweenRunes) {
  const std::string value = std::string(600, 'a') + "\u00e9";
  const common::Status invalid =
      common::invalidError("x", {{"spec.f", "FieldValueInvalid", "Invalid value: " + value}});
  const std::string message = describeInvalid(invalid);
  EXPECT_EQ(message, "spec.f: Invalid value: " + std::string(512 - 23, 'a') + "...");

  const std::string runes = std::string(488, 'a') + "\u00e9\u00e9";
  EXPECT_EQ(describeInvalid(common::invalidError(
                "x", {{"spec.f", "FieldValueInvalid", "Invalid value: " + runes}})),
            "spec.f: Invalid value: " + std::string(488, 'a') + "...");
}

}  // namespace
}  // namespace hetbench::benchmark
