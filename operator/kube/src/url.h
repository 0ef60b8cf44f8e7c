#pragma once

#include <string>
#include <string_view>

#include "hetbench/common/percent_encoding.h"

namespace hetbench::kube {

using common::percentEncode;

/// A query string built from the parameters that are set.
class Query {
 public:
  void add(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    text_ += text_.empty() ? "?" : "&";
    text_ += percentEncode(name) + "=" + percentEncode(value);
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace hetbench::kube
