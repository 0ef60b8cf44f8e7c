#include "hetbench/distributed/world.h"

#include <charconv>
#include <stdexcept>
#include <string>

namespace hetbench::distributed {
namespace {

std::optional<std::string> lookup(const Getenv& getenv, const char* name) {
  const char* value = getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

[[noreturn]] void invalid(const char* name, const std::string& value, const std::string& why) {
  throw std::invalid_argument(std::string(name) + "=\"" + value + "\" " + why);
}

/// The whole value as an integer in [low, high], or a message naming the variable.
int64_t parseInteger(const char* name, const std::string& value, int64_t low, int64_t high,
                     const char* what) {
  int64_t parsed = 0;
  const char* end = value.data() + value.size();
  const auto [stop, error] = std::from_chars(value.data(), end, parsed);
  if (value.empty() || error != std::errc() || stop != end) {
    invalid(name, value, std::string("is not ") + what);
  }
  if (parsed < low || parsed > high) invalid(name, value, std::string("is not ") + what);
  return parsed;
}

constexpr int64_t kMaxProcesses = 1 << 24;

}  // namespace

World worldFromEnvironment(const Getenv& getenv) {
  World world;
  if (const auto size = lookup(getenv, "WORLD_SIZE")) {
    world.size = static_cast<int>(
        parseInteger("WORLD_SIZE", *size, 1, kMaxProcesses, "a positive number of processes"));
  }

  const char* rankName = "RANK";
  auto rank = lookup(getenv, rankName);
  if (!rank) {
    rankName = "JOB_COMPLETION_INDEX";
    rank = lookup(getenv, rankName);
  }
  if (rank) {
    world.rank = static_cast<int>(
        parseInteger(rankName, *rank, 0, kMaxProcesses, "a rank (a non-negative integer)"));
    if (world.rank >= world.size) {
      invalid(rankName, *rank, "is not below WORLD_SIZE=" + std::to_string(world.size));
    }
  } else if (world.distributed()) {
    throw std::invalid_argument("WORLD_SIZE=" + std::to_string(world.size) +
                                " needs RANK (or JOB_COMPLETION_INDEX) to say which process "
                                "this is");
  }

  if (const auto localSize = lookup(getenv, "LOCAL_WORLD_SIZE")) {
    world.localSize = static_cast<int>(parseInteger(
        "LOCAL_WORLD_SIZE", *localSize, 1, kMaxProcesses, "a positive number of processes"));
    if (*world.localSize > world.size) {
      invalid("LOCAL_WORLD_SIZE", *localSize, "is above WORLD_SIZE=" + std::to_string(world.size));
    }
  }
  if (const auto localRank = lookup(getenv, "LOCAL_RANK")) {
    world.localRank = static_cast<int>(parseInteger("LOCAL_RANK", *localRank, 0, kMaxProcesses,
                                                    "a rank (a non-negative integer)"));
    if (world.localSize && world.localRank >= *world.localSize) {
      invalid("LOCAL_RANK", *localRank,
              "is not below LOCAL_WORLD_SIZE=" + std::to_string(*world.localSize));
    }
    if (world.localRank >= world.size) {
      invalid("LOCAL_RANK", *localRank, "is not below WORLD_SIZE=" + std::to_string(world.size));
    }
  }

  if (const auto addr = lookup(getenv, "MASTER_ADDR")) {
    if (addr->empty()) invalid("MASTER_ADDR", *addr, "is not an address");
    world.masterAddr = *addr;
  } else if (world.distributed()) {
    throw std::invalid_argument("WORLD_SIZE=" + std::to_string(world.size) +
                                " needs MASTER_ADDR, the address of rank 0's rendezvous store");
  }
  if (const auto port = lookup(getenv, "MASTER_PORT")) {
    world.masterPort =
        static_cast<uint16_t>(parseInteger("MASTER_PORT", *port, 1, 65535, "a port (1-65535)"));
  }
  if (const auto interface = lookup(getenv, "GLOO_SOCKET_IFNAME")) world.glooInterface = *interface;
  return world;
}

std::string describe(const World& world) {
  std::string text = "rank " + std::to_string(world.rank) + " of " + std::to_string(world.size);
  text += " (local " + std::to_string(world.localRank);
  if (world.localSize) text += " of " + std::to_string(*world.localSize);
  text += ")";
  if (world.distributed()) {
    text += ", rendezvous at " + world.masterAddr + ":" + std::to_string(world.masterPort);
  }
  return text;
}

}  // namespace hetbench::distributed
