#include "hetbench/models/state_dict.h"

#include <torch/serialize.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace hetbench::models {

StateDict readStateDict(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    throw std::runtime_error("cannot open " + path);
  }
  std::vector<char> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw std::runtime_error("cannot read " + path);
  }
  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + " is not a file of torch.save: " + e.what_without_backtrace());
  }
  if (!value.isGenericDict()) {
    throw std::runtime_error(path + " holds a " + value.tagKind() +
                             ", not a dict of str to tensor");
  }
  StateDict state;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) {
      throw std::runtime_error(path + " holds an entry that is not str to tensor");
    }
    state.emplace(entry.key().toStringRef(), entry.value().toTensor());
  }
  return state;
}

StateDict stateDict(const torch::nn::Module& module) {
  StateDict state;
  for (const auto& item : module.named_parameters()) {
    state.emplace(item.key(), item.value());
  }
  for (const auto& item : module.named_buffers()) {
    state.emplace(item.key(), item.value());
  }
  return state;
}

void loadStateDict(torch::nn::Module& module, const StateDict& state) {
  const StateDict own = stateDict(module);
  std::ostringstream problems;
  for (const auto& [name, tensor] : own) {
    const auto found = state.find(name);
    if (found == state.end()) {
      problems << "\n  missing " << name;
    } else if (found->second.sizes() != tensor.sizes()) {
      problems << "\n  " << name << " is " << found->second.sizes() << ", the module's "
               << tensor.sizes();
    }
  }
  for (const auto& [name, tensor] : state) {
    if (own.find(name) == own.end()) {
      problems << "\n  unexpected " << name;
    }
  }
  if (!problems.str().empty()) {
    throw std::invalid_argument("state dict does not fit the module:" + problems.str());
  }
  torch::NoGradGuard noGrad;
  for (const auto& [name, tensor] : own) {
    tensor.copy_(state.at(name));
  }
}

}  // namespace hetbench::models
