#include "ksched/registry.h"

#include "fmt/format.h"

namespace ksched {

absl::Status Registry::Register(std::string name, PluginFactory factory) {
  if (factories_.contains(name)) {
    return absl::AlreadyExistsError(fmt::format("a plugin named {} already exists", name));
  }
  factories_.emplace(std::move(name), std::move(factory));
  return absl::OkStatus();
}

const PluginFactory* Registry::Find(std::string_view name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

absl::Status Registry::RegisterArgs(std::string name, ArgsDecoder decoder) {
  if (args_.contains(name)) {
    return absl::AlreadyExistsError(fmt::format("args of a plugin named {} already exist", name));
  }
  args_.emplace(std::move(name), std::move(decoder));
  return absl::OkStatus();
}

const ArgsDecoder* Registry::FindArgs(std::string_view name) const {
  auto it = args_.find(name);
  return it == args_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, f] : factories_) out.push_back(name);
  return out;
}

absl::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, f] : other.factories_) {
    if (absl::Status st = Register(name, f); !st.ok()) return st;
  }
  for (const auto& [name, d] : other.args_) {
    if (absl::Status st = RegisterArgs(name, d); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace ksched
