#include "ksched/registry.h"

#include "fmt/format.h"

namespace ksched {

absl::Status Registry::Register(PluginSpec spec) {
  if (plugins_.contains(spec.name)) {
    return absl::AlreadyExistsError(fmt::format("a plugin named {} already exists", spec.name));
  }
  std::string name = spec.name;
  plugins_.emplace(std::move(name), std::move(spec));
  return absl::OkStatus();
}

absl::Status Registry::Register(std::string name, PluginFactory factory) {
  return Register({.name = std::move(name), .factory = std::move(factory)});
}

const PluginSpec* Registry::Find(std::string_view name) const {
  auto it = plugins_.find(name);
  return it == plugins_.end() ? nullptr : &it->second;
}

const ArgsDecoder* Registry::FindArgs(std::string_view name) const {
  const PluginSpec* spec = Find(name);
  return spec != nullptr && spec->args ? &spec->args : nullptr;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, spec] : plugins_) out.push_back(name);
  return out;
}

absl::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, spec] : other.plugins_) {
    if (absl::Status st = Register(spec); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace ksched
