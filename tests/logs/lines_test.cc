#include "hetbench/logs/lines.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace hetbench::logs {
namespace {

std::vector<std::string> split(const std::vector<std::string>& blocks, std::size_t max) {
  std::vector<std::string> out;
  const LineHandler keep = [&](std::string_view line) { out.emplace_back(line); };
  LineSplitter splitter(max);
  for (const std::string& block : blocks) splitter.feed(block, keep);
  splitter.finish(keep);
  return out;
}

// Verifies the lines handed on for blocks cut anywhere, with lines at, over and far over the
// bound, and with UTF-8 that a cut would split.
TEST(LineSplitter, SplitsAndCuts) {
  const std::string cut = " " + lineCutMarker(4);
  struct Row {
    const char* name;
    std::vector<std::string> blocks;
    std::vector<std::string> lines;
  };
  const Row rows[] = {
      {"nothing", {}, {}},
      {"one line", {"ab\n"}, {"ab"}},
      {"no newline at the end", {"ab\ncd"}, {"ab", "cd"}},
      {"a line over blocks", {"a", "b", "c\n", "d\n"}, {"abc", "d"}},
      {"empty lines", {"\n\n"}, {"", ""}},
      {"at the bound", {"abcd\n"}, {"abcd"}},
      {"over the bound in one block", {"abcdef\ngh\n"}, {"abcd" + cut, "gh"}},
      {"over the bound across blocks", {"ab", "cdef", "gh\nij\n"}, {"abcd" + cut, "ij"}},
      {"never a newline", {"abcdefgh", "ijkl"}, {"abcd" + cut}},
      {"cut without newline, then more", {"abcdefgh", "ij\nk"}, {"abcd" + cut, "k"}},
      {"a rune the cut splits", {"ab\xC3\xA9\xC3\xA9\n"}, {"ab\xC3\xA9" + cut}},
      {"a rune cut after its lead byte", {"abc\xC3\xA9\n"}, {"abc" + cut}},
      {"carriage returns are text", {"a\rb\n"}, {"a\rb"}},
  };
  for (const Row& row : rows) EXPECT_EQ(split(row.blocks, 4), row.lines) << row.name;
}

// Verifies that a stream of megabytes with no newline holds no more than the bound.
TEST(LineSplitter, HoldsAtMostTheBound) {
  std::size_t longest = 0;
  std::size_t lines = 0;
  LineSplitter splitter(1024);
  const LineHandler count = [&](std::string_view line) {
    longest = std::max(longest, line.size());
    ++lines;
  };
  const std::string block(1 << 20, 'x');
  for (int i = 0; i < 64; ++i) splitter.feed(block, count);
  splitter.finish(count);
  EXPECT_EQ(lines, 1u);
  EXPECT_EQ(longest, 1024u + 1 + lineCutMarker(1024).size());
}

// Verifies forEachLine over a stream, reading it in blocks.
TEST(ForEachLine, ReadsEveryLine) {
  std::istringstream in(std::string(200000, 'a') + "\nb\nc");
  std::vector<std::string> lines;
  forEachLine(
      in, [&](std::string_view line) { lines.emplace_back(line); }, 100000);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], std::string(100000, 'a') + " " + lineCutMarker(100000));
  EXPECT_EQ(lines[1], "b");
  EXPECT_EQ(lines[2], "c");
}

}  // namespace
}  // namespace hetbench::logs
