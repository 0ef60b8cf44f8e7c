// Confirmation reruns' pure parts: their names, their runs' placement, and the series' state.
#include "hetbench/benchmark/confirmation.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/constants.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

SeriesConfirmation confirmationOn(std::vector<std::string> nodes) {
  SeriesConfirmation c;
  c.number = 2;
  c.run = "nightly-1";
  c.runUid = "uid-1";
  c.nodes = std::move(nodes);
  c.state = std::string(reason::kConfirming);
  return c;
}

// Verifies that a rerun's name fits a run's 63 characters whatever the series' name.
TEST(RerunName, FitsAName) {
  EXPECT_EQ(rerunName("resnet50-0123456789", 1, "same", 1), "resnet50-0123456789-c1-s1");
  EXPECT_EQ(rerunName("resnet50-0123456789", 12, "other", 3), "resnet50-0123456789-c12-o3");
  // seriesName's longest (a 40-character label and 10 hex digits) is kept whole.
  EXPECT_EQ(rerunName(std::string(51, 'x'), 1234, "other", 10),
            std::string(51, 'x') + "-c1234-o10");
  // A longer name gives way to the suffix.
  EXPECT_EQ(rerunName(std::string(60, 'x'), 1234, "other", 10),
            std::string(53, 'x') + "-c1234-o10");
}

// Verifies what a rerun's run keeps of the original and what it changes.
TEST(RerunRun, KeepsTheSpecAndAddsThePlacementToEveryTerm) {
  benchmark::Run original;
  original.ref = {"lab", "nightly-1", "uid-1"};
  const json spec = {
      {"benchmark", "resnet50"},
      {"system", "dgx"},
      {"matrix", {{"gpus", {1, 2}}, {"precision", {"bf16"}}}},
      {"repetitions", 3},
      {"confirm", {{"reruns", 2}}},
      {"workload",
       {{"image", "hetbench/train:1"},
        {"nodeSelector", {{"nvidia.com/gpu.product", "H100"}}},
        {"affinity",
         {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms",
               {{{"matchExpressions", {{{"key", "zone"}, {"operator", "In"}, {"values", {"a"}}}}}},
                {{"matchFields",
                  {{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"n"}}}}}}}}}}}}}}}}};
  original.acceptedSpecText = spec.dump();
  original.spec = {{"changed", "after acceptance"}};
  const json series = {{"metadata", {{"name", "resnet50-0123456789"}, {"uid", "uid-s"}}}};
  const SeriesConfirmation c = confirmationOn({"gpu-1", "gpu-2"});
  const json run = rerunRun(original, {{"gpus", "2"}, {"precision", "bf16"}}, c,
                            {"resnet50-0123456789-c2-o1", "other"}, series);

  EXPECT_EQ(run["metadata"]["name"], "resnet50-0123456789-c2-o1");
  EXPECT_EQ(run["metadata"]["namespace"], "lab");
  EXPECT_EQ(run["metadata"]["labels"], json({{"hetbench.io/series", "resnet50-0123456789"},
                                             {"hetbench.io/confirms", "nightly-1"},
                                             {"hetbench.io/placement", "other"}}));
  EXPECT_EQ(run["metadata"]["ownerReferences"][0]["uid"], "uid-s");
  EXPECT_EQ(run["spec"]["matrix"], json({{"gpus", {"2"}}, {"precision", {"bf16"}}}));
  EXPECT_EQ(run["spec"]["repetitions"], 3);
  EXPECT_FALSE(run["spec"].contains("confirm"));
  EXPECT_EQ(run["spec"]["workload"]["nodeSelector"], spec["workload"]["nodeSelector"]);
  const json requirement = {
      {"key", "kubernetes.io/hostname"}, {"operator", "NotIn"}, {"values", {"gpu-1", "gpu-2"}}};
  const json& terms = run["spec"]["workload"]["affinity"]["nodeAffinity"]
                         ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  ASSERT_EQ(terms.size(), 2u);  // terms are ORed: each must require it
  EXPECT_EQ(terms[0]["matchExpressions"].size(), 2u);
  EXPECT_EQ(terms[0]["matchExpressions"][1], requirement);
  EXPECT_EQ(terms[1]["matchExpressions"], json::array({requirement}));
  EXPECT_EQ(terms[1]["matchFields"].size(), 1u);
}

// Verifies which state a series shows while a confirmation runs and after it.
TEST(SettleSeriesState, Table) {
  SeriesPoint suspect;
  suspect.runUid = "uid-1";
  suspect.nodes = {"gpu-1"};
  suspect.verdict = "Pass";
  SeriesPoint later = suspect;
  later.runUid = "uid-2";
  SeriesPoint elsewhere = later;
  elsewhere.nodes = {"gpu-9"};
  struct Case {
    std::string name;
    std::string confirmation;  // "": none
    SeriesPoint latest;
    std::string screened;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"none", "", suspect, "Suspect", "Suspect"},
      {"running", "Confirming", later, "WithinNoise", "Confirming"},
      {"its verdict, for its trial", "NotConfirmed", suspect, "Suspect", "NotConfirmed"},
      {"a regression stands while trials are suspect", "Regressed", later, "Suspect", "Regressed"},
      {"and no longer", "Regressed", later, "WithinNoise", "WithinNoise"},
      {"a slow node, for its nodes", "NodeSuspect", later, "Suspect", "NodeSuspect"},
      {"not for other nodes", "NodeSuspect", elsewhere, "Suspect", "Suspect"},
      {"a one-off does not stand", "NotConfirmed", later, "Suspect", "Suspect"},
  };
  for (const Case& c : cases) {
    SeriesStatus status;
    status.points = {suspect};
    if (c.latest.runUid != suspect.runUid) status.points.push_back(c.latest);
    status.state = c.screened;
    if (!c.confirmation.empty()) {
      status.confirmation = confirmationOn({"gpu-1"});
      status.confirmation->state = c.confirmation;
      status.confirmation->standing =
          c.confirmation == "Regressed" || c.confirmation == "NodeSuspect";
    }
    settleSeriesState(status);
    EXPECT_EQ(status.state, c.want) << c.name;
  }

  // A regression that a later trial no longer shows stands no more, even for later suspects.
  SeriesStatus status;
  status.points = {suspect, later};
  status.state = "WithinNoise";
  status.confirmation = confirmationOn({"gpu-1"});
  status.confirmation->state = "Regressed";
  status.confirmation->standing = true;
  settleSeriesState(status);
  EXPECT_FALSE(status.confirmation->standing);
  SeriesPoint latest = later;
  latest.runUid = "uid-3";
  status.points.push_back(latest);
  status.state = "Suspect";
  settleSeriesState(status);
  EXPECT_EQ(status.state, "Suspect");
}

}  // namespace
}  // namespace hetbench::benchmark
