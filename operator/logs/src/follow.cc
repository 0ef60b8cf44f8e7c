#include "hetbench/logs/follow.h"

#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "hetbench/logs/collector.h"

namespace hetbench::logs {

common::Result<std::uint64_t> followFile(const std::filesystem::path& source,
                                         const std::filesystem::path& kept,
                                         std::uint64_t maxBytes) {
  std::error_code ec;
  const std::uintmax_t have =
      std::filesystem::exists(kept, ec) ? std::filesystem::file_size(kept, ec) : 0;
  if (ec)
    return common::internalError("cannot read the size of " + kept.string() + ": " + ec.message());
  // Past the cap, the kept file ends in the marker, and nothing more is copied.
  if (have > maxBytes) return std::uint64_t{0};
  std::ifstream in(source, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(source, ec)) {
      return common::notFoundError(source.string() + " does not exist yet");
    }
    return common::internalError("cannot read " + source.string());
  }
  in.seekg(static_cast<std::streamoff>(have));
  if (!in) return std::uint64_t{0};  // the source is not longer than what is kept
  std::filesystem::create_directories(kept.parent_path(), ec);
  if (ec)
    return common::internalError("cannot create " + kept.parent_path().string() + ": " +
                                 ec.message());
  std::ofstream out(kept, std::ios::binary | std::ios::app);
  if (!out) return common::internalError("cannot write " + kept.string());
  std::uint64_t copied = 0;
  std::uint64_t room = maxBytes - have;
  std::vector<char> buffer(64u << 10);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::uint64_t>(in.gcount());
    if (got == 0) break;
    const std::uint64_t take = std::min(got, room);
    out.write(buffer.data(), static_cast<std::streamsize>(take));
    copied += take;
    room -= take;
    if (take < got) {
      // One byte past the cap tells a later call that the marker is written.
      out << (copied > 0 ? "\n" : "") << LogCollector::truncationMarker(maxBytes) << '\n';
      break;
    }
  }
  out.flush();
  if (!out) return common::internalError("cannot write " + kept.string());
  return copied;
}

}  // namespace hetbench::logs
