#include "hetbench/cli/detect.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

namespace hetbench::cli {
namespace {

std::string csvOf(const std::vector<double>& values) {
  std::ostringstream out;
  out << "time,value\n";
  for (std::size_t i = 0; i < values.size(); ++i) out << i + 1 << "," << values[i] << "\n";
  return out.str();
}

std::vector<SeriesPoint> parsed(const std::string& text) {
  common::Result<std::vector<SeriesPoint>> series = parseSeriesCsv(text);
  EXPECT_TRUE(series.isOk()) << series.status().message();
  return series.isOk() ? series.value() : std::vector<SeriesPoint>{};
}

// Normal noise of 0.5% around 1000, with a step of `step` (a fraction) from point `at` on.
std::vector<double> noisy(std::size_t n, std::size_t at, double step, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0, 5);
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i)
    values.push_back((i >= at ? 1000 * (1 + step) : 1000) + noise(random));
  return values;
}

TEST(ParseSeriesCsvTest, ReadsColumnsByNameInAnyOrderAndKeepsTimeAsWritten) {
  const std::vector<SeriesPoint> series =
      parsed("spread, value ,time\r\n1.5,100,2026-11-01T00:00:00Z\r\n\n,101.25,next\n");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].time, "2026-11-01T00:00:00Z");
  EXPECT_DOUBLE_EQ(series[0].value, 100);
  EXPECT_EQ(series[0].spread, 1.5);
  EXPECT_EQ(series[1].time, "next");
  EXPECT_DOUBLE_EQ(series[1].value, 101.25);
  EXPECT_EQ(series[1].spread, std::nullopt);
}

TEST(ParseSeriesCsvTest, RefusesWhatItCannotReadNamingTheLine) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"", "no header"},
      {"time,value\n", "no rows after the header"},
      {"time\n1\n", "line 1: the header lacks time or value"},
      {"time,value,node\n", "line 1: the header's column \"node\" is unknown"},
      {"time,value,value\n", "line 1: the header's column \"value\" is unknown or repeated"},
      {"time,value\n1,10\n2\n", "line 3: 1 fields, want 2"},
      {"time,value\n1,fast\n", "line 2: value \"fast\" is not a finite number"},
      {"time,value\n1,nan\n", "line 2: value \"nan\" is not a finite number"},
      {"time,value\n1,1e999\n", "line 2: value \"1e999\" is not a finite number"},
      {"time,value,spread\n1,10,-1\n",
       "line 2: spread \"-1\" is not a finite number of at least 0"},
  };
  for (const Case& c : cases) {
    common::Result<std::vector<SeriesPoint>> series = parseSeriesCsv(c.text);
    ASSERT_FALSE(series.isOk()) << c.text;
    EXPECT_NE(series.status().message().find(c.error), std::string::npos)
        << c.text << " -> " << series.status().message();
  }
}

TEST(DetectTest, AStepIsAChangePointAtItsRunAndTheLastPointIsJudgedAgainstTheNewLevel) {
  const std::vector<SeriesPoint> series = parsed(csvOf(noisy(40, 25, -0.10, 1)));
  const nlohmann::json out = detect(series, {});
  EXPECT_EQ(out["points"], 40);
  ASSERT_EQ(out["changePoints"].size(), 1u) << out.dump(2);
  EXPECT_EQ(out["changePoints"][0]["index"], 25);
  EXPECT_EQ(out["changePoints"][0]["time"], "26");
  EXPECT_NEAR(out["changePoints"][0]["magnitude"].get<double>(), -0.10, 0.01);
  EXPECT_LE(out["changePoints"][0]["pValue"].get<double>(), 0.001);
  // 14 points since the change before the last: the slower level is the baseline now.
  EXPECT_EQ(out["last"]["verdict"], "WithinNoise") << out.dump(2);
  EXPECT_EQ(out["noise"]["points"], 14);
  EXPECT_NEAR(out["noise"]["median"].get<double>(), 900, 5);
}

TEST(DetectTest, ASlowLastPointIsSuspectAndAFastOneImprovedAsTheDirectionSays) {
  std::vector<double> values = noisy(20, 20, 0, 2);
  values.push_back(900);
  const nlohmann::json slow = detect(parsed(csvOf(values)), {});
  EXPECT_TRUE(slow["changePoints"].empty());
  EXPECT_EQ(slow["last"]["verdict"], "Suspect") << slow.dump(2);
  EXPECT_NEAR(slow["last"]["change"].get<double>(), -0.10, 0.01);
  EXPECT_NE(slow["last"]["message"].get<std::string>().find("below the median"), std::string::npos);

  DetectOptions lower;
  lower.direction = results::Direction::kLower;
  EXPECT_EQ(detect(parsed(csvOf(values)), lower)["last"]["verdict"], "Improved");
}

TEST(DetectTest, ASpreadAsLargeAsTheChangeKeepsTheLastPointWithinNoise) {
  std::string text = "time,value,spread\n";
  for (const double v : noisy(20, 20, 0, 3)) text += "t," + std::to_string(v) + ",1\n";
  const nlohmann::json quiet = detect(parsed(text + "t,960,1\n"), {});
  EXPECT_EQ(quiet["last"]["verdict"], "Suspect") << quiet.dump(2);
  const nlohmann::json spread = detect(parsed(text + "t,960,20\n"), {});
  EXPECT_EQ(spread["last"]["verdict"], "WithinNoise") << spread.dump(2);
}

TEST(DetectTest, TooFewPointsGiveNoVerdictAndNoNoise) {
  const nlohmann::json out = detect(parsed(csvOf({1000, 1001, 999, 500})), {});
  EXPECT_TRUE(out["changePoints"].empty());
  EXPECT_EQ(out["last"]["verdict"], "InsufficientHistory");
  EXPECT_EQ(out["last"]["message"], "value has 3 stable points; 6 are needed for a verdict");
  EXPECT_FALSE(out.contains("noise"));
  EXPECT_FALSE(out["last"].contains("change"));
}

TEST(DetectTest, MinChangeBoundsBothTheChangePointsAndTheScreening) {
  const std::vector<SeriesPoint> series = parsed(csvOf(noisy(40, 25, -0.03, 4)));
  EXPECT_EQ(detect(series, {})["changePoints"].size(), 1u);
  DetectOptions coarse;
  coarse.changePoints.minMagnitude = 0.05;
  coarse.screening.minChange = 0.05;
  EXPECT_TRUE(detect(series, coarse)["changePoints"].empty());
}

}  // namespace
}  // namespace hetbench::cli
