#include "hetbench/logs/lines.h"

#include <vector>

namespace hetbench::logs {

std::string lineCutMarker(std::size_t maxLineBytes) {
  return "[hetbench: line cut at " + std::to_string(maxLineBytes) + " bytes]";
}

LineSplitter::LineSplitter(std::size_t maxLineBytes) : max_(maxLineBytes) {}

void LineSplitter::cut(const LineHandler& onLine) {
  // partial_ holds max_ bytes: drop the start of a rune that the cut split.
  std::size_t lead = partial_.size();
  while (lead > 0 && (static_cast<unsigned char>(partial_[lead - 1]) & 0xC0) == 0x80) --lead;
  if (lead > 0) {
    const auto first = static_cast<unsigned char>(partial_[lead - 1]);
    const std::size_t length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1;
    if (lead - 1 + length > partial_.size()) partial_.resize(lead - 1);
  }
  partial_ += ' ';
  partial_ += lineCutMarker(max_);
  onLine(partial_);
  partial_.clear();
  dropping_ = true;
}

void LineSplitter::feed(std::string_view data, const LineHandler& onLine) {
  while (!data.empty()) {
    const std::size_t nl = data.find('\n');
    const std::string_view piece = data.substr(0, nl);
    if (!dropping_) {
      if (partial_.empty() && nl != std::string_view::npos && piece.size() <= max_) {
        onLine(piece);  // a whole line in one block: no copy
      } else if (piece.size() <= max_ - partial_.size()) {
        partial_.append(piece);
        if (nl != std::string_view::npos) {
          onLine(partial_);
          partial_.clear();
        }
      } else {
        partial_.append(piece.substr(0, max_ - partial_.size()));
        cut(onLine);
      }
    }
    if (nl == std::string_view::npos) return;
    dropping_ = false;
    data.remove_prefix(nl + 1);
  }
}

void LineSplitter::finish(const LineHandler& onLine) {
  if (!dropping_ && !partial_.empty()) onLine(partial_);
  partial_.clear();
  dropping_ = false;
}

void forEachLine(std::istream& in, const LineHandler& onLine, std::size_t maxLineBytes) {
  LineSplitter splitter(maxLineBytes);
  std::vector<char> block(64u << 10);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    splitter.feed(std::string_view(block.data(), got), onLine);
  }
  splitter.finish(onLine);
}

}  // namespace hetbench::logs
