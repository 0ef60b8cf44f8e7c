#pragma once

// What the rendering tests share: a run, its specs and units, the labels and owner references
// its workloads carry, and the check of an Invalid status's causes.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "hetbench/benchmark/render.h"

namespace hetbench::benchmark::testing {

using nlohmann::json;

inline const std::string kUid = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b";
inline const std::string kOtherUid = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4c";
inline const RunRef kRun = {"lab", "resnet-sweep", kUid};

inline RunSpec workloadSpec(json workload, Benchmark benchmark = Benchmark::kResnet50) {
  RunSpec spec;
  spec.benchmark = benchmark;
  spec.system = "a100";
  spec.workload = std::move(workload);
  return spec;
}

inline RunSpec templateSpec(json templ) {
  RunSpec spec;
  spec.benchmark = Benchmark::kCustom;
  spec.system = "a100";
  spec.templ = std::move(templ);
  return spec;
}

inline Unit unitOf(std::int64_t trial, std::int64_t repetition, Params params = {}) {
  return {trial, repetition, std::move(params)};
}

// The labels every object and pod template of kRun's unit carries.
inline json unitLabels(std::int64_t trial, std::int64_t repetition, const std::string& benchmark) {
  return {{"hetbench.io/run", "resnet-sweep"},
          {"hetbench.io/trial", std::to_string(trial)},
          {"hetbench.io/repetition", std::to_string(repetition)},
          {"hetbench.io/id", "9mrvp"},
          {"hetbench.io/benchmark", benchmark},
          {"hetbench.io/system", "a100"}};
}

inline const json kOwnerReferences = json::parse(R"([{
  "apiVersion": "hetbench.io/v1alpha1", "kind": "BenchmarkRun", "name": "resnet-sweep",
  "uid": "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b", "controller": true, "blockOwnerDeletion": true
}])");

inline RenderedUnit mustRender(const RunSpec& spec, const Unit& unit) {
  common::Result<RenderedUnit> got = renderUnit(kRun, spec, unit);
  EXPECT_TRUE(got.isOk()) << got.status().toString();
  return got.isOk() ? *got : RenderedUnit{};
}

struct ErrorCase {
  std::string name;
  json input;
  std::string field;
  std::string message;
};

inline bool hasCause(const common::Status& status, const std::string& field,
                     const std::string& message) {
  for (const common::StatusCause& c : status.causes()) {
    if (c.field == field && c.message == message) return true;
  }
  return false;
}

}  // namespace hetbench::benchmark::testing
