#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace hetbench::distributed {

/// The processes of one training run and this process' place among them, as torchrun describes
/// them in the environment.
struct World {
  /// Processes in the run (WORLD_SIZE).
  int size = 1;
  /// This process, 0 .. size-1 (RANK, or JOB_COMPLETION_INDEX in a Kubernetes Indexed Job).
  int rank = 0;
  /// This process among those on its node (LOCAL_RANK): which GPU it takes.
  int localRank = 0;
  /// Processes on this node (LOCAL_WORLD_SIZE), when the launcher says.
  std::optional<int> localSize;
  /// Where rank 0 serves the rendezvous store (MASTER_ADDR, MASTER_PORT).
  std::string masterAddr;
  uint16_t masterPort = kDefaultMasterPort;
  /// The network interface Gloo binds to (GLOO_SOCKET_IFNAME); empty to choose by address.
  std::string glooInterface;

  /// torchrun's default MASTER_PORT.
  static constexpr uint16_t kDefaultMasterPort = 29500;

  bool distributed() const { return size > 1; }
};

/// Looks up an environment variable: its value, or nullptr when unset (std::getenv's contract).
using Getenv = std::function<const char*(const char*)>;

/// The world from torchrun's variables: WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE,
/// MASTER_ADDR, MASTER_PORT (default 29500) and GLOO_SOCKET_IFNAME. A Kubernetes Indexed Job
/// sets JOB_COMPLETION_INDEX, which stands in for an absent RANK. None of them set: a single
/// process. Throws std::invalid_argument naming the variable and its value for a value that is
/// not a number, out of range or inconsistent with the others, and for WORLD_SIZE > 1 without
/// a rank or without MASTER_ADDR.
World worldFromEnvironment(const Getenv& getenv);

/// "rank 1 of 4 (local 1 of 2), rendezvous at 10.0.0.5:29500", for log lines and messages.
std::string describe(const World& world);

}  // namespace hetbench::distributed
