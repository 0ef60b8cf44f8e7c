#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>

#include <map>
#include <string>

namespace hetbench::models {

/// Tensors by name: a module's parameters and buffers, or any named tensors.
using StateDict = std::map<std::string, torch::Tensor>;

/// Reads a file that Python wrote with `torch.save(d, path)` where `d` is a plain dict of str to
/// tensor, e.g. `dict(model.state_dict())` (LibTorch cannot read an OrderedDict). Throws
/// std::runtime_error naming the file when it cannot be read or holds anything else.
StateDict readStateDict(const std::string& path);

/// The module's parameters and buffers by their dotted names, as PyTorch's state_dict() names
/// them.
StateDict stateDict(const torch::nn::Module& module);

/// Copies `state` into the module's parameters and buffers by name. Strict, like PyTorch's
/// load_state_dict: throws std::invalid_argument listing the missing and unexpected names and the
/// shape mismatches, and then changes nothing.
void loadStateDict(torch::nn::Module& module, const StateDict& state);

}  // namespace hetbench::models
