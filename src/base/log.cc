#include "src/base/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace ksched::log {
namespace {

std::atomic<Format> g_format{Format::kText};
std::atomic<int> g_verbosity{0};

spdlog::logger& Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("ksched",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("%v");  // The line is formatted here, as klog formats it.
    l->flush_on(spdlog::level::info);
    return l;
  }();
  return *logger;
}

// The file name klog prints: the base name (text), or the last folder and the name (JSON caller).
std::string_view BaseName(const char* file, bool with_dir) {
  std::string_view f = file;
  size_t slash = f.rfind('/');
  if (slash == std::string_view::npos) return f;
  if (with_dir) {
    size_t prev = slash == 0 ? std::string_view::npos : f.rfind('/', slash - 1);
    return f.substr(prev == std::string_view::npos ? 0 : prev + 1);
  }
  return f.substr(slash + 1);
}

// klog quotes string values (and the message) as Go's %q does.
std::string Quoted(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

std::string TextValue(const Field& f) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) return Quoted(v);
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, bool>) {
          return fmt::format("{}", v);
        }
      },
      f.value);
}

}  // namespace

void Init(Format format, int verbosity) {
  g_format = format;
  g_verbosity = verbosity;
}

bool Enabled(int level) { return level <= g_verbosity.load(std::memory_order_relaxed); }

std::string FormatLine(Format format, char severity, int level, const char* file, int line,
                       std::string_view msg, std::initializer_list<Field> fields,
                       int64_t unix_micros, int pid) {
  if (format == Format::kJson) {
    nlohmann::ordered_json j;
    j["ts"] = static_cast<double>(unix_micros) / 1000.0;  // Milliseconds, as component-base.
    j["caller"] = fmt::format("{}:{}", BaseName(file, true), line);
    j["msg"] = std::string(msg);
    if (severity == 'I') j["v"] = level;
    for (const Field& f : fields) {
      std::visit([&](const auto& v) { j[std::string(f.key)] = v; }, f.value);
    }
    return j.dump();
  }
  time_t secs = static_cast<time_t>(unix_micros / 1000000);
  struct tm tm;
  localtime_r(&secs, &tm);  // klog prints local time.
  std::string out =
      fmt::format("{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {:7} {}:{}] {}", severity, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, unix_micros % 1000000, pid,
                  BaseName(file, false), line, Quoted(msg));
  for (const Field& f : fields)
    fmt::format_to(std::back_inserter(out), " {}={}", f.key, TextValue(f));
  return out;
}

void Write(char severity, int level, const char* file, int line, std::string_view msg,
           std::initializer_list<Field> fields) {
  int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  std::string text = FormatLine(g_format.load(), severity, level, file, line, msg, fields, now,
                                static_cast<int>(getpid()));
  Logger().info(text);
}

}  // namespace ksched::log
