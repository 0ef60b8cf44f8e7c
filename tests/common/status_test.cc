#include "hetbench/common/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace hetbench::common {
namespace {

// Verifies that each factory yields exactly its own predicate and Kubernetes reason name.
TEST(Status, PredicatesMatchCodes) {
  struct Case {
    Status status;
    bool (Status::*predicate)() const;
    std::string_view name;
  };
  const std::vector<Case> cases = {
      {notFoundError("x"), &Status::isNotFound, "NotFound"},
      {alreadyExistsError("x"), &Status::isAlreadyExists, "AlreadyExists"},
      {conflictError("x"), &Status::isConflict, "Conflict"},
      {invalidError("x"), &Status::isInvalid, "Invalid"},
      {unavailableError("x"), &Status::isUnavailable, "Unavailable"},
      {tooManyRequestsError("x"), &Status::isTooManyRequests, "TooManyRequests"},
      {goneError("x"), &Status::isGone, "Gone"},
      {timeoutError("x"), &Status::isTimeout, "Timeout"},
      {unauthorizedError("x"), &Status::isUnauthorized, "Unauthorized"},
      {internalError("x"), &Status::isInternal, "Internal"},
  };
  const std::vector<bool (Status::*)() const> all = {
      &Status::isOk,           &Status::isNotFound,        &Status::isAlreadyExists,
      &Status::isConflict,     &Status::isInvalid,         &Status::isUnavailable,
      &Status::isGone,         &Status::isTooManyRequests, &Status::isTimeout,
      &Status::isUnauthorized, &Status::isInternal};
  for (const Case& c : cases) {
    EXPECT_EQ(statusCodeName(c.status.code()), c.name);
    for (auto predicate : all) {
      EXPECT_EQ((c.status.*predicate)(), predicate == c.predicate) << c.name;
    }
  }
  EXPECT_TRUE(okStatus().isOk());
  EXPECT_EQ(okStatus().toString(), "Ok");
}

// Verifies that causes and context appear in the text a user reads.
TEST(Status, ToStringCarriesCausesAndContext) {
  const Status s = invalidError("BenchmarkRun \"r\" is invalid",
                                {{"spec.repetitions", "FieldValueInvalid", "must be >= 1"}});
  EXPECT_EQ(s.toString(), "Invalid: BenchmarkRun \"r\" is invalid; spec.repetitions: must be >= 1");
  EXPECT_EQ(s.withContext("create").message(), "create: BenchmarkRun \"r\" is invalid");
  EXPECT_EQ(s.withContext("create").causes(), s.causes());
  EXPECT_TRUE(okStatus().withContext("x").isOk());
}

Result<int> half(int v) {
  if (v % 2 != 0) return invalidError("odd");
  return v / 2;
}

Result<int> quarter(int v) {
  HETBENCH_ASSIGN_OR_RETURN(int h, half(v));
  HETBENCH_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

Status checkEven(int v) {
  HETBENCH_RETURN_IF_ERROR(half(v).status());
  return okStatus();
}

// Verifies Result access and the early-return macros.
TEST(Result, ValueOrErrorAndMacros) {
  EXPECT_EQ(*quarter(8), 2);
  EXPECT_TRUE(quarter(6).status().isInvalid());
  EXPECT_EQ(quarter(6).valueOr(-1), -1);
  EXPECT_TRUE(checkEven(4).isOk());
  EXPECT_TRUE(checkEven(3).isInvalid());
  Result<std::unique_ptr<int>> moved = std::make_unique<int>(7);
  std::unique_ptr<int> p = std::move(moved).value();
  EXPECT_EQ(*p, 7);
}

// Verifies that a Result built from an ok Status is an error instead of an empty value.
TEST(Result, OkStatusWithoutValueIsInternal) {
  Result<int> r = okStatus();
  EXPECT_FALSE(r.isOk());
  EXPECT_TRUE(r.status().isInternal());
}

}  // namespace
}  // namespace hetbench::common
