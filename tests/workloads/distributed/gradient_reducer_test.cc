#include "hetbench/distributed/gradient_reducer.h"

#include <gtest/gtest.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fake_communicator.h"

namespace hetbench::distributed {
namespace {

using testing::FakeCommunicator;

// Parameters in registration order: 0.weight (32 floats), 0.bias (8), 1.weight (64), 1.bias (8),
// 2.weight (16), 2.bias (2).
torch::nn::Sequential threeLayers() {
  torch::manual_seed(0);
  return torch::nn::Sequential(torch::nn::Linear(4, 8), torch::nn::Linear(8, 8),
                               torch::nn::Linear(8, 2));
}

torch::Tensor input() {
  torch::manual_seed(1);
  return torch::randn({5, 4});
}

/// The gradients one process computes alone, as the reference for the averaged ones.
std::vector<torch::Tensor> localGradients(torch::nn::Sequential net, const torch::Tensor& x) {
  auto twin = threeLayers();
  {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < twin->parameters().size(); ++i) {
      twin->parameters()[i].copy_(net->parameters()[i]);
    }
  }
  twin->forward(x).pow(2).sum().backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : twin->parameters()) grads.push_back(p.grad().clone());
  return grads;
}

// Verifies DDP's bucket assignment: reverse registration order, closed at the cap, the first
// bucket with its own smaller cap.
TEST(GradientReducer, FormsBucketsInReverseOrderOfRegistration) {
  FakeCommunicator comm;
  auto net = threeLayers();
  // 72 bytes = 18 floats: each layer's weight and bias reach it together.
  GradientReducer byLayer(comm, *net,
                          GradientReducerOptions().bucketCapBytes(72).firstBucketCapBytes(72));
  EXPECT_EQ(byLayer.buckets(), (std::vector<std::vector<size_t>>{{5, 4}, {3, 2}, {1, 0}}));

  GradientReducer smallFirst(comm, *net,
                             GradientReducerOptions().bucketCapBytes(72).firstBucketCapBytes(8));
  EXPECT_EQ(smallFirst.buckets(), (std::vector<std::vector<size_t>>{{5}, {4, 3}, {2}, {1, 0}}));

  GradientReducer oneBucket(comm, *net);
  EXPECT_EQ(oneBucket.buckets(), (std::vector<std::vector<size_t>>{{5, 4, 3, 2, 1, 0}}));
}

// Verifies that parameters of different types never share a bucket.
TEST(GradientReducer, KeepsDataTypesApart) {
  FakeCommunicator comm;
  torch::nn::Module module;
  module.register_parameter("a", torch::zeros({4}));
  module.register_parameter("b", torch::zeros({4}, torch::kFloat64));
  module.register_parameter("c", torch::zeros({4}));
  GradientReducer reducer(comm, module);
  EXPECT_EQ(reducer.buckets(), (std::vector<std::vector<size_t>>{{2, 0}, {1}}));
}

// Verifies that a bucket's all-reduce starts as soon as its last gradient is accumulated, in
// the middle of backward, and that finish() waits for them all.
TEST(GradientReducer, LaunchesEachBucketBeforeBackwardEnds) {
  FakeCommunicator comm;
  auto net = threeLayers();
  GradientReducer reducer(comm, *net,
                          GradientReducerOptions().bucketCapBytes(72).firstBucketCapBytes(72));
  const auto x = input();
  auto hidden = net[0]->as<torch::nn::Linear>()->forward(x);
  // Runs when backward reaches the first layer, after the last two layers' gradients.
  size_t launchedBeforeFirstLayer = 0;
  hidden.register_hook([&](torch::Tensor grad) {
    launchedBeforeFirstLayer = comm.operations.size();
    return grad;
  });
  auto out =
      net[2]->as<torch::nn::Linear>()->forward(net[1]->as<torch::nn::Linear>()->forward(hidden));
  out.pow(2).sum().backward();

  EXPECT_EQ(launchedBeforeFirstLayer, 2U);
  ASSERT_EQ(comm.operations.size(), 3U);
  for (const auto& operation : comm.operations) EXPECT_FALSE(operation.waited);
  reducer.finish();
  for (const auto& operation : comm.operations) EXPECT_TRUE(operation.waited);
}

// Verifies that each rank's .grad ends as the mean of all ranks' gradients, and that the
// buckets carried this rank's gradients flattened in bucket order.
TEST(GradientReducer, AveragesGradientsAcrossRanks) {
  for (int size : {2, 4}) {
    SCOPED_TRACE(size);
    FakeCommunicator comm(size);
    auto net = threeLayers();
    GradientReducer reducer(comm, *net,
                            GradientReducerOptions().bucketCapBytes(72).firstBucketCapBytes(72));
    const auto x = input();
    const auto local = localGradients(net, x);
    net->forward(x).pow(2).sum().backward();
    reducer.finish();

    const auto params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      // The other ranks' gradients are all ones.
      EXPECT_TRUE(torch::allclose(params[i].grad(), (local[i] + (size - 1)) / size)) << i;
    }
    ASSERT_EQ(comm.operations.size(), 3U);
    EXPECT_TRUE(torch::equal(comm.operations[0].sent,
                             torch::cat({local[5].flatten(), local[4].flatten()})));
    EXPECT_TRUE(torch::equal(comm.operations[2].sent,
                             torch::cat({local[1].flatten(), local[0].flatten()})));
  }
}

// Verifies repeated steps, with gradients set to none or to zero between them.
TEST(GradientReducer, RepeatsStepAfterStep) {
  FakeCommunicator comm;
  auto net = threeLayers();
  GradientReducer reducer(comm, *net);
  const auto x = input();
  const auto local = localGradients(net, x);
  for (bool setToNone : {true, false, true}) {
    SCOPED_TRACE(setToNone);
    net->zero_grad(setToNone);
    net->forward(x).pow(2).sum().backward();
    reducer.finish();
    const auto params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(torch::allclose(params[i].grad(), (local[i] + 1) / 2)) << i;
    }
  }
  EXPECT_EQ(comm.operations.size(), 3U);
}

// Verifies that a second backward before finish() is refused instead of being summed silently.
TEST(GradientReducer, RefusesTwoBackwardsInOneStep) {
  FakeCommunicator comm;
  auto net = threeLayers();
  GradientReducer reducer(comm, *net);
  const auto x = input();
  net->forward(x).sum().backward();
  try {
    net->forward(x).sum().backward();
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("arrived twice in one step: call finish()"),
              std::string::npos)
        << e.what();
  }
}

/// Three layers and a fourth that forward leaves out.
struct WithUnused {
  torch::nn::Sequential net = threeLayers();
  torch::nn::Linear unused{2, 2};

  WithUnused() { net->register_module("unused", unused); }
  torch::Tensor loss(const torch::Tensor& x) {
    torch::Tensor h = x;
    for (size_t i = 0; i < 3; ++i) h = net[i]->as<torch::nn::Linear>()->forward(h);
    return h.pow(2).sum();
  }
};

// Verifies that, as DDP without find_unused_parameters, a parameter without gradient stops the
// step with its name, and that the next step works.
TEST(GradientReducer, NamesParametersWithoutGradient) {
  FakeCommunicator comm;
  WithUnused model;
  GradientReducer reducer(comm, *model.net);
  const auto x = input();
  model.loss(x).backward();
  try {
    reducer.finish();
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no gradient in this backward for unused.weight, "
                                         "unused.bias: "),
              std::string::npos)
        << e.what();
  }
  // The next step uses every parameter.
  model.net->zero_grad(true);
  (model.loss(x) + model.unused->forward(torch::ones({1, 2})).sum()).backward();
  EXPECT_NO_THROW(reducer.finish());
}

// Verifies findUnusedParameters: a parameter no rank used keeps no gradient; one that another
// rank used gets the average with zeros for this rank.
TEST(GradientReducer, FindsUnusedParameters) {
  for (double peerUsed : {0.0, 1.0}) {
    SCOPED_TRACE(peerUsed);
    FakeCommunicator comm;
    comm.peerMaximum = peerUsed;
    WithUnused model;
    GradientReducer reducer(comm, *model.net, GradientReducerOptions().findUnusedParameters(true));
    const auto x = input();
    const auto local = localGradients(model.net, x);
    model.loss(x).backward();
    reducer.finish();

    const auto params = model.net->parameters();
    for (size_t i = 0; i < 6; ++i) {
      EXPECT_TRUE(torch::allclose(params[i].grad(), (local[i] + 1) / 2)) << i;
    }
    for (const auto& p : model.unused->parameters()) {
      if (peerUsed == 0.0) {
        EXPECT_FALSE(p.grad().defined());
      } else {
        EXPECT_TRUE(torch::equal(p.grad(), torch::full_like(p, 0.5F)));
      }
    }
    // The buckets, then the flags of which parameters each rank used.
    EXPECT_EQ(comm.operations.back().op, ReduceOp::kMax);
  }
}

// Verifies that one process leaves the gradients as backward wrote them, with the buckets'
// assignment but nothing allocated or hooked.
TEST(GradientReducer, SingleProcessLeavesGradientsAlone) {
  const auto comm = singleProcessCommunicator();
  auto net = threeLayers();
  GradientReducer reducer(*comm, *net);
  EXPECT_EQ(reducer.buckets().size(), 1U);
  const auto x = input();
  const auto local = localGradients(net, x);
  // Two backwards without finish() in between would be refused by the hooks.
  net->forward(x).pow(2).sum().backward();
  net->zero_grad(true);
  net->forward(x).pow(2).sum().backward();
  reducer.finish();
  const auto params = net->parameters();
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(torch::equal(params[i].grad(), local[i]));
}

}  // namespace
}  // namespace hetbench::distributed
