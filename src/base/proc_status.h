// A field of /proc/<pid>/status (proc(5)), as the kernel writes it: the peak and current resident
// memory of a process the benchmarks and soaks watch, the signals a test checks.
//
//   std::optional<int64_t> peak = ProcStatusKib(child_pid, "VmHWM");  // 61140
//   std::optional<std::string> mask = ProcStatusField(0, "SigCgt");   // "0000000000004a02"
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ksched {

// The text after "<name>:", blanks trimmed; nullopt when the process or the field is not there.
// `pid` 0 is the calling process.
std::optional<std::string> ProcStatusField(int pid, std::string_view name);

// A field given in kB ("VmRSS:    30868 kB"), as a number of KiB.
std::optional<int64_t> ProcStatusKib(int pid, std::string_view name);

}  // namespace ksched
