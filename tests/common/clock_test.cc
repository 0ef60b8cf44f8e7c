#include "hetbench/common/clock.h"

#include <gtest/gtest.h>

namespace hetbench::common {
namespace {

using namespace std::chrono_literals;

// Verifies that a FakeClock moves only when told, and both time bases together.
TEST(FakeClock, AdvancesByHand) {
  FakeClock clock(WallTime(100s));
  const MonoTime m0 = clock.monotonic();
  EXPECT_EQ(clock.now(), WallTime(100s));
  EXPECT_EQ(clock.now(), WallTime(100s));
  clock.advance(1500ms);
  EXPECT_EQ(clock.now(), WallTime(101500ms));
  EXPECT_EQ(clock.monotonic() - m0, 1500ms);
  clock.advance(-10s);
  EXPECT_EQ(clock.now(), WallTime(101500ms));
}

// Verifies that a wall-clock correction leaves monotonic time alone.
TEST(FakeClock, WallCorrectionKeepsMonotonic) {
  FakeClock clock;
  const MonoTime m0 = clock.monotonic();
  clock.setWall(WallTime(5s));
  EXPECT_EQ(clock.now(), WallTime(5s));
  EXPECT_EQ(clock.monotonic(), m0);
}

// Verifies that the system clock's monotonic time never runs backwards.
TEST(SystemClock, MonotonicNeverDecreases) {
  SystemClock clock;
  MonoTime last = clock.monotonic();
  for (int i = 0; i < 1000; ++i) {
    const MonoTime t = clock.monotonic();
    EXPECT_GE(t, last);
    last = t;
  }
}

}  // namespace
}  // namespace hetbench::common
