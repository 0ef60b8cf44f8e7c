#include "protobuf/schemas.h"

#include <google/protobuf/descriptor.pb.h>

#include <cstdio>
#include <cstdlib>

#include "embedded_schemas.h"

namespace hetbench::kubesim::protobuf {
namespace {

namespace gp = google::protobuf;

// The numbers of the options of schemas/kubesim_options.proto.
constexpr int kKeepZeroOption = 51234;
constexpr int kInlineOption = 51235;

constexpr const char* kMetaPackage = "k8s.io.apimachinery.pkg.apis.meta";

// The protobuf package of each API group's types (without the version).
std::string packageOf(std::string_view group) {
  static const std::unordered_map<std::string_view, const char*> packages = {
      {"", "k8s.io.api.core"},
      {"apps", "k8s.io.api.apps"},
      {"autoscaling", "k8s.io.api.autoscaling"},
      {"batch", "k8s.io.api.batch"},
      {"coordination.k8s.io", "k8s.io.api.coordination"},
      {"networking.k8s.io", "k8s.io.api.networking"},
      {"rbac.authorization.k8s.io", "k8s.io.api.rbac"},
      {"authentication.k8s.io", "k8s.io.api.authentication"},
      {"authorization.k8s.io", "k8s.io.api.authorization"},
      {"admissionregistration.k8s.io", "k8s.io.api.admissionregistration"},
      {"apiextensions.k8s.io", "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions"},
      {"meta.k8s.io", kMetaPackage},
  };
  auto it = packages.find(group);
  return it == packages.end() ? "" : it->second;
}

[[noreturn]] void fail(const std::string& what) {
  // The schemas are compiled into the binary: failing to load them is a build defect.
  std::fprintf(stderr, "kubesim: the embedded protobuf schemas do not load: %s\n", what.c_str());
  std::abort();
}

bool hasOption(const gp::FieldOptions& options, int number) {
  const gp::UnknownFieldSet& unknown = options.GetReflection()->GetUnknownFields(options);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const gp::UnknownField& f = unknown.field(i);
    if (f.number() == number && f.type() == gp::UnknownField::TYPE_VARINT && f.varint() != 0) {
      return true;
    }
  }
  return false;
}

// The full names of the fields of a message (nested messages included) that carry an option.
void collectOption(const std::string& prefix, const gp::DescriptorProto& message, int number,
                   std::unordered_set<std::string>& out) {
  const std::string name = prefix + "." + message.name();
  for (const gp::FieldDescriptorProto& field : message.field()) {
    if (hasOption(field.options(), number)) out.insert(name + "." + field.name());
  }
  for (const gp::DescriptorProto& nested : message.nested_type()) {
    collectOption(name, nested, number, out);
  }
}

SpecialType specialOf(const std::string& fullName) {
  static const std::unordered_map<std::string, SpecialType> special = {
      {"k8s.io.apimachinery.pkg.apis.meta.v1.Time", SpecialType::kTime},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", SpecialType::kMicroTime},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.Duration", SpecialType::kDuration},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", SpecialType::kRawJson},
      {"k8s.io.apimachinery.pkg.api.resource.Quantity", SpecialType::kQuantity},
      {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", SpecialType::kIntOrString},
      {"k8s.io.apimachinery.pkg.runtime.RawExtension", SpecialType::kRawJson},
      {"k8s.io.api.authentication.v1.ExtraValue", SpecialType::kStringArray},
      {"k8s.io.api.authorization.v1.ExtraValue", SpecialType::kStringArray},
      {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON", SpecialType::kRawJson},
      {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
       SpecialType::kSchemaOrArray},
      {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
       SpecialType::kSchemaOrBool},
      {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
       SpecialType::kSchemaOrStringArray},
  };
  auto it = special.find(fullName);
  return it == special.end() ? SpecialType::kNone : it->second;
}

}  // namespace

const Schemas& Schemas::get() {
  static const Schemas schemas;
  return schemas;
}

Schemas::Schemas() : factory_(&pool_) {
  gp::FileDescriptorSet set;
  if (!set.ParseFromArray(kSchemaDescriptors, static_cast<int>(kSchemaDescriptorsSize))) {
    fail("the descriptor set does not parse");
  }
  // Options unknown to the generated FieldOptions are kept as its unknown fields.
  std::unordered_set<std::string> keepZeroNames;
  std::unordered_set<std::string> inlineNames;
  for (const gp::FileDescriptorProto& file : set.file()) {
    for (const gp::DescriptorProto& message : file.message_type()) {
      collectOption(file.package(), message, kKeepZeroOption, keepZeroNames);
      collectOption(file.package(), message, kInlineOption, inlineNames);
    }
  }
  // protoc lists every file after its imports, so each builds against what is already there.
  for (const gp::FileDescriptorProto& file : set.file()) {
    const gp::FileDescriptor* built = pool_.BuildFile(file);
    if (built == nullptr) fail(file.name());
    std::vector<const gp::Descriptor*> pending;
    for (int i = 0; i < built->message_type_count(); ++i) pending.push_back(built->message_type(i));
    while (!pending.empty()) {
      const gp::Descriptor* type = pending.back();
      pending.pop_back();
      for (int i = 0; i < type->nested_type_count(); ++i) pending.push_back(type->nested_type(i));
      if (SpecialType s = specialOf(type->full_name()); s != SpecialType::kNone) {
        special_[type] = s;
      }
      auto& byJsonName = jsonFields_[type];
      for (int i = 0; i < type->field_count(); ++i) {
        const gp::FieldDescriptor* f = type->field(i);
        byJsonName[f->json_name()] = f;
        if (keepZeroNames.count(f->full_name()) != 0) keepZero_.insert(f);
        if (inlineNames.count(f->full_name()) != 0) inline_.insert(f);
      }
    }
  }
  if (keepZero_.empty() || inline_.empty()) fail("the kubesim options are missing");
}

const gp::Descriptor* Schemas::kind(std::string_view apiVersion, std::string_view kind) const {
  const std::size_t slash = apiVersion.find('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view() : apiVersion.substr(0, slash);
  const std::string_view version =
      slash == std::string_view::npos ? apiVersion : apiVersion.substr(slash + 1);
  const std::string package = packageOf(group);
  if (package.empty() || version.empty() || kind.empty()) return nullptr;
  const std::string suffix = "." + std::string(version) + "." + std::string(kind);
  if (const gp::Descriptor* type = pool_.FindMessageTypeByName(package + suffix)) return type;
  // Status, DeleteOptions and WatchEvent belong to every group-version; meta has only v1.
  static const std::unordered_set<std::string_view> metaKinds = {"Status", "DeleteOptions",
                                                                 "WatchEvent"};
  if (metaKinds.count(kind) != 0) {
    return pool_.FindMessageTypeByName(std::string(kMetaPackage) + ".v1." + std::string(kind));
  }
  return nullptr;
}

const gp::Descriptor* Schemas::message(const std::string& fullName) const {
  const gp::Descriptor* type = pool_.FindMessageTypeByName(fullName);
  if (type == nullptr) fail("no message " + fullName);
  return type;
}

std::unique_ptr<gp::Message> Schemas::make(const gp::Descriptor* type) const {
  return std::unique_ptr<gp::Message>(factory_.GetPrototype(type)->New());
}

SpecialType Schemas::special(const gp::Descriptor* type) const {
  auto it = special_.find(type);
  return it == special_.end() ? SpecialType::kNone : it->second;
}

bool Schemas::keepsZero(const gp::FieldDescriptor* field) const {
  return keepZero_.count(field) != 0;
}

bool Schemas::isInline(const gp::FieldDescriptor* field) const { return inline_.count(field) != 0; }

const gp::FieldDescriptor* Schemas::field(const gp::Descriptor* type,
                                          const std::string& name) const {
  auto byType = jsonFields_.find(type);
  if (byType == jsonFields_.end()) return nullptr;
  auto it = byType->second.find(name);
  return it == byType->second.end() ? nullptr : it->second;
}

}  // namespace hetbench::kubesim::protobuf
