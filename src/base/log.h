// Logging as kube-scheduler's klog does it: structured messages with key/value pairs, verbosity
// levels (-v), and two formats, klog's text (the default) and component-base's JSON
// (--logging-format=json). Written to standard error through spdlog.
//
//   KLOG(2, "Successfully bound pod to node", {{"pod", "default/web"}, {"node", "n1"}});
//   KLOG_ERROR("Error scheduling pod", {{"err", status.ToString()}});
//
// text:  I1122 13:47:07.123456   12345 scheduler.cc:240] "Successfully bound pod to node"
// pod="default/web" node="n1" json:
// {"ts":1795357627123.456,"caller":"scheduler/scheduler.cc:240","msg":"Successfully bound pod to
// node","v":2,"pod":"default/web","node":"n1"}
//
// Never log tokens, keys or certificates: pass them to no log call.
//
// Thread safety: every function may be called from any thread; Init before the first log line.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

namespace ksched::log {

enum class Format { kText, kJson };

// Sets the format and the verbosity (-v); messages with a higher level are dropped.
void Init(Format format, int verbosity);
bool Enabled(int level);

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
// The line Write would print (without the newline), for tests. `unix_micros` is the time.
std::string FormatLine(Format format, char severity, int level, const char* file, int line,
                       std::string_view msg, std::initializer_list<Field> fields,
                       int64_t unix_micros, int pid);

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
