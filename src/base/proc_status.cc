#include "src/base/proc_status.h"

#include <charconv>
#include <fstream>

namespace ksched {

std::optional<std::string> ProcStatusField(int pid, std::string_view name) {
  std::ifstream in(pid == 0 ? std::string("/proc/self/status")
                            : "/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.size() <= name.size() || !line.starts_with(name) || line[name.size()] != ':') continue;
    const size_t start = line.find_first_not_of(" \t", name.size() + 1);
    if (start == std::string::npos) return "";
    return line.substr(start, line.find_last_not_of(" \t") + 1 - start);
  }
  return std::nullopt;
}

std::optional<int64_t> ProcStatusKib(int pid, std::string_view name) {
  std::optional<std::string> text = ProcStatusField(pid, name);
  if (!text) return std::nullopt;
  int64_t kib = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), kib);
  if (ec != std::errc() || std::string_view(end, text->data() + text->size()) != " kB") {
    return std::nullopt;
  }
  return kib;
}

}  // namespace ksched
