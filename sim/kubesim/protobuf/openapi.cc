#include "protobuf/openapi.h"

#include <google/protobuf/descriptor.pb.h>

#include "embedded_schemas.h"
#include "protobuf/schemas.h"

namespace hetbench::kubesim::protobuf {
namespace {

namespace gp = google::protobuf;
using nlohmann::json;

// The numbers of the OpenAPI options of schemas/kubesim_options.proto.
constexpr int kRequiredOption = 51236;
constexpr int kDefaultOption = 51237;
constexpr int kListTypeOption = 51238;
constexpr int kListMapKeyOption = 51239;
constexpr int kMapTypeOption = 51240;
constexpr int kEnumOption = 51241;
constexpr int kStructTypeOption = 51242;

constexpr std::string_view kRefPrefix = "#/components/schemas/";

// "k8s.io.api.core.v1.Pod" -> "io.k8s.api.core.v1.Pod"; the apiextensions package, whose Go
// path has a dash, is "k8s.io.apiextensions_apiserver..." in protobuf.
std::string nameOf(const gp::Descriptor* type) {
  std::string name = type->full_name();
  if (name.rfind("k8s.io.", 0) == 0) name = "io.k8s." + name.substr(7);
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return name;
}

// The values of a custom option, which the descriptors keep as unknown fields of the options
// (the pool has no generated extension for them).
std::vector<const gp::UnknownField*> optionValues(const gp::Message& options, int number) {
  std::vector<const gp::UnknownField*> out;
  const gp::UnknownFieldSet& unknown = options.GetReflection()->GetUnknownFields(options);
  for (int i = 0; i < unknown.field_count(); ++i) {
    if (unknown.field(i).number() == number) out.push_back(&unknown.field(i));
  }
  return out;
}

std::string stringOption(const gp::Message& options, int number) {
  std::vector<const gp::UnknownField*> values = optionValues(options, number);
  return values.empty() || values.back()->type() != gp::UnknownField::TYPE_LENGTH_DELIMITED
             ? std::string()
             : values.back()->length_delimited();
}

json stringsOption(const gp::Message& options, int number) {
  json out = json::array();
  for (const gp::UnknownField* v : optionValues(options, number)) {
    if (v->type() == gp::UnknownField::TYPE_LENGTH_DELIMITED) out.push_back(v->length_delimited());
  }
  return out;
}

bool boolOption(const gp::Message& options, int number) {
  std::vector<const gp::UnknownField*> values = optionValues(options, number);
  return !values.empty() && values.back()->type() == gp::UnknownField::TYPE_VARINT &&
         values.back()->varint() != 0;
}

// The comment written above a message or field in its .proto file, as one paragraph.
template <typename Descriptor>
std::string descriptionOf(const Descriptor* d) {
  gp::SourceLocation location;
  if (!d->GetSourceLocation(&location)) return "";
  std::string out;
  std::size_t start = 0;
  const std::string& text = location.leading_comments;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos) {
      if (!out.empty()) out += ' ';
      out += line.substr(first);
    }
    start = end + 1;
  }
  return out;
}

// The schemas of the types whose JSON is not the image of their message, with descriptions of
// kubesim's own. ExtraValue has none: its fields are arrays of strings in place.
std::optional<json> specialSchema(const gp::Descriptor* type, SpecialType special) {
  switch (special) {
    case SpecialType::kTime:
      return json{{"description", "A time in RFC 3339 form, to the second."},
                  {"type", "string"},
                  {"format", "date-time"}};
    case SpecialType::kMicroTime:
      return json{{"description", "A time in RFC 3339 form, to the microsecond."},
                  {"type", "string"},
                  {"format", "date-time"}};
    case SpecialType::kDuration:
      return json{{"description", "A duration as Go writes it, such as 1h30m0s."},
                  {"type", "string"}};
    case SpecialType::kQuantity:
      return json{{"description",
                   "A fixed-point number with an optional suffix (100m, 2Gi, 1e3), written as "
                   "a string."},
                  {"oneOf", {{{"type", "string"}}, {{"type", "number"}}}}};
    case SpecialType::kIntOrString:
      return json{{"description", "An integer or a string, such as 8080 or \"25%\"."},
                  {"format", "int-or-string"},
                  {"oneOf", {{{"type", "integer"}}, {{"type", "string"}}}}};
    case SpecialType::kRawJson:
      // apiextensions' JSON (a default, an example) may be any value; the others are objects.
      if (type->name() == "JSON") return json{{"description", "Any JSON value."}};
      if (type->name() == "FieldsV1") {
        return json{{"description", "The fields a manager owns, as a JSON trie."},
                    {"type", "object"}};
      }
      return json{{"description", "An embedded object of any kind, as JSON."}, {"type", "object"}};
    case SpecialType::kSchemaOrArray:
      return json{{"description", "A schema, or an array of schemas."}};
    case SpecialType::kSchemaOrBool:
      return json{{"description", "A schema, or a boolean (true allows any value)."}};
    case SpecialType::kSchemaOrStringArray:
      return json{{"description", "A schema, or an array of property names."}};
    case SpecialType::kStringArray:
    case SpecialType::kNone:
      break;
  }
  return std::nullopt;
}

class Builder {
 public:
  json build() {
    gp::FileDescriptorSet set;
    set.ParseFromArray(kSchemaDescriptors, static_cast<int>(kSchemaDescriptorsSize));
    json out = json::object();
    for (const gp::FileDescriptorProto& file : set.file()) {
      if (file.package().rfind("k8s.io.", 0) != 0) continue;
      for (const gp::DescriptorProto& message : file.message_type()) {
        const gp::Descriptor* type = schemas_.message(file.package() + "." + message.name());
        if (type->full_name() == "k8s.io.apimachinery.pkg.runtime.Unknown" ||
            type->full_name() == "k8s.io.apimachinery.pkg.runtime.TypeMeta" ||
            schemas_.special(type) == SpecialType::kStringArray) {
          continue;
        }
        out[nameOf(type)] = messageSchema(type);
      }
    }
    return out;
  }

 private:
  json messageSchema(const gp::Descriptor* type) {
    if (std::optional<json> special = specialSchema(type, schemas_.special(type))) {
      return *special;
    }
    json schema = {{"type", "object"}};
    if (std::string d = descriptionOf(type); !d.empty()) schema["description"] = d;
    json properties = json::object();
    json required = json::array();
    addFields(type, properties, required);
    if (!properties.empty()) schema["properties"] = properties;
    if (!required.empty()) schema["required"] = required;
    if (std::string t = stringOption(type->options(), kStructTypeOption); !t.empty()) {
      schema["x-kubernetes-map-type"] = t;
    }
    return schema;
  }

  void addFields(const gp::Descriptor* type, json& properties, json& required) {
    for (int i = 0; i < type->field_count(); ++i) {
      const gp::FieldDescriptor* f = type->field(i);
      if (schemas_.isInline(f)) {
        addFields(f->message_type(), properties, required);
        continue;
      }
      properties[f->json_name()] = fieldSchema(f);
      if (boolOption(f->options(), kRequiredOption)) required.push_back(f->json_name());
    }
  }

  json fieldSchema(const gp::FieldDescriptor* f) {
    const gp::Message& options = f->options();
    json schema;
    if (f->is_map()) {
      schema = {{"type", "object"},
                {"additionalProperties", elementSchema(f->message_type()->map_value())}};
      if (std::string t = stringOption(options, kMapTypeOption); !t.empty()) {
        schema["x-kubernetes-map-type"] = t;
      }
    } else if (f->is_repeated()) {
      json items = elementSchema(f);
      if (json values = stringsOption(options, kEnumOption); !values.empty()) {
        items["enum"] = values;
      }
      schema = {{"type", "array"}, {"items", items}};
      if (std::string t = stringOption(options, kListTypeOption); !t.empty()) {
        schema["x-kubernetes-list-type"] = t;
      }
      if (json keys = stringsOption(options, kListMapKeyOption); !keys.empty()) {
        schema["x-kubernetes-list-map-keys"] = keys;
      }
    } else {
      schema = f->message_type() != nullptr ? reference(f->message_type()) : scalarSchema(f);
      if (json values = stringsOption(options, kEnumOption); !values.empty()) {
        schema["enum"] = values;
      }
    }
    if (std::string d = stringOption(options, kDefaultOption); !d.empty()) {
      schema["default"] = json::parse(d);
    }
    if (std::string d = descriptionOf(f); !d.empty()) schema["description"] = d;
    return schema;
  }

  // The schema of a list's items or a map's values: as the field's type, with its zero value as
  // the default (the API server's for elements that are no pointers).
  json elementSchema(const gp::FieldDescriptor* f) {
    if (const gp::Descriptor* type = f->message_type()) {
      json schema = reference(type);
      if (schemas_.special(type) != SpecialType::kStringArray) schema["default"] = json::object();
      return schema;
    }
    json schema = scalarSchema(f);
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_STRING:
        if (f->type() != gp::FieldDescriptor::TYPE_BYTES) schema["default"] = "";
        break;
      case gp::FieldDescriptor::CPPTYPE_BOOL:
        schema["default"] = false;
        break;
      default:
        schema["default"] = 0;
    }
    return schema;
  }

  json reference(const gp::Descriptor* type) {
    if (schemas_.special(type) == SpecialType::kStringArray) {
      return {{"type", "array"}, {"items", {{"type", "string"}, {"default", ""}}}};
    }
    return {{"allOf", {{{"$ref", std::string(kRefPrefix) + nameOf(type)}}}}};
  }

  static json scalarSchema(const gp::FieldDescriptor* f) {
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_BOOL:
        return {{"type", "boolean"}};
      case gp::FieldDescriptor::CPPTYPE_INT32:
      case gp::FieldDescriptor::CPPTYPE_UINT32:
        return {{"type", "integer"}, {"format", "int32"}};
      case gp::FieldDescriptor::CPPTYPE_INT64:
      case gp::FieldDescriptor::CPPTYPE_UINT64:
        return {{"type", "integer"}, {"format", "int64"}};
      case gp::FieldDescriptor::CPPTYPE_DOUBLE:
        return {{"type", "number"}, {"format", "double"}};
      case gp::FieldDescriptor::CPPTYPE_FLOAT:
        return {{"type", "number"}, {"format", "float"}};
      default:
        break;
    }
    if (f->type() == gp::FieldDescriptor::TYPE_BYTES) {
      return {{"type", "string"}, {"format", "byte"}};
    }
    return {{"type", "string"}};
  }

  const Schemas& schemas_ = Schemas::get();
};

}  // namespace

std::string openApiSchemaName(std::string_view apiVersion, std::string_view kind) {
  const gp::Descriptor* type = Schemas::get().kind(apiVersion, kind);
  return type == nullptr ? "" : nameOf(type);
}

const json& openApiSchemas() {
  static const json schemas = Builder().build();
  return schemas;
}

}  // namespace hetbench::kubesim::protobuf
