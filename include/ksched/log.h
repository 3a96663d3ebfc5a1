// Logging for plugins and for ksched itself, as kube-scheduler's klog: a message with key/value
// pairs and a verbosity level, printed in the format ksched was started with (--logging-format:
// klog's text or component-base's JSON) when -v is at least the level.
//
//   KLOG(4, "Price of node", {{"node", node.name()}, {"price", price}});
//   KLOG_ERROR("Error evicting pod", {{"pod", "default/web"}, {"err", st.ToString()}});
//
// Never log tokens, keys or certificates: pass them to no log call.
//
// Thread safety: every function may be called from any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

namespace ksched::log {

// Whether messages of `level` are printed (-v is at least `level`).
bool Enabled(int level);

// One key/value pair of a message: a string, an integer, a float or a bool.
struct Field {
  Field(std::string_view k, std::string_view v) : key(k), value(std::string(v)) {}
  Field(std::string_view k, const char* v) : key(k), value(std::string(v)) {}
  Field(std::string_view k, const std::string& v) : key(k), value(v) {}
  Field(std::string_view k, int64_t v) : key(k), value(v) {}
  Field(std::string_view k, int v) : key(k), value(int64_t{v}) {}
  Field(std::string_view k, size_t v) : key(k), value(static_cast<int64_t>(v)) {}
  Field(std::string_view k, double v) : key(k), value(v) {}
  Field(std::string_view k, bool v) : key(k), value(v) {}
  std::string_view key;
  std::variant<std::string, int64_t, double, bool> value;
};

// severity: 'I', 'W' or 'E'. Prefer the macros, which add the caller.
void Write(char severity, int level, const char* file, int line, std::string_view msg,
           std::initializer_list<Field> fields);

}  // namespace ksched::log

#define KLOG(level, msg, ...)                                                       \
  do {                                                                              \
    if (::ksched::log::Enabled(level)) {                                            \
      ::ksched::log::Write('I', (level), __FILE__, __LINE__, (msg), {__VA_ARGS__}); \
    }                                                                               \
  } while (0)
#define KLOG_WARNING(msg, ...) \
  ::ksched::log::Write('W', 0, __FILE__, __LINE__, (msg), {__VA_ARGS__})
#define KLOG_ERROR(msg, ...) ::ksched::log::Write('E', 0, __FILE__, __LINE__, (msg), {__VA_ARGS__})
