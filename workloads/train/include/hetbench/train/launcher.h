#pragma once

// Starting the ranks of one node, as torchrun's --nproc-per-node does: a pod that the operator
// gives several GPUs runs one hetbench-train, which starts one rank per GPU.

#include <hetbench/distributed/world.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace hetbench::train {

/// The variables that local process `local` of `procs` on a node gets over the node's
/// environment. `node` counts nodes, as the operator's Indexed Job sets WORLD_SIZE and RANK for
/// its pods: the process gets WORLD_SIZE = node.size x procs, RANK = node.rank x procs + local,
/// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR (the node's; 127.0.0.1 for a single node without
/// one) and MASTER_PORT.
std::map<std::string, std::string> localRankEnvironment(const distributed::World& node, int procs,
                                                        int local);

/// Blocks SIGCHLD, SIGTERM and SIGINT in the calling thread, and so in every thread it starts
/// afterwards: launchLocalRanks waits for them with sigwaitinfo, which works only when no thread
/// takes them first. Call it first in main; unblockLauncherSignals when this process trains.
void blockLauncherSignals();
void unblockLauncherSignals();

/// Starts `procs` processes of `program` with `args`, each with this process' environment,
/// stdout and stderr and localRankEnvironment over them, and waits for all of them. When one
/// fails, the others get SIGTERM, and SIGKILL 30 s later if they are still there; a SIGTERM or
/// SIGINT to this process goes to each of them. Returns 0 when all exit 0, else the first
/// failure's exit status (128 + the signal for a process killed by one). Throws
/// std::runtime_error when a process cannot be started, after stopping those that were. Needs
/// blockLauncherSignals.
int launchLocalRanks(const std::string& program, const std::vector<std::string>& args,
                     const distributed::World& node, int procs, std::ostream& err);

}  // namespace hetbench::train
