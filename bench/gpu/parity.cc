// gpu_parity: a model's forward pass and one training step of hetbench-train's Trainer on CUDA,
// from the weights and batch that bench/gpu/parity.py wrote, written back for it to compare
// with PyTorch's own. TF32 is off and cuDNN deterministic, as parity.py sets them on its side, so
// that fp32 is fp32 and neither side's result depends on the order of atomic additions.
//
//   gpu_parity MODEL SIZE DIR [DEVICE [STEPS]]
//
// SIZE is "128" or "256,384"; DEVICE "cuda" (the default) or "cpu" (to try the comparison on a
// machine without a GPU). It reads DIR/weights.pt and DIR/batch.pt (dicts of CPU tensors: the
// state dict; "input" and "target") and writes DIR/cpp.pt: "logits" (eval mode), "loss" (the
// first step's), "after.NAME" for each parameter and buffer after that step, and "losses", the
// loss of each of STEPS steps (default 1) on the same batch.
#include <ATen/Context.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "hetbench/models/descriptor.h"
#include "hetbench/models/model.h"
#include "hetbench/models/state_dict.h"
#include "hetbench/train/options.h"
#include "hetbench/train/trainer.h"

namespace models = hetbench::models;
namespace train = hetbench::train;

namespace {

std::vector<int64_t> parseSize(const std::string& text) {
  std::vector<int64_t> size;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    size.push_back(std::stoll(part));
  }
  return size;
}

void run(models::ModelKind kind, const std::vector<int64_t>& size, const std::string& dir,
         const torch::Device& device, int64_t steps) {
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setDeterministicCuDNN(true);
  const auto model = models::makeModel(kind, models::ModelOptions().sampleSize(size));
  models::loadStateDict(model->module(), models::readStateDict(dir + "/weights.pt"));
  const models::StateDict batchFile = models::readStateDict(dir + "/batch.pt");
  const models::Batch cpuBatch{batchFile.at("input"), batchFile.at("target")};

  train::TrainOptions options;
  options.model = kind;
  train::TrainerConfig config;
  config.device = device;
  config.hyper = train::resolveHyperparameters(options, cpuBatch.input.size(0));
  train::SingleProcess single;
  train::Trainer trainer(*model, config, single);
  const models::Batch batch = trainer.toDevice(cpuBatch);

  c10::Dict<std::string, at::Tensor> out;
  model->module().eval();
  {
    const torch::NoGradGuard noGrad;
    out.insert("logits", model->forward(batch.input).cpu());
  }
  // CosmoFlow has no BatchNorm: in eval mode its step differs from training only by dropout,
  // whose random masks no two programs share.
  if (kind != models::ModelKind::kCosmoflow) {
    model->module().train();
  }
  std::vector<torch::Tensor> losses{trainer.step(batch).cpu()};
  out.insert("loss", losses.front());
  for (const auto& [name, tensor] : models::stateDict(model->module())) {
    out.insert("after." + name, tensor.cpu());
  }
  while (static_cast<int64_t>(losses.size()) < steps) {
    losses.push_back(trainer.step(batch).cpu());
  }
  out.insert("losses", torch::stack(losses));
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(out));
  std::ofstream file(dir + "/cpp.pt", std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) {
    throw std::runtime_error("cannot write " + dir + "/cpp.pt");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::cerr << "usage: gpu_parity MODEL SIZE DIR [cuda|cpu [STEPS]]\n";
    return 2;
  }
  const auto kind = models::modelNamed(argv[1]);
  if (!kind) {
    std::cerr << "gpu_parity: no model named " << argv[1] << "\n";
    return 2;
  }
  try {
    const std::string device = argc >= 5 ? argv[4] : "cuda";
    const int64_t steps = argc == 6 ? std::stoll(argv[5]) : 1;
    run(*kind, parseSize(argv[2]), argv[3], torch::Device(device == "cpu" ? "cpu" : "cuda:0"),
        steps);
  } catch (const c10::Error& e) {
    std::cerr << "gpu_parity: " << e.what_without_backtrace() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gpu_parity: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
