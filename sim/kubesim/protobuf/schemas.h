#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace hetbench::kubesim::protobuf {

/// The Kubernetes types whose JSON is not the plain image of their message.
enum class SpecialType {
  kNone,
  kTime,                 // meta/v1 Time: RFC 3339 to the second, null when unset
  kMicroTime,            // meta/v1 MicroTime: RFC 3339 with microseconds
  kDuration,             // meta/v1 Duration: a Go duration string
  kQuantity,             // resource.Quantity: its string
  kIntOrString,          // intstr.IntOrString: a JSON number or string
  kRawJson,              // RawExtension, FieldsV1, apiextensions JSON: bytes holding JSON
  kStringArray,          // authentication and authorization ExtraValue: a JSON array
  kSchemaOrArray,        // JSONSchemaPropsOrArray: a schema or an array of them
  kSchemaOrBool,         // JSONSchemaPropsOrBool: a schema or a boolean
  kSchemaOrStringArray,  // JSONSchemaPropsOrStringArray: a schema or an array of strings
};

/// The Kubernetes wire schemas kubesim knows: a DescriptorPool built once from the descriptors
/// embedded at build time, with what the codec needs to read beside them. Immutable once built,
/// so shared by every request thread.
class Schemas {
 public:
  /// The one instance, built on first use.
  static const Schemas& get();

  /// The message of a kind ("v1" "Pod", "batch/v1" "Job"); the meta/v1 kinds (Status,
  /// DeleteOptions, WatchEvent) in every group-version, as the API registers them. nullptr when
  /// kubesim has no schema for it, as for custom resources.
  const google::protobuf::Descriptor* kind(std::string_view apiVersion,
                                           std::string_view kind) const;
  /// A message by its full name ("k8s.io.apimachinery.pkg.runtime.Unknown"); it must exist.
  const google::protobuf::Descriptor* message(const std::string& fullName) const;
  /// An empty message of the type.
  std::unique_ptr<google::protobuf::Message> make(const google::protobuf::Descriptor* type) const;

  SpecialType special(const google::protobuf::Descriptor* type) const;
  /// Whether a zero value of the scalar field is a value (option kubesim.keep_zero).
  bool keepsZero(const google::protobuf::FieldDescriptor* field) const;
  /// Whether the message field is an embedded Go struct, its fields shown in the JSON of the
  /// message that holds it (option kubesim.inline).
  bool isInline(const google::protobuf::FieldDescriptor* field) const;
  /// The field of `type` whose JSON name is `name`, nullptr when none.
  const google::protobuf::FieldDescriptor* field(const google::protobuf::Descriptor* type,
                                                 const std::string& name) const;

 private:
  Schemas();

  google::protobuf::DescriptorPool pool_;
  mutable google::protobuf::DynamicMessageFactory factory_;
  std::unordered_map<const google::protobuf::Descriptor*, SpecialType> special_;
  std::unordered_set<const google::protobuf::FieldDescriptor*> keepZero_;
  std::unordered_set<const google::protobuf::FieldDescriptor*> inline_;
  std::unordered_map<const google::protobuf::Descriptor*,
                     std::unordered_map<std::string, const google::protobuf::FieldDescriptor*>>
      jsonFields_;
};

}  // namespace hetbench::kubesim::protobuf
