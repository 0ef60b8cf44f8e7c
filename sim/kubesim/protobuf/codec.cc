#include "protobuf/codec.h"

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>

#include "hetbench/common/base64.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/time.h"
#include "protobuf/schemas.h"

namespace hetbench::kubesim::protobuf {
namespace {

namespace gp = google::protobuf;
using nlohmann::json;

constexpr std::string_view kMagic("k8s\0", 4);
constexpr const char* kUnknown = "k8s.io.apimachinery.pkg.runtime.Unknown";
constexpr const char* kWatchEvent = "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent";
// Deeper nesting than any Kubernetes object has; it bounds the recursion on hostile input.
constexpr int kMaxDepth = 100;
// Times whose nanoseconds since 1970 fit the clock's 64 bits (years 1678 to 2261).
constexpr std::int64_t kMaxSeconds = 9'000'000'000;

common::Status invalid(const std::string& message) {
  return common::Status(common::StatusCode::kInvalid, message);
}

std::string child(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

std::string at(const std::string& path) { return path.empty() ? "the object" : path; }

// JSON → message, with the schema's types; the JSON is kubesim's stored object.
class Encoder {
 public:
  explicit Encoder(const Schemas& schemas) : schemas_(schemas) {}

  common::Status message(const json& value, gp::Message& out, const std::string& path) {
    if (!value.is_object()) return invalid(at(path) + ": expected an object");
    if (++depth_ > kMaxDepth) return invalid(at(path) + ": nested too deeply");
    const gp::Descriptor* type = out.GetDescriptor();
    const gp::Reflection* reflection = out.GetReflection();
    std::map<const gp::FieldDescriptor*, json> inlined;
    for (const auto& [key, item] : value.items()) {
      const gp::FieldDescriptor* f = schemas_.field(type, key);
      if (item.is_null()) {
        // Go writes a zero time as an empty message (read back as null) and leaves other
        // nulls (nil pointers, slices and maps) out.
        if (f != nullptr && !f->is_repeated() && isTime(f)) reflection->MutableMessage(&out, f);
        continue;
      }
      const std::string where = child(path, key);
      if (f == nullptr) {
        if (const gp::FieldDescriptor* embedded = inlineFieldFor(type, key)) {
          inlined[embedded][key] = item;
          continue;
        }
        // The inline TypeMeta of Go's types has no field in their messages.
        if (key == "kind" || key == "apiVersion") continue;
        return invalid(where + ": not a field of " + type->full_name());
      }
      if (f->is_map()) {
        if (!item.is_object()) return invalid(where + ": expected an object");
        const gp::FieldDescriptor* keyField = f->message_type()->map_key();
        const gp::FieldDescriptor* valueField = f->message_type()->map_value();
        for (const auto& [k, v] : item.items()) {
          gp::Message* entry = reflection->AddMessage(&out, f);
          entry->GetReflection()->SetString(entry, keyField, k);
          HETBENCH_RETURN_IF_ERROR(field(v, *entry, valueField, false, where + "[" + k + "]"));
        }
      } else if (f->is_repeated()) {
        if (!item.is_array()) return invalid(where + ": expected an array");
        for (std::size_t i = 0; i < item.size(); ++i) {
          HETBENCH_RETURN_IF_ERROR(
              field(item[i], out, f, true, where + "[" + std::to_string(i) + "]"));
        }
      } else {
        HETBENCH_RETURN_IF_ERROR(field(item, out, f, false, where));
      }
    }
    for (const auto& [embedded, fields] : inlined) {
      HETBENCH_RETURN_IF_ERROR(message(fields, *reflection->MutableMessage(&out, embedded), path));
    }
    --depth_;
    return {};
  }

 private:
  bool isTime(const gp::FieldDescriptor* f) const {
    if (f->cpp_type() != gp::FieldDescriptor::CPPTYPE_MESSAGE) return false;
    const SpecialType special = schemas_.special(f->message_type());
    return special == SpecialType::kTime || special == SpecialType::kMicroTime;
  }

  // The embedded struct of `type` (at any depth) that holds the JSON key, nullptr when none.
  const gp::FieldDescriptor* inlineFieldFor(const gp::Descriptor* type, const std::string& key) {
    for (int i = 0; i < type->field_count(); ++i) {
      const gp::FieldDescriptor* f = type->field(i);
      if (!schemas_.isInline(f)) continue;
      if (schemas_.field(f->message_type(), key) != nullptr ||
          inlineFieldFor(f->message_type(), key) != nullptr) {
        return f;
      }
    }
    return nullptr;
  }

  common::Status field(const json& value, gp::Message& out, const gp::FieldDescriptor* f, bool add,
                       const std::string& path) {
    const gp::Reflection* r = out.GetReflection();
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_MESSAGE: {
        gp::Message* m = add ? r->AddMessage(&out, f) : r->MutableMessage(&out, f);
        const SpecialType special = schemas_.special(f->message_type());
        return special == SpecialType::kNone ? message(value, *m, path)
                                             : specialMessage(special, value, *m, path);
      }
      case gp::FieldDescriptor::CPPTYPE_STRING: {
        if (!value.is_string()) return invalid(path + ": expected a string");
        std::string text = value.get<std::string>();
        if (f->type() == gp::FieldDescriptor::TYPE_BYTES) {
          std::optional<std::string> bytes = common::base64Decode(text);
          if (!bytes) return invalid(path + ": not base64");
          text = std::move(*bytes);
        }
        add ? r->AddString(&out, f, std::move(text)) : r->SetString(&out, f, std::move(text));
        return {};
      }
      case gp::FieldDescriptor::CPPTYPE_INT32:
      case gp::FieldDescriptor::CPPTYPE_INT64: {
        if (!value.is_number_integer() ||
            (value.is_number_unsigned() &&
             value.get<std::uint64_t>() >
                 static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
          return invalid(path + ": expected an integer");
        }
        const std::int64_t v = value.get<std::int64_t>();
        if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_INT64) {
          add ? r->AddInt64(&out, f, v) : r->SetInt64(&out, f, v);
          return {};
        }
        if (v < std::numeric_limits<std::int32_t>::min() ||
            v > std::numeric_limits<std::int32_t>::max()) {
          return invalid(path + ": " + std::to_string(v) + " does not fit 32 bits");
        }
        const auto v32 = static_cast<std::int32_t>(v);
        add ? r->AddInt32(&out, f, v32) : r->SetInt32(&out, f, v32);
        return {};
      }
      case gp::FieldDescriptor::CPPTYPE_BOOL:
        if (!value.is_boolean()) return invalid(path + ": expected a boolean");
        add ? r->AddBool(&out, f, value.get<bool>()) : r->SetBool(&out, f, value.get<bool>());
        return {};
      case gp::FieldDescriptor::CPPTYPE_DOUBLE:
        if (!value.is_number()) return invalid(path + ": expected a number");
        add ? r->AddDouble(&out, f, value.get<double>())
            : r->SetDouble(&out, f, value.get<double>());
        return {};
      default:
        // The Kubernetes schemas use no other scalar types.
        return invalid(path + ": field type " + f->type_name() + " is not supported");
    }
  }

  common::Status specialMessage(SpecialType special, const json& value, gp::Message& out,
                                const std::string& path) {
    const gp::Descriptor* type = out.GetDescriptor();
    const gp::Reflection* r = out.GetReflection();
    auto named = [type](const char* name) { return type->FindFieldByName(name); };
    switch (special) {
      case SpecialType::kTime:
      case SpecialType::kMicroTime: {
        if (!value.is_string()) return invalid(path + ": expected an RFC 3339 time");
        common::Result<common::WallTime> t = common::parseRfc3339(value.get<std::string>());
        if (!t.isOk()) return invalid(path + ": " + t.status().message());
        const std::int64_t ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(t->time_since_epoch()).count();
        std::int64_t seconds = ns / 1'000'000'000;
        std::int64_t nanos = ns % 1'000'000'000;
        if (nanos < 0) {
          seconds -= 1;
          nanos += 1'000'000'000;
        }
        r->SetInt64(&out, named("seconds"), seconds);
        r->SetInt32(&out, named("nanos"), static_cast<std::int32_t>(nanos));
        return {};
      }
      case SpecialType::kDuration: {
        if (!value.is_string()) return invalid(path + ": expected a duration");
        common::Result<std::chrono::nanoseconds> d =
            common::parseDuration(value.get<std::string>());
        if (!d.isOk()) return invalid(path + ": " + d.status().message());
        r->SetInt64(&out, named("duration"), d->count());
        return {};
      }
      case SpecialType::kQuantity:
        if (!value.is_string() && !value.is_number())
          return invalid(path + ": expected a quantity");
        r->SetString(&out, named("string"),
                     value.is_string() ? value.get<std::string>() : value.dump());
        return {};
      case SpecialType::kIntOrString:
        if (value.is_number_integer()) {
          const std::int64_t v = value.get<std::int64_t>();
          if (v < std::numeric_limits<std::int32_t>::min() ||
              v > std::numeric_limits<std::int32_t>::max()) {
            return invalid(path + ": " + std::to_string(v) + " does not fit 32 bits");
          }
          r->SetInt64(&out, named("type"), 0);
          r->SetInt32(&out, named("intVal"), static_cast<std::int32_t>(v));
          return {};
        }
        if (!value.is_string()) return invalid(path + ": expected an integer or a string");
        r->SetInt64(&out, named("type"), 1);
        r->SetString(&out, named("strVal"), value.get<std::string>());
        return {};
      case SpecialType::kRawJson:
        r->SetString(&out, type->field(0), value.dump());
        return {};
      case SpecialType::kStringArray: {
        if (!value.is_array()) return invalid(path + ": expected an array of strings");
        for (const json& item : value) {
          if (!item.is_string()) return invalid(path + ": expected an array of strings");
          r->AddString(&out, named("items"), item.get<std::string>());
        }
        return {};
      }
      case SpecialType::kSchemaOrArray:
        if (value.is_array()) {
          for (std::size_t i = 0; i < value.size(); ++i) {
            HETBENCH_RETURN_IF_ERROR(message(value[i], *r->AddMessage(&out, named("jSONSchemas")),
                                             path + "[" + std::to_string(i) + "]"));
          }
          return {};
        }
        return message(value, *r->MutableMessage(&out, named("schema")), path);
      case SpecialType::kSchemaOrBool:
        r->SetBool(&out, named("allows"), !value.is_boolean() || value.get<bool>());
        if (value.is_boolean()) return {};
        return message(value, *r->MutableMessage(&out, named("schema")), path);
      case SpecialType::kSchemaOrStringArray:
        if (value.is_array()) {
          for (const json& item : value) {
            if (!item.is_string()) return invalid(path + ": expected an array of strings");
            r->AddString(&out, named("property"), item.get<std::string>());
          }
          return {};
        }
        return message(value, *r->MutableMessage(&out, named("schema")), path);
      case SpecialType::kNone:
        break;
    }
    return message(value, out, path);
  }

  const Schemas& schemas_;
  int depth_ = 0;
};

common::Result<json> decodeEnvelope(std::string_view body, int depth);

// Message → the JSON the API server writes for it.
class Decoder {
 public:
  Decoder(const Schemas& schemas, int depth) : schemas_(schemas), depth_(depth) {}

  common::Result<json> message(const gp::Message& m, const std::string& path) {
    if (++depth_ > kMaxDepth) return invalid(at(path) + ": nested too deeply");
    HETBENCH_RETURN_IF_ERROR(checkUnknownFields(m, path));
    const gp::Descriptor* type = m.GetDescriptor();
    const gp::Reflection* r = m.GetReflection();
    json out = json::object();
    for (int i = 0; i < type->field_count(); ++i) {
      const gp::FieldDescriptor* f = type->field(i);
      const std::string where = child(path, f->json_name());
      if (f->is_map()) {
        const int n = r->FieldSize(m, f);
        if (n == 0) continue;
        const gp::FieldDescriptor* keyField = f->message_type()->map_key();
        const gp::FieldDescriptor* valueField = f->message_type()->map_value();
        json object = json::object();
        for (int j = 0; j < n; ++j) {
          const gp::Message& entry = r->GetRepeatedMessage(m, f, j);
          HETBENCH_RETURN_IF_ERROR(checkUnknownFields(entry, where));
          const std::string key = entry.GetReflection()->GetString(entry, keyField);
          HETBENCH_ASSIGN_OR_RETURN(object[key],
                                    value(entry, valueField, -1, where + "[" + key + "]"));
        }
        out[f->json_name()] = std::move(object);
      } else if (f->is_repeated()) {
        const int n = r->FieldSize(m, f);
        if (n == 0) continue;
        json array = json::array();
        for (int j = 0; j < n; ++j) {
          HETBENCH_ASSIGN_OR_RETURN(json item,
                                    value(m, f, j, where + "[" + std::to_string(j) + "]"));
          array.push_back(std::move(item));
        }
        out[f->json_name()] = std::move(array);
      } else if (schemas_.isInline(f)) {
        if (!r->HasField(m, f)) continue;
        HETBENCH_ASSIGN_OR_RETURN(json embedded, message(r->GetMessage(m, f), path));
        out.update(embedded);
      } else if (r->HasField(m, f)) {
        if (f->cpp_type() != gp::FieldDescriptor::CPPTYPE_MESSAGE && isZero(m, f) &&
            !schemas_.keepsZero(f)) {
          continue;
        }
        HETBENCH_ASSIGN_OR_RETURN(out[f->json_name()], value(m, f, -1, where));
      }
    }
    --depth_;
    return out;
  }

 private:
  // Whether a present scalar holds its type's zero, which Go's omitempty leaves out.
  static bool isZero(const gp::Message& m, const gp::FieldDescriptor* f) {
    const gp::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_STRING:
        return r->GetString(m, f).empty();
      case gp::FieldDescriptor::CPPTYPE_INT32:
        return r->GetInt32(m, f) == 0;
      case gp::FieldDescriptor::CPPTYPE_INT64:
        return r->GetInt64(m, f) == 0;
      case gp::FieldDescriptor::CPPTYPE_BOOL:
        return !r->GetBool(m, f);
      case gp::FieldDescriptor::CPPTYPE_DOUBLE:
        return r->GetDouble(m, f) == 0;
      default:
        return false;
    }
  }

  // A field the schema lacks is refused unless it is empty: kubesim must not drop data it would
  // have kept from the same object in JSON.
  static common::Status checkUnknownFields(const gp::Message& m, const std::string& path) {
    const gp::UnknownFieldSet& unknown = m.GetReflection()->GetUnknownFields(m);
    for (int i = 0; i < unknown.field_count(); ++i) {
      const gp::UnknownField& f = unknown.field(i);
      const bool empty =
          (f.type() == gp::UnknownField::TYPE_VARINT && f.varint() == 0) ||
          (f.type() == gp::UnknownField::TYPE_FIXED32 && f.fixed32() == 0) ||
          (f.type() == gp::UnknownField::TYPE_FIXED64 && f.fixed64() == 0) ||
          (f.type() == gp::UnknownField::TYPE_LENGTH_DELIMITED && f.length_delimited().empty());
      if (empty) continue;
      // The parser keeps a known field of the wrong wire type among the unknown ones.
      if (const gp::FieldDescriptor* known = m.GetDescriptor()->FindFieldByNumber(f.number())) {
        return invalid(at(path) + ": field " + std::to_string(f.number()) + " (" +
                       known->json_name() + ") of " + m.GetDescriptor()->full_name() +
                       " has the wrong wire type");
      }
      return invalid(at(path) + ": field " + std::to_string(f.number()) + " of " +
                     m.GetDescriptor()->full_name() + " is not in kubesim's schema");
    }
    return {};
  }

  // One value of a field: the field itself (index -1) or one element of a repeated field.
  common::Result<json> value(const gp::Message& m, const gp::FieldDescriptor* f, int index,
                             const std::string& path) {
    const gp::Reflection* r = m.GetReflection();
    const bool one = index < 0;
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_MESSAGE: {
        const gp::Message& sub = one ? r->GetMessage(m, f) : r->GetRepeatedMessage(m, f, index);
        const SpecialType special = schemas_.special(f->message_type());
        return special == SpecialType::kNone ? message(sub, path)
                                             : specialMessage(special, sub, path);
      }
      case gp::FieldDescriptor::CPPTYPE_STRING: {
        std::string text = one ? r->GetString(m, f) : r->GetRepeatedString(m, f, index);
        if (f->type() == gp::FieldDescriptor::TYPE_BYTES) return json(common::base64Encode(text));
        return json(std::move(text));
      }
      case gp::FieldDescriptor::CPPTYPE_INT32:
        return json(one ? r->GetInt32(m, f) : r->GetRepeatedInt32(m, f, index));
      case gp::FieldDescriptor::CPPTYPE_INT64:
        return json(one ? r->GetInt64(m, f) : r->GetRepeatedInt64(m, f, index));
      case gp::FieldDescriptor::CPPTYPE_BOOL:
        return json(one ? r->GetBool(m, f) : r->GetRepeatedBool(m, f, index));
      case gp::FieldDescriptor::CPPTYPE_DOUBLE:
        return json(one ? r->GetDouble(m, f) : r->GetRepeatedDouble(m, f, index));
      default:
        return invalid(path + ": field type " + f->type_name() + " is not supported");
    }
  }

  common::Result<json> specialMessage(SpecialType special, const gp::Message& m,
                                      const std::string& path) {
    HETBENCH_RETURN_IF_ERROR(checkUnknownFields(m, path));
    const gp::Descriptor* type = m.GetDescriptor();
    const gp::Reflection* r = m.GetReflection();
    auto named = [type](const char* name) { return type->FindFieldByName(name); };
    switch (special) {
      case SpecialType::kTime:
      case SpecialType::kMicroTime: {
        // Go writes a zero time as an empty message, and its JSON as null.
        if (!r->HasField(m, named("seconds")) && !r->HasField(m, named("nanos"))) return json();
        const std::int64_t seconds = r->GetInt64(m, named("seconds"));
        const std::int32_t nanos = r->GetInt32(m, named("nanos"));
        if (seconds < -kMaxSeconds || seconds > kMaxSeconds || nanos < 0 ||
            nanos >= 1'000'000'000) {
          return invalid(path + ": time out of range");
        }
        const common::WallTime t(std::chrono::duration_cast<common::WallTime::duration>(
            std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos)));
        return json(common::formatRfc3339(t, special == SpecialType::kTime
                                                 ? common::TimePrecision::kSeconds
                                                 : common::TimePrecision::kMicros));
      }
      case SpecialType::kDuration:
        return json(
            common::formatDuration(std::chrono::nanoseconds(r->GetInt64(m, named("duration")))));
      case SpecialType::kQuantity: {
        // An unset quantity is zero, which Go writes as "0".
        const std::string text = r->GetString(m, named("string"));
        return json(text.empty() ? "0" : text);
      }
      case SpecialType::kIntOrString:
        switch (r->GetInt64(m, named("type"))) {
          case 0:
            return json(r->GetInt32(m, named("intVal")));
          case 1:
            return json(r->GetString(m, named("strVal")));
          default:
            return invalid(path + ": IntOrString type " +
                           std::to_string(r->GetInt64(m, named("type"))) + " is neither 0 nor 1");
        }
      case SpecialType::kRawJson: {
        const std::string raw = r->GetString(m, type->field(0));
        if (raw.empty()) return json();
        if (raw.compare(0, kMagic.size(), kMagic) == 0) return decodeEnvelope(raw, depth_);
        json parsed = json::parse(raw, nullptr, false);
        if (parsed.is_discarded()) return invalid(path + ": the embedded bytes are not JSON");
        return parsed;
      }
      case SpecialType::kStringArray: {
        json items = json::array();
        for (int i = 0; i < r->FieldSize(m, named("items")); ++i) {
          items.push_back(r->GetRepeatedString(m, named("items"), i));
        }
        return items;
      }
      case SpecialType::kSchemaOrArray:
      case SpecialType::kSchemaOrBool:
      case SpecialType::kSchemaOrStringArray: {
        if (r->HasField(m, named("schema")))
          return message(r->GetMessage(m, named("schema")), path);
        if (special == SpecialType::kSchemaOrBool) return json(r->GetBool(m, named("allows")));
        const gp::FieldDescriptor* list =
            named(special == SpecialType::kSchemaOrArray ? "jSONSchemas" : "property");
        json items = json::array();
        for (int i = 0; i < r->FieldSize(m, list); ++i) {
          HETBENCH_ASSIGN_OR_RETURN(json item,
                                    value(m, list, i, path + "[" + std::to_string(i) + "]"));
          items.push_back(std::move(item));
        }
        return items;
      }
      case SpecialType::kNone:
        break;
    }
    return message(m, path);
  }

  const Schemas& schemas_;
  int depth_;
};

std::string envelope(const std::string& apiVersion, const std::string& kind, std::string raw) {
  const Schemas& schemas = Schemas::get();
  std::unique_ptr<gp::Message> unknown = schemas.make(schemas.message(kUnknown));
  const gp::Descriptor* type = unknown->GetDescriptor();
  const gp::Reflection* r = unknown->GetReflection();
  gp::Message* typeMeta = r->MutableMessage(unknown.get(), type->FindFieldByName("typeMeta"));
  const gp::Descriptor* typeMetaType = typeMeta->GetDescriptor();
  typeMeta->GetReflection()->SetString(typeMeta, typeMetaType->FindFieldByName("apiVersion"),
                                       apiVersion);
  typeMeta->GetReflection()->SetString(typeMeta, typeMetaType->FindFieldByName("kind"), kind);
  r->SetString(unknown.get(), type->FindFieldByName("raw"), std::move(raw));
  return std::string(kMagic) + unknown->SerializeAsString();
}

common::Result<json> decodeEnvelope(std::string_view body, int depth) {
  if (body.size() < kMagic.size() || body.substr(0, kMagic.size()) != kMagic) {
    return invalid(
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  const Schemas& schemas = Schemas::get();
  std::unique_ptr<gp::Message> unknown = schemas.make(schemas.message(kUnknown));
  body.remove_prefix(kMagic.size());
  if (!unknown->ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return invalid("the protobuf envelope (runtime.Unknown) is truncated or malformed");
  }
  const gp::Descriptor* type = unknown->GetDescriptor();
  const gp::Reflection* r = unknown->GetReflection();
  const gp::Message& typeMeta = r->GetMessage(*unknown, type->FindFieldByName("typeMeta"));
  const gp::Descriptor* typeMetaType = typeMeta.GetDescriptor();
  const std::string apiVersion =
      typeMeta.GetReflection()->GetString(typeMeta, typeMetaType->FindFieldByName("apiVersion"));
  const std::string kind =
      typeMeta.GetReflection()->GetString(typeMeta, typeMetaType->FindFieldByName("kind"));
  const std::string encoding = r->GetString(*unknown, type->FindFieldByName("contentEncoding"));
  if (!encoding.empty()) {
    return invalid("the protobuf envelope's content encoding \"" + encoding +
                   "\" is not supported");
  }
  const gp::Descriptor* objectType = schemas.kind(apiVersion, kind);
  if (objectType == nullptr) {
    return common::Status(common::StatusCode::kNotFound,
                          "kubesim has no protobuf schema for " +
                              (apiVersion.empty() ? "" : apiVersion + ", ") + "Kind=" + kind);
  }
  std::unique_ptr<gp::Message> object = schemas.make(objectType);
  const std::string raw = r->GetString(*unknown, type->FindFieldByName("raw"));
  if (!object->ParseFromString(raw)) {
    return invalid("the " + kind + " message is truncated or malformed");
  }
  HETBENCH_ASSIGN_OR_RETURN(json out, Decoder(schemas, depth).message(*object, ""));
  out["apiVersion"] = apiVersion;
  out["kind"] = kind;
  return out;
}

}  // namespace

bool hasSchema(std::string_view apiVersion, std::string_view kind) {
  return Schemas::get().kind(apiVersion, kind) != nullptr;
}

common::Result<std::string> encodeObject(const json& object) {
  if (!object.is_object()) return invalid("expected an object");
  const std::string apiVersion = object.value("apiVersion", "");
  const std::string kind = object.value("kind", "");
  const Schemas& schemas = Schemas::get();
  const gp::Descriptor* type = schemas.kind(apiVersion, kind);
  if (type == nullptr) {
    return invalid("kubesim has no protobuf schema for " + apiVersion + ", Kind=" + kind);
  }
  std::unique_ptr<gp::Message> message = schemas.make(type);
  HETBENCH_RETURN_IF_ERROR(Encoder(schemas).message(object, *message, ""));
  return envelope(apiVersion, kind, message->SerializeAsString());
}

common::Result<json> decodeObject(std::string_view body) { return decodeEnvelope(body, 0); }

common::Result<std::string> encodeWatchEvent(std::string_view type, const json& object) {
  HETBENCH_ASSIGN_OR_RETURN(std::string enveloped, encodeObject(object));
  const Schemas& schemas = Schemas::get();
  std::unique_ptr<gp::Message> event = schemas.make(schemas.message(kWatchEvent));
  const gp::Descriptor* eventType = event->GetDescriptor();
  const gp::Reflection* r = event->GetReflection();
  r->SetString(event.get(), eventType->FindFieldByName("type"), std::string(type));
  gp::Message* raw = r->MutableMessage(event.get(), eventType->FindFieldByName("object"));
  raw->GetReflection()->SetString(raw, raw->GetDescriptor()->FindFieldByName("raw"),
                                  std::move(enveloped));
  const std::string message = event->SerializeAsString();
  const auto size = static_cast<std::uint32_t>(message.size());
  std::string frame;
  frame.reserve(4 + message.size());
  for (int shift = 24; shift >= 0; shift -= 8) {
    frame.push_back(static_cast<char>((size >> shift) & 0xff));
  }
  return frame + message;
}

}  // namespace hetbench::kubesim::protobuf
