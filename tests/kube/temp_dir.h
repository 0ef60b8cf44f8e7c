#pragma once

#include "support/temp_dir.h"

namespace hetbench::kube::testing_support {

using hetbench::testing_support::TempDir;

inline constexpr const char* kFixtures = HETBENCH_KUBE_FIXTURES;

}  // namespace hetbench::kube::testing_support
