#include "hetbench/benchmark/series.h"

#include <gtest/gtest.h>

#include <random>

namespace hetbench::benchmark {
namespace {

using std::chrono::hours;

const common::WallTime kStart = common::WallTime(std::chrono::seconds(1'790'000'000));

Configuration configuration() {
  return {"lab", "resnet50", "lab-gpu", "NVIDIA-H100", "1", "1", "256", "bf16", ""};
}

SeriesPoint point(int i, double value, std::string verdict = "Pass",
                  std::string image = "hetbench/train:1") {
  SeriesPoint p;
  p.time = kStart + hours(i);
  p.run = "nightly-" + std::to_string(i);
  p.runUid = "uid-" + std::to_string(i);
  p.value = value;
  p.spread = value * 0.002;
  p.repetitions = 3;
  p.verdict = std::move(verdict);
  p.nodes = {"gpu-1"};
  p.image = std::move(image);
  return p;
}

/// `n` points of normal noise of 0.5% around 1000, `step` (a fraction) from point `at` on, whose
/// image changes there too.
SeriesStatus noisy(int n, int at, double step, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0, 5);
  SeriesStatus status;
  for (int i = 0; i < n; ++i) {
    addSeriesPoint(status.points, point(i, (i >= at ? 1000 * (1 + step) : 1000) + noise(random),
                                        "Pass", i >= at ? "hetbench/train:2" : "hetbench/train:1"));
  }
  return status;
}

SeriesSpec spec() { return {configuration(), "effective_throughput"}; }

TEST(SeriesNameTest, OneNamePerConfigurationAsADnsLabel) {
  const std::string name = seriesName(configuration());
  EXPECT_EQ(name.rfind("resnet50-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("resnet50-").size() + 10);
  EXPECT_EQ(seriesName(configuration()), name);
  // Each field is part of the name.
  for (std::string Configuration::*field :
       {&Configuration::ns, &Configuration::benchmark, &Configuration::system,
        &Configuration::accelerator, &Configuration::accelerators, &Configuration::nodes,
        &Configuration::batchSize, &Configuration::precision}) {
    Configuration other = configuration();
    other.*field += "x";
    EXPECT_NE(seriesName(other), name);
  }
  Configuration odd = configuration();
  odd.benchmark = "ResNet_50 v1.5--" + std::string(60, 'a');
  const std::string oddName = seriesName(odd);
  EXPECT_EQ(oddName.substr(0, 16), "resnet-50-v1-5-a") << oddName;
  EXPECT_LE(oddName.size(), 51u);
  odd.benchmark = "__";
  EXPECT_EQ(seriesName(odd).rfind("series-", 0), 0u);
}

TEST(AddSeriesPointTest, KeepsTimeOrderOnePointPerTrialAndTheLatestLimit) {
  std::vector<SeriesPoint> points;
  EXPECT_TRUE(addSeriesPoint(points, point(2, 10)));
  EXPECT_TRUE(addSeriesPoint(points, point(0, 10)));
  EXPECT_TRUE(addSeriesPoint(points, point(1, 10)));
  EXPECT_FALSE(addSeriesPoint(points, point(1, 99)));  // the same run uid and trial
  SeriesPoint otherTrial = point(1, 11);
  otherTrial.trial = 1;
  EXPECT_TRUE(addSeriesPoint(points, otherTrial));
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].run, "nightly-0");
  EXPECT_EQ(points[1].value, 10);
  EXPECT_EQ(points[2].value, 11);
  EXPECT_EQ(points[3].run, "nightly-2");
  EXPECT_TRUE(addSeriesPoint(points, point(3, 10), 3));
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points.front().trial, 1);
  EXPECT_EQ(points.back().run, "nightly-3");
  // Of two runs that ended in the same second, the one added later is the newer, whatever
  // their names.
  SeriesPoint sameSecond = point(3, 12);
  sameSecond.run = "nightly-10";
  sameSecond.runUid = "uid-10";
  EXPECT_TRUE(addSeriesPoint(points, sameSecond, 3));
  EXPECT_EQ(points.back().run, "nightly-10");
  EXPECT_EQ(points[1].run, "nightly-3");
}

TEST(JudgeSeriesTest, TooFewPointsGiveALatestValueButNoVerdict) {
  SeriesStatus status = noisy(4, 4, 0, 1);
  judgeSeries(spec(), status);
  EXPECT_EQ(status.state, "InsufficientHistory");
  EXPECT_EQ(status.latest, status.points.back().value);
  EXPECT_FALSE(status.baseline.has_value());
  EXPECT_FALSE(status.noise.has_value());
  EXPECT_TRUE(status.changes.empty());
}

TEST(JudgeSeriesTest, AStepIsAChangeAtItsRunWithWhatChangedAndTheNewLevelIsTheBaseline) {
  SeriesStatus status = noisy(40, 25, -0.10, 2);
  judgeSeries(spec(), status);
  ASSERT_EQ(status.changes.size(), 1u);
  const SeriesChange& change = status.changes[0];
  EXPECT_EQ(change.run, "nightly-25");
  EXPECT_EQ(change.time, kStart + hours(25));
  EXPECT_NEAR(change.magnitude, -0.10, 0.01);
  EXPECT_EQ(change.changed,
            std::vector<std::string>{"image: hetbench/train:1 -> hetbench/train:2"});
  EXPECT_EQ(status.state, "WithinNoise") << status.message;
  ASSERT_TRUE(status.baseline.has_value());
  EXPECT_NEAR(*status.baseline, 900, 5);
}

TEST(JudgeSeriesTest, ASlowLatestTrialIsSuspectAndAnInvalidOneIsNeverJudged) {
  SeriesStatus status = noisy(12, 12, 0, 3);
  addSeriesPoint(status.points, point(12, 700, "Invalid"));
  addSeriesPoint(status.points, point(13, 1, "MetricMissing"));
  judgeSeries(spec(), status);
  EXPECT_EQ(status.state, "WithinNoise") << status.message;
  EXPECT_EQ(status.latest, status.points[11].value);

  addSeriesPoint(status.points, point(14, 900));
  judgeSeries(spec(), status);
  EXPECT_EQ(status.state, "Suspect") << status.message;
  EXPECT_EQ(status.latest, 900);
  EXPECT_NE(status.message.find("effective_throughput 900.0 is 9.9% below the median 998.8 of 12"),
            std::string::npos)
      << status.message;

  SeriesSpec lower = spec();
  lower.direction = results::Direction::kLower;
  judgeSeries(lower, status);
  EXPECT_EQ(status.state, "Improved");
}

TEST(JudgeSeriesTest, AnAcceptedChangeRestartsTheHistoryAfterIt) {
  SeriesStatus status = noisy(40, 25, -0.10, 2);
  SeriesSpec accepted = spec();
  accepted.acceptedAfter = kStart + hours(24);
  judgeSeries(accepted, status);
  EXPECT_TRUE(status.changes.empty());
  EXPECT_EQ(status.state, "WithinNoise");
  EXPECT_NEAR(*status.baseline, 900, 5);

  accepted.acceptedAfter = kStart + hours(35);
  judgeSeries(accepted, status);
  EXPECT_EQ(status.state, "InsufficientHistory");
}

TEST(SeriesJsonTest, SpecAndStatusReadBackAsWritten) {
  SeriesStatus status = noisy(40, 25, -0.10, 2);
  status.points[3].nodes = {"gpu-1", "gpu-2"};
  judgeSeries(spec(), status);
  const nlohmann::json json = toJson(status);
  EXPECT_EQ(json["pointCount"], 40);
  EXPECT_EQ(json["state"], "WithinNoise");
  EXPECT_NE(json["lastChange"].get<std::string>().find("(-10."), std::string::npos)
      << json["lastChange"];
  EXPECT_EQ(seriesStatusFromJson(json), status);

  SeriesSpec s = spec();
  s.direction = results::Direction::kLower;
  s.acceptedAfter = kStart;
  s.configuration.ns = "";  // the object's namespace
  EXPECT_EQ(seriesSpecFromJson(toJson(s)), s);
  EXPECT_EQ(seriesSpecFromJson(nlohmann::json("nonsense")), SeriesSpec{});
  EXPECT_EQ(seriesStatusFromJson(nlohmann::json::parse(R"({"points": [{"value": 1}, 7]})")),
            SeriesStatus{});
}

// Verifies that the trials of one run are judged together: a trial 3.7 times the noise below
// its history is Suspect alone, but not among twenty trials of one run whose others are quiet.
TEST(ControlFalseDiscoveriesTest, AMatrixOfTrialsKeepsItsFalseAlarmsAtOneTrialsRate) {
  const double history[] = {1000, 1008, 992, 1004, 996, 1006, 994, 1002, 998, 1000};  // scale 5.9
  const auto judgedWith = [&](double latest) {
    SeriesStatus status;
    for (int i = 0; i < 10; ++i) addSeriesPoint(status.points, point(i, history[i]));
    addSeriesPoint(status.points, point(10, latest));
    judgeSeries(spec(), status);
    return status;
  };
  const SeriesSpec about = spec();
  SeriesStatus alone = judgedWith(978);  // -2.2%, p 1.0e-4
  EXPECT_EQ(alone.state, "Suspect");
  controlFalseDiscoveries({{&about, &alone}});
  EXPECT_EQ(alone.state, "Suspect");

  const auto judgedTogether = [&](std::vector<SeriesStatus>& matrix) {
    std::vector<JudgedSeries> run;
    for (SeriesStatus& status : matrix) run.push_back({&about, &status});
    controlFalseDiscoveries(run);
  };
  std::vector<SeriesStatus> matrix(20, judgedWith(1001));
  matrix[3] = judgedWith(978);
  judgedTogether(matrix);
  EXPECT_EQ(matrix[3].state, "WithinNoise");
  EXPECT_NE(matrix[3].message.find("not a discovery among the 20 trials of its run judged "
                                   "together (p 0.0001, Benjamini-Hochberg at 0.0013)"),
            std::string::npos)
      << matrix[3].message;
  EXPECT_EQ(matrix[0].state, "WithinNoise");

  // With a trial far below (-5%, 8.4 times the noise) in the same run, the step-up procedure
  // takes the second smallest p-value at twice the level: both are Suspect.
  matrix[3] = judgedWith(978);
  matrix[11] = judgedWith(950);
  judgedTogether(matrix);
  EXPECT_EQ(matrix[11].state, "Suspect");
  EXPECT_EQ(matrix[3].state, "Suspect");
}

TEST(SeriesJsonTest, ReadSeriesTakesTheNamespaceFromTheObject) {
  SeriesStatus status = noisy(40, 25, -0.10, 2);
  judgeSeries(spec(), status);
  const nlohmann::json object = {
      {"metadata", {{"name", "resnet50-0123456789"}, {"namespace", "lab"}}},
      {"spec", toJson(spec())},  // without the namespace, which is spec()'s "lab"
      {"status", toJson(status)}};
  EXPECT_EQ(readSeries(object), (Series{"resnet50-0123456789", spec(), status}));
  EXPECT_EQ(readSeries(nlohmann::json::array({1})), Series{});
}

}  // namespace
}  // namespace hetbench::benchmark
