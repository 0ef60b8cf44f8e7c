#include "hetbench/models/descriptor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::models {
namespace {

// Verifies that the table has one row per ModelKind, in its order, so that descriptor(kind)
// is that kind's row.
TEST(ModelDescriptor, HasEveryModelInKindOrder) {
  const std::vector<ModelKind> kinds = {ModelKind::kResnet50, ModelKind::kCosmoflow,
                                        ModelKind::kDeepcam};
  ASSERT_EQ(allModels().size(), kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(allModels()[i].kind, kinds[i]);
    EXPECT_EQ(&descriptor(kinds[i]), &allModels()[i]);
  }
}

// Verifies the names a run reports: --model's and run_start's benchmark, and run_start's model.
TEST(ModelDescriptor, NamesEachModel) {
  EXPECT_EQ(descriptor(ModelKind::kResnet50).name, "resnet50");
  EXPECT_EQ(descriptor(ModelKind::kCosmoflow).name, "cosmoflow");
  EXPECT_EQ(descriptor(ModelKind::kDeepcam).name, "deepcam");
  EXPECT_EQ(descriptor(ModelKind::kResnet50).modelName, "resnet50-v1.5");
  EXPECT_EQ(descriptor(ModelKind::kCosmoflow).modelName, "cosmoflow");
  EXPECT_EQ(descriptor(ModelKind::kDeepcam).modelName, "deepcam-deeplabv3plus");
}

// Verifies the one lookup by name: each model's name finds it, any other text nothing.
TEST(ModelDescriptor, LooksModelsUpByName) {
  for (const ModelDescriptor& model : allModels()) {
    EXPECT_EQ(modelNamed(model.name), model.kind) << model.name;
  }
  for (const char* other : {"", "bert", "ResNet50", "resnet50 ", "resnet50-v1.5"}) {
    EXPECT_EQ(modelNamed(other), std::nullopt) << other;
  }
}

}  // namespace
}  // namespace hetbench::models
