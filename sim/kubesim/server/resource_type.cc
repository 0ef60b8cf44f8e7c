#include "server/resource_type.h"

#include <algorithm>

namespace hetbench::kubesim {

bool ResourceType::hasSubresource(const std::string& name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

std::string ResourceType::apiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceType::qualifiedResource() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string ResourceType::qualifiedKind() const {
  return group.empty() ? kind : kind + "." + group;
}

ResourceRegistry::ResourceRegistry() = default;

void ResourceRegistry::add(ResourceType type) {
  std::lock_guard lock(mu_);
  const std::string key = type.group + "/" + type.version + "/" + type.resource;
  types_[key] = std::move(type);
  ++generation_;
}

void ResourceRegistry::replace(const std::string& group, const std::string& resource,
                               std::vector<ResourceType> types) {
  std::lock_guard lock(mu_);
  removeLocked(group, resource);
  for (ResourceType& t : types) {
    const std::string key = t.group + "/" + t.version + "/" + t.resource;
    types_[key] = std::move(t);
  }
  ++generation_;
}

void ResourceRegistry::remove(const std::string& group, const std::string& resource) {
  std::lock_guard lock(mu_);
  removeLocked(group, resource);
  ++generation_;
}

void ResourceRegistry::removeLocked(const std::string& group, const std::string& resource) {
  for (auto it = types_.begin(); it != types_.end();) {
    if (it->second.group == group && it->second.resource == resource) {
      it = types_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<ResourceType> ResourceRegistry::find(const std::string& group,
                                                   const std::string& version,
                                                   const std::string& resource) const {
  std::lock_guard lock(mu_);
  auto it = types_.find(group + "/" + version + "/" + resource);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

std::optional<ResourceType> ResourceRegistry::findKind(const std::string& apiVersion,
                                                       const std::string& kind) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, type] : types_) {
    if (type.kind == kind && type.apiVersion() == apiVersion) return type;
  }
  return std::nullopt;
}

std::vector<ResourceType> ResourceRegistry::all() const {
  std::lock_guard lock(mu_);
  std::vector<ResourceType> out;
  for (const auto& [key, type] : types_) out.push_back(type);
  return out;
}

std::uint64_t ResourceRegistry::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

}  // namespace hetbench::kubesim
