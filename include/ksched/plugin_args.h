// PluginArgs: a plugin's args (pluginConfig[].args), decoded and validated once, when the
// configuration is loaded, into the plugin's own type. The factory receives them typed; they are
// encoded back to JSON only to show the effective configuration (`ksched config print`,
// /configz).
//
//   struct TeamAwareArgs { std::string label = "team"; };
//   const TeamAwareArgs* a = ArgsAs<TeamAwareArgs>(args);  // nullptr: another type
//
// A plugin without an ArgsDecoder (ksched/registry.h) gets its args as written, as JsonArgs.
//
// Thread safety: immutable once built; shared by every profile that uses them.
#pragma once

#include <utility>

#include "nlohmann/json.hpp"

namespace ksched {

class PluginArgs {
 public:
  virtual ~PluginArgs() = default;
  // The args as a kubescheduler.config.k8s.io/v1 document, every default filled in.
  virtual nlohmann::json ToJson() const = 0;
};

// Args kept as written (an empty object when the profile has none).
class JsonArgs final : public PluginArgs {
 public:
  explicit JsonArgs(nlohmann::json doc = nlohmann::json::object()) : doc_(std::move(doc)) {}
  const nlohmann::json& doc() const { return doc_; }
  nlohmann::json ToJson() const override { return doc_; }

 private:
  nlohmann::json doc_;
};

// Args of type T, with the function that writes them as a v1 document.
template <typename T>
class TypedArgs final : public PluginArgs {
 public:
  using Encoder = nlohmann::json (*)(const T&);
  TypedArgs(T value, Encoder encode) : value_(std::move(value)), encode_(encode) {}
  const T& value() const { return value_; }
  nlohmann::json ToJson() const override { return encode_(value_); }

 private:
  T value_;
  Encoder encode_;
};

// The args as T, or nullptr when they are of another type.
template <typename T>
const T* ArgsAs(const PluginArgs& args) {
  const auto* typed = dynamic_cast<const TypedArgs<T>*>(&args);
  return typed == nullptr ? nullptr : &typed->value();
}

}  // namespace ksched
