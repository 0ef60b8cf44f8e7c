#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// The JSONPath subset of additionalPrinterColumns: ".a.b", "['a.b']", "[0]", "[*]",
/// and filters "[?(@.type==\"Ready\")]" (==, !=), as kubectl's jsonpath evaluates them.
class JsonPath {
 public:
  /// Invalid with a message naming the expression when it does not parse.
  static common::Result<JsonPath> parse(std::string_view expression);
  /// Every value the path selects, in document order (empty when nothing matches).
  std::vector<nlohmann::json> evaluate(const nlohmann::json& object) const;

 private:
  struct Step {
    enum class Kind { kField, kIndex, kWildcard, kFilter } kind;
    std::string field;
    long long index = 0;
    std::vector<std::string> filterPath;  // the @.a.b of a filter
    bool filterEquals = true;
    nlohmann::json filterValue;
  };
  std::vector<Step> steps_;
};

/// One additionalPrinterColumn of a CRD version.
struct PrinterColumn {
  std::string name;
  std::string type;  // integer, number, string, boolean, date
  std::string format;
  std::string description;
  int priority = 0;
  std::string jsonPath;
};

/// Builds a meta.k8s.io/v1 Table as the API server does for custom resources: columns Name,
/// then the printer columns (or "Age", type date, when the CRD declares none); each row's cells
/// from the columns' paths (absent values as null; date columns as the human-readable age
/// relative to `now`, like "5m" or "3d4h", as the server renders them), and row.object as
/// PartialObjectMetadata (includeObject=Metadata, the default), the whole object (Object) or
/// null (None). `objects` are full objects; `listMeta` is the list's metadata.
common::Result<nlohmann::json> buildCustomResourceTable(const std::vector<PrinterColumn>& columns,
                                                        const std::vector<nlohmann::json>& objects,
                                                        const nlohmann::json& listMeta,
                                                        std::string_view includeObject,
                                                        common::WallTime now);

}  // namespace hetbench::kubesim
