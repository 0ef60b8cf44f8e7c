#pragma once

// The lines of a workload's output, read with bounded memory: a workload may print binary data,
// redraw a progress bar with '\r' or never print a newline, and none of that may grow the
// operator (issue 19). The collector splits the streams it follows, measurement the files it
// reads, the same way.

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

namespace hetbench::logs {

/// The longest line kept whole by default (a kubelet timestamp and 64 KiB of text).
inline constexpr std::size_t kMaxLineBytes = 64u << 10;

/// What ends a line that was cut: "[hetbench: line cut at N bytes]".
std::string lineCutMarker(std::size_t maxLineBytes);

using LineHandler = std::function<void(std::string_view)>;

/// Splits bytes into lines at '\n' (which the lines handed on do not hold), keeping at most
/// `maxLineBytes` of a line: a longer one is handed on as soon as it passes that length, cut at a
/// UTF-8 boundary, followed by a space and lineCutMarker; the rest of it, up to its newline, is
/// dropped.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t maxLineBytes = kMaxLineBytes);

  /// Hands on every line that `data` ends or cuts.
  void feed(std::string_view data, const LineHandler& onLine);
  /// Hands on the last line when it had no newline; the splitter is then empty.
  void finish(const LineHandler& onLine);

 private:
  void cut(const LineHandler& onLine);

  std::size_t max_;
  std::string partial_;
  bool dropping_ = false;  // inside a line already cut, until its newline
};

/// Every line of `in`, read in blocks through a LineSplitter.
void forEachLine(std::istream& in, const LineHandler& onLine,
                 std::size_t maxLineBytes = kMaxLineBytes);

}  // namespace hetbench::logs
