#pragma once

#include <torch/nn/module.h>

#include "hetbench/distributed/communicator.h"

namespace hetbench::distributed {

/// Gives every rank rank 0's parameters and buffers, as DistributedDataParallel does when it
/// wraps a module: call it once after building (or loading) the model and moving it to its
/// device, before the first step.
void broadcastModule(Communicator& comm, torch::nn::Module& module);

/// Gives every rank rank 0's buffers (BatchNorm's running statistics and counters): what
/// DistributedDataParallel does before each forward with its default broadcast_buffers=True.
/// Cheap: a few hundred kilobytes for ResNet-50. docs/workloads.md says which workload does
/// what.
void broadcastBuffers(Communicator& comm, torch::nn::Module& module);

/// Replaces each floating-point buffer (BatchNorm's running mean and variance) by its mean over
/// the ranks: what the DeepCAM reference does at the end of each training epoch, before
/// validation (its DDP runs with broadcast_buffers=False). Integer buffers are left alone.
void averageBuffers(Communicator& comm, torch::nn::Module& module);

}  // namespace hetbench::distributed
