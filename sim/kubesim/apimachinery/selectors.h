#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// A Kubernetes label selector: the query-string form of `?labelSelector=` ("a=b,c!=d,
/// e in (x,y),f notin (z),g,!h", where '=' and '==' are the same) or a metav1.LabelSelector
/// object (matchLabels, matchExpressions with In, NotIn, Exists, DoesNotExist). Requirements
/// are ANDed; the empty selector matches everything. The query-string form also accepts the
/// integer comparisons "a>5" and "a<5" (kGreaterThan, kLessThan), as the API server does.
class LabelSelector {
 public:
  enum class Op {
    kEquals,
    kNotEquals,
    kIn,
    kNotIn,
    kExists,
    kDoesNotExist,
    kGreaterThan,
    kLessThan
  };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };

  /// Errors are Invalid with the API server's wording, e.g. "unable to parse requirement: ...",
  /// including key and value syntax checks (qualified names, 63-character label values).
  static common::Result<LabelSelector> parse(std::string_view text);
  static common::Result<LabelSelector> fromJson(const nlohmann::json& labelSelector);

  /// `labels` is metadata.labels: an object of strings, or null/absent.
  bool matches(const nlohmann::json& labels) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  /// The query-string form, as labels.Selector's String() writes it: requirements sorted by key,
  /// the values of `in` and `notin` sorted ("app=web,tier in (edge,front),!canary"); "" for the
  /// empty selector. `==` is written `=`.
  std::string toString() const;

 private:
  std::vector<Requirement> requirements_;
};

/// A field selector ("metadata.name=x,status.phase!=Running"; '=', '==' and '!='). Values are
/// compared as strings against the object's field at the dotted path (absent = "").
class FieldSelector {
 public:
  struct Requirement {
    std::string field;
    bool equals;
    std::string value;
  };

  static common::Result<FieldSelector> parse(std::string_view text);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

/// Validates a label key ("prefix/name" with a DNS-subdomain prefix) and value as the API
/// server does for metadata.labels; returns the messages it would give (empty when valid), each
/// without its field path (`Invalid value: "bad key": name part must ...`), so the caller prefixes
/// "metadata.labels: " or "spec.template.metadata.labels: ".
std::vector<std::string> validateLabel(std::string_view key, std::string_view value);

}  // namespace hetbench::kubesim
