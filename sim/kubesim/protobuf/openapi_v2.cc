#include "protobuf/openapi_v2.h"

#include "protobuf/schemas.h"

namespace hetbench::kubesim::protobuf {
namespace {

namespace gp = google::protobuf;
using nlohmann::json;

// Writes the JSON of a Swagger 2.0 document into gnostic's messages through reflection.
class Encoder {
 public:
  std::string encode(const json& swagger) {
    std::unique_ptr<gp::Message> doc = schemas_.make(schemas_.message("openapi.v2.Document"));
    setString(*doc, "swagger", swagger, "swagger");
    if (const json* info = find(swagger, "info")) {
      gp::Message& m = sub(*doc, "info");
      setString(m, "title", *info, "title");
      setString(m, "version", *info, "version");
    }
    if (const json* paths = find(swagger, "paths")) {
      gp::Message& m = sub(*doc, "paths");
      for (const auto& [name, item] : paths->items()) {
        gp::Message& named = add(m, "path");
        set(named, "name", name);
        pathItem(item, sub(named, "value"));
      }
    }
    if (const json* definitions = find(swagger, "definitions")) {
      namedSchemas(*definitions, sub(*doc, "definitions"));
    }
    return doc->SerializeAsString();
  }

 private:
  static const json* find(const json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  static const gp::FieldDescriptor* field(const gp::Message& m, const char* name) {
    return m.GetDescriptor()->FindFieldByName(name);
  }
  static gp::Message& sub(gp::Message& m, const char* name) {
    return *m.GetReflection()->MutableMessage(&m, field(m, name));
  }
  static gp::Message& add(gp::Message& m, const char* name) {
    return *m.GetReflection()->AddMessage(&m, field(m, name));
  }
  static void set(gp::Message& m, const char* name, const std::string& value) {
    m.GetReflection()->SetString(&m, field(m, name), value);
  }
  static void setString(gp::Message& m, const char* name, const json& object, const char* key) {
    if (const json* v = find(object, key); v != nullptr && v->is_string()) set(m, name, *v);
  }
  static void setBool(gp::Message& m, const char* name, const json& object, const char* key) {
    if (const json* v = find(object, key); v != nullptr && v->is_boolean()) {
      m.GetReflection()->SetBool(&m, field(m, name), v->get<bool>());
    }
  }
  static void setNumber(gp::Message& m, const char* name, const json& object, const char* key) {
    const json* v = find(object, key);
    if (v == nullptr || !v->is_number()) return;
    const gp::FieldDescriptor* f = field(m, name);
    if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_DOUBLE) {
      m.GetReflection()->SetDouble(&m, f, v->get<double>());
    } else {
      m.GetReflection()->SetInt64(&m, f, v->get<std::int64_t>());
    }
  }
  static void addStrings(gp::Message& m, const char* name, const json& object, const char* key) {
    const json* v = find(object, key);
    if (v == nullptr || !v->is_array()) return;
    for (const json& s : *v) {
      if (s.is_string()) m.GetReflection()->AddString(&m, field(m, name), s);
    }
  }
  static void any(const json& value, gp::Message& m) {
    m.GetReflection()->SetString(&m, field(m, "yaml"), value.dump());
  }
  // The x- keys of an object, as gnostic keeps them: a name and its value's YAML.
  static void vendorExtensions(const json& object, gp::Message& m) {
    for (const auto& [key, value] : object.items()) {
      if (key.rfind("x-", 0) != 0) continue;
      gp::Message& named = add(m, "vendor_extension");
      set(named, "name", key);
      any(value, sub(named, "value"));
    }
  }

  void pathItem(const json& item, gp::Message& m) {
    for (const char* method : {"get", "put", "post", "delete", "patch"}) {
      if (const json* op = find(item, method)) operation(*op, sub(m, method));
    }
    if (const json* parameters = find(item, "parameters")) {
      for (const json& p : *parameters) parameter(p, add(m, "parameters"));
    }
  }

  void operation(const json& op, gp::Message& m) {
    addStrings(m, "tags", op, "tags");
    setString(m, "description", op, "description");
    setString(m, "operation_id", op, "operationId");
    addStrings(m, "produces", op, "produces");
    addStrings(m, "consumes", op, "consumes");
    if (const json* parameters = find(op, "parameters")) {
      for (const json& p : *parameters) parameter(p, add(m, "parameters"));
    }
    if (const json* responses = find(op, "responses")) {
      gp::Message& r = sub(m, "responses");
      for (const auto& [code, response] : responses->items()) {
        gp::Message& named = add(r, "response_code");
        set(named, "name", code);
        gp::Message& value = sub(sub(named, "value"), "response");
        setString(value, "description", response, "description");
        if (const json* s = find(response, "schema"))
          schema(*s, sub(sub(value, "schema"), "schema"));
      }
    }
    addStrings(m, "schemes", op, "schemes");
    vendorExtensions(op, m);
  }

  void parameter(const json& p, gp::Message& item) {
    gp::Message& parameter = sub(item, "parameter");
    const std::string in = p.value("in", "");
    if (in == "body") {
      gp::Message& body = sub(parameter, "body_parameter");
      setString(body, "description", p, "description");
      setString(body, "name", p, "name");
      setString(body, "in", p, "in");
      setBool(body, "required", p, "required");
      if (const json* s = find(p, "schema")) schema(*s, sub(body, "schema"));
      return;
    }
    gp::Message& nonBody = sub(parameter, "non_body_parameter");
    gp::Message& m =
        sub(nonBody, in == "path" ? "path_parameter_sub_schema" : "query_parameter_sub_schema");
    setBool(m, "required", p, "required");
    setString(m, "in", p, "in");
    setString(m, "description", p, "description");
    setString(m, "name", p, "name");
    setString(m, "type", p, "type");
    setBool(m, "unique_items", p, "uniqueItems");
  }

  void namedSchemas(const json& schemas, gp::Message& m) {
    for (const auto& [name, value] : schemas.items()) {
      gp::Message& named = add(m, "additional_properties");
      set(named, "name", name);
      schema(value, sub(named, "value"));
    }
  }

  void schema(const json& s, gp::Message& m) {
    setString(m, "_ref", s, "$ref");
    setString(m, "format", s, "format");
    setString(m, "title", s, "title");
    setString(m, "description", s, "description");
    if (const json* d = find(s, "default")) any(*d, sub(m, "default"));
    setNumber(m, "multiple_of", s, "multipleOf");
    setNumber(m, "maximum", s, "maximum");
    setBool(m, "exclusive_maximum", s, "exclusiveMaximum");
    setNumber(m, "minimum", s, "minimum");
    setBool(m, "exclusive_minimum", s, "exclusiveMinimum");
    setNumber(m, "max_length", s, "maxLength");
    setNumber(m, "min_length", s, "minLength");
    setString(m, "pattern", s, "pattern");
    setNumber(m, "max_items", s, "maxItems");
    setNumber(m, "min_items", s, "minItems");
    setBool(m, "unique_items", s, "uniqueItems");
    setNumber(m, "max_properties", s, "maxProperties");
    setNumber(m, "min_properties", s, "minProperties");
    addStrings(m, "required", s, "required");
    if (const json* values = find(s, "enum"); values != nullptr && values->is_array()) {
      for (const json& v : *values) any(v, add(m, "enum"));
    }
    if (const json* extra = find(s, "additionalProperties")) {
      gp::Message& item = sub(m, "additional_properties");
      if (extra->is_boolean()) {
        item.GetReflection()->SetBool(&item, field(item, "boolean"), extra->get<bool>());
      } else {
        schema(*extra, sub(item, "schema"));
      }
    }
    if (const json* type = find(s, "type")) {
      gp::Message& item = sub(m, "type");
      for (const json& t : type->is_array() ? *type : json::array({*type})) {
        if (t.is_string()) item.GetReflection()->AddString(&item, field(item, "value"), t);
      }
    }
    if (const json* items = find(s, "items")) {
      gp::Message& item = sub(m, "items");
      for (const json& each : items->is_array() ? *items : json::array({*items})) {
        schema(each, add(item, "schema"));
      }
    }
    if (const json* allOf = find(s, "allOf")) {
      for (const json& each : *allOf) schema(each, add(m, "all_of"));
    }
    if (const json* properties = find(s, "properties")) {
      namedSchemas(*properties, sub(m, "properties"));
    }
    vendorExtensions(s, m);
  }

  const Schemas& schemas_ = Schemas::get();
};

}  // namespace

std::string encodeOpenApiV2(const json& swagger) { return Encoder().encode(swagger); }

}  // namespace hetbench::kubesim::protobuf
