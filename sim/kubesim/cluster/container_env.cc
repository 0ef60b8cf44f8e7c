#include "cluster/container_env.h"

#include "hetbench/common/base64.h"
#include "server/quantity.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

// metadata.labels['key'] and metadata.annotations['key'].
std::optional<std::string> bracketField(const json& meta, const std::string& path,
                                        const std::string& prefix, const char* map) {
  if (path.rfind(prefix, 0) != 0 || path.size() < prefix.size() + 3) return std::nullopt;
  const std::string key = path.substr(prefix.size() + 2, path.size() - prefix.size() - 4);
  const json& values = meta.value(map, json::object());
  return values.contains(key) ? values[key].get<std::string>() : "";
}

common::Result<std::string> fieldRef(const json& pod, const std::string& path) {
  const json& meta = pod["metadata"];
  if (path == "metadata.name") return meta.value("name", "");
  if (path == "metadata.namespace") return meta.value("namespace", "");
  if (path == "metadata.uid") return meta.value("uid", "");
  if (path == "spec.nodeName") return pod["spec"].value("nodeName", "");
  if (path == "spec.serviceAccountName") return pod["spec"].value("serviceAccountName", "");
  if (path == "status.podIP") return pod.value("status", json::object()).value("podIP", "");
  if (path == "status.hostIP") return pod.value("status", json::object()).value("hostIP", "");
  if (auto v = bracketField(meta, path, "metadata.labels", "labels")) return *v;
  if (auto v = bracketField(meta, path, "metadata.annotations", "annotations")) return *v;
  return common::invalidError("unsupported fieldRef " + path);
}

std::optional<json> lookup(const Store& store, const char* key, const std::string& ns,
                           const std::string& name) {
  return store.get(key, ns, name);
}

}  // namespace

std::string expandVariables(const std::string& text,
                            const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      const std::size_t close = text.find(')', i + 2);
      if (close != std::string::npos) {
        const std::string name = text.substr(i + 2, close - i - 2);
        bool found = false;
        for (auto it = env.rbegin(); it != env.rend(); ++it) {
          if (it->first == name) {
            out += it->second;
            found = true;
            break;
          }
        }
        if (found) {
          i = close;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

common::Result<std::vector<std::pair<std::string, std::string>>> containerEnv(const json& pod,
                                                                              const json& container,
                                                                              const Store& store) {
  std::vector<std::pair<std::string, std::string>> env;
  const std::string ns = pod["metadata"].value("namespace", "");
  auto set = [&](const std::string& name, const std::string& value) {
    for (auto& [k, v] : env) {
      if (k == name) {
        v = value;
        return;
      }
    }
    env.emplace_back(name, value);
  };
  for (const json& from : container.value("envFrom", json::array())) {
    const std::string prefix = from.value("prefix", "");
    for (const char* kind : {"configMapRef", "secretRef"}) {
      if (!from.contains(kind)) continue;
      const json& ref = from[kind];
      const bool secret = std::string(kind) == "secretRef";
      std::optional<json> object =
          lookup(store, secret ? "/secrets" : "/configmaps", ns, ref.value("name", ""));
      if (!object) {
        if (ref.value("optional", false)) continue;
        return common::notFoundError(std::string(secret ? "secret" : "configmap") + " \"" +
                                     ref.value("name", "") + "\" not found");
      }
      const json data = object->value("data", json::object());
      for (const auto& [k, v] : data.items()) {
        const std::string value = v.get<std::string>();
        set(prefix + k, secret ? common::base64Decode(value).value_or("") : value);
      }
    }
  }
  for (const json& e : container.value("env", json::array())) {
    const std::string name = e.value("name", "");
    if (e.contains("value")) {
      set(name, expandVariables(e["value"].get<std::string>(), env));
      continue;
    }
    const json& from = e.value("valueFrom", json::object());
    if (from.contains("fieldRef")) {
      common::Result<std::string> v = fieldRef(pod, from["fieldRef"].value("fieldPath", ""));
      if (!v.isOk()) return v.status();
      set(name, *v);
    } else if (from.contains("resourceFieldRef")) {
      const json& ref = from["resourceFieldRef"];
      const std::string resource = ref.value("resource", "");
      const std::size_t dot = resource.find('.');
      const std::string section = resource.substr(0, dot);
      const std::string res = dot == std::string::npos ? "" : resource.substr(dot + 1);
      const json& value = container.value("resources", json::object())
                              .value(section, json::object())
                              .value(res, json());
      const std::int64_t milli = value.is_null() ? 0 : quantityMilli(value).value_or(0);
      set(name, std::to_string((milli + 999) / 1000));
    } else {
      for (const char* kind : {"configMapKeyRef", "secretKeyRef"}) {
        if (!from.contains(kind)) continue;
        const json& ref = from[kind];
        const bool secret = std::string(kind) == "secretKeyRef";
        std::optional<json> object =
            lookup(store, secret ? "/secrets" : "/configmaps", ns, ref.value("name", ""));
        const std::string key = ref.value("key", "");
        const json data = object ? object->value("data", json::object()) : json::object();
        if (!object || !data.contains(key)) {
          if (ref.value("optional", false)) break;
          return common::notFoundError(object ? "couldn't find key " + key + " in " +
                                                    (secret ? "Secret " : "ConfigMap ") + ns + "/" +
                                                    ref.value("name", "")
                                              : std::string(secret ? "secret" : "configmap") +
                                                    " \"" + ref.value("name", "") + "\" not found");
        }
        const std::string value = data[key].get<std::string>();
        set(name, secret ? common::base64Decode(value).value_or("") : value);
      }
    }
  }
  return env;
}

}  // namespace hetbench::kubesim
