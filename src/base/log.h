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
// The macros, Field and Write are the SDK's (ksched/log.h); this adds what only ksched calls.
//
// Thread safety: every function may be called from any thread; Init before the first log line.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "ksched/log.h"  // IWYU pragma: export

namespace ksched::log {

enum class Format { kText, kJson };

// Sets the format and the verbosity (-v); messages with a higher level are dropped.
void Init(Format format, int verbosity);
// The line Write would print (without the newline), for tests. `unix_micros` is the time.
std::string FormatLine(Format format, char severity, int level, const char* file, int line,
                       std::string_view msg, std::initializer_list<Field> fields,
                       int64_t unix_micros, int pid);

}  // namespace ksched::log
