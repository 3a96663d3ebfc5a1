#include "bench/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/testing/command.h"

namespace ksched::bench {
namespace {

using nlohmann::json;

const RunResult* Find(const WorkloadResult& w, const std::string& runner) {
  for (const RunResult& r : w.runs) {
    if (r.runner == runner && r.error.empty()) return &r;
  }
  return nullptr;
}

// The run a workload's ksched runs are compared with: kube-scheduler's, or that of
// scheduler-plugins' kube-scheduler (the Coscheduling workloads).
const RunResult* Upstream(const WorkloadResult& w) {
  const RunResult* up = Find(w, "kube-scheduler");
  return up != nullptr ? up : Find(w, "scheduler-plugins");
}

double CpuMsPerPod(const RunResult& r) { return r.bound > 0 ? 1000 * r.cpu_seconds / r.bound : 0; }

// "1.23x", or "-" when either side is missing or zero.
std::string Ratio(double num, double den) {
  return num > 0 && den > 0 ? fmt::format("{:.2f}x", num / den) : "-";
}

std::string FirstLine(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) {
      std::string v = line.substr(line.find(':') + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "?";
}

std::string InProcessTable(const std::string& path) {
  std::ifstream in(path);
  json doc = json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("benchmarks")) return "";
  std::string out =
      "| benchmark | pods | pods/s | CPU µs/pod | cache bytes/node | bytes/pod |\n"
      "|---|---|---|---|---|---|\n";
  for (const json& b : doc["benchmarks"]) {
    if (b.contains("error_occurred") && b["error_occurred"].get<bool>()) continue;
    auto num = [&](const char* key) { return b.contains(key) ? b[key].get<double>() : 0.0; };
    out += fmt::format(
        "| {} | {:.0f} | {:.0f} | {:.0f} | {} | {} |\n", b.value("name", "?"), num("pods"),
        num("pods_per_s"), num("cpu_ns_per_pod") / 1000,
        b.contains("cache_bytes_per_node") ? fmt::format("{:.0f}", num("cache_bytes_per_node"))
                                           : "-",
        b.contains("bytes_per_pod") ? fmt::format("{:.0f}", num("bytes_per_pod")) : "-");
  }
  return out;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return out ? absl::OkStatus() : absl::InternalError("cannot write " + path);
}

std::string PlotScripts(const std::vector<WorkloadResult>& results) {
  std::string gp =
      "set terminal pngcairo size 900,480 font ',10'\n"
      "set grid ytics\nset key outside right top\n";
  for (const WorkloadResult& w : results) {
    std::string plots;
    for (const RunResult& r : w.runs) {
      if (!r.error.empty() || r.samples.empty()) continue;
      plots += fmt::format("{}'{}-{}.dat' using 1:2 with lines lw 2 title '{}'",
                           plots.empty() ? "" : ", ", w.workload.name, r.runner, r.runner);
    }
    if (plots.empty()) continue;
    gp += fmt::format(
        "set output 'throughput-{0}.png'\n"
        "set title '{0}: {1} nodes, {2} measured pods'\n"
        "set xlabel 'second of the measured phase (one sample a second, as scheduler_perf)'\n"
        "set ylabel 'pods bound per second'\n"
        "plot {3}\n",
        w.workload.name, w.workload.nodes, w.workload.measure_pods, plots);
  }
  gp +=
      "set style data histograms\nset style histogram clustered gap 1\n"
      "set style fill solid 0.8 border -1\nset xtics rotate by -30\nset xlabel ''\n"
      "set output 'cpu-per-pod.png'\nset title 'CPU per measured pod (user + system)'\n"
      "set ylabel 'ms'\n"
      "plot 'summary.dat' using 2:xtic(1) title 'kube-scheduler', '' using 3 title 'ksched'\n"
      "set output 'peak-rss.png'\nset title 'Peak RSS of the scheduler process'\n"
      "set ylabel 'MiB'\n"
      "plot 'summary.dat' using 4:xtic(1) title 'kube-scheduler', '' using 5 title 'ksched'\n";
  return gp;
}

}  // namespace

std::string MachineLine() {
  utsname u{};
  uname(&u);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  testing::CommandResult commit =
      testing::RunCommand({"git", "-C", KSCHED_SOURCE_DIR, "rev-parse", "--short", "HEAD"});
  std::string rev = commit.exit_code == 0 ? commit.out : "?";
  rev.erase(rev.find_last_not_of('\n') + 1);
  return fmt::format("{}; {}, {} cores, {} memory; Linux {}; ksched {}", date,
                     FirstLine("/proc/cpuinfo", "model name"), sysconf(_SC_NPROCESSORS_ONLN),
                     FirstLine("/proc/meminfo", "MemTotal"), u.release, rev);
}

std::vector<double> ThroughputSamples(std::vector<int64_t> bind_seconds) {
  std::vector<double> samples;
  if (bind_seconds.empty()) return samples;
  std::sort(bind_seconds.begin(), bind_seconds.end());
  const int64_t first = bind_seconds.front(), last = bind_seconds.back();
  int waiting = 0;  // Seconds without a bind since the last sample.
  auto it = bind_seconds.begin();
  for (int64_t second = first + 1; second < last; ++second) {
    it = std::lower_bound(it, bind_seconds.end(), second);
    const auto end = std::upper_bound(it, bind_seconds.end(), second);
    const auto bound = end - it;
    ++waiting;
    if (bound == 0) continue;
    samples.insert(samples.end(), waiting, static_cast<double>(bound) / waiting);
    waiting = 0;
  }
  return samples;
}

double ReportedAverage(const Throughput& t, size_t samples, int bound, double seconds) {
  if (samples >= 3 || seconds <= 0) return t.average;
  return bound / seconds;
}

Throughput Summarize(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  auto at = [&](int p) {
    return samples[static_cast<size_t>(std::ceil(static_cast<double>(n * p) / 100)) - 1];
  };
  double sum = 0;
  for (double s : samples) sum += s;
  return {.average = sum / static_cast<double>(n), .p50 = at(50), .p90 = at(90), .p99 = at(99)};
}

std::string SideBySideTable(const std::vector<WorkloadResult>& results) {
  std::string out =
      "| workload | nodes | init + measured pods | scheduler | pods/s avg | p50 | p90 | p99 | "
      "of ceiling | CPU s / 1000 pods | peak RSS MiB | scheduler_perf threshold |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const WorkloadResult& w : results) {
    const RunResult* ceiling = Find(w, "ceiling");
    for (const RunResult& r : w.runs) {
      const std::string lead =
          fmt::format("| {} | {} | {} + {} | {} |", w.workload.name, w.workload.nodes,
                      w.workload.init_pods, w.workload.measure_pods, r.runner);
      if (!r.error.empty()) {
        out += lead + fmt::format(" {} | | | | | | | |\n", r.error);
        continue;
      }
      const bool is_ceiling = r.runner == "ceiling";
      out += lead + fmt::format(
                        " {:.0f} | {:.0f} | {:.0f} | {:.0f} | {} | {:.2f} | {:.1f} | {} |\n",
                        r.throughput.average, r.throughput.p50, r.throughput.p90, r.throughput.p99,
                        is_ceiling || ceiling == nullptr
                            ? std::string("")
                            : fmt::format("{:.0f}%",
                                          100 * r.throughput.average / ceiling->throughput.average),
                        CpuMsPerPod(r), r.peak_rss_mib,
                        is_ceiling || w.workload.threshold == 0
                            ? std::string("")
                            : fmt::format("{:.0f}", w.workload.threshold));
    }
  }
  out +=
      "\n| workload | ksched / kube-scheduler: throughput | CPU per pod | peak RSS |\n"
      "|---|---|---|---|\n";
  for (const WorkloadResult& w : results) {
    const RunResult* up = Upstream(w);
    for (const char* runner : {"ksched-before", "ksched"}) {
      const RunResult* us = Find(w, runner);
      if (up == nullptr || us == nullptr) continue;
      out += fmt::format("| {}{}{} | {} | {} | {} |\n", w.workload.name,
                         runner == std::string("ksched") ? "" : " (ksched-before)",
                         up->runner == "kube-scheduler" ? "" : " (against " + up->runner + ")",
                         Ratio(us->throughput.average, up->throughput.average),
                         Ratio(CpuMsPerPod(*us), CpuMsPerPod(*up)),
                         Ratio(us->peak_rss_mib, up->peak_rss_mib));
    }
  }
  // The extender's own share, where one was asked.
  std::string extenders;
  for (const WorkloadResult& w : results) {
    for (const RunResult& r : w.runs) {
      if (r.extender_calls == 0) continue;
      extenders += fmt::format("| {} | {} | {} | {:.2f} | {:.3f} | {:.3f} |\n", w.workload.name,
                               r.runner, r.extender_calls, r.extender_seconds,
                               1000 * r.extender_seconds / r.extender_calls,
                               r.bound > 0 ? 1000 * (r.cpu_seconds / r.bound) : 0.0);
    }
  }
  if (!extenders.empty()) {
    out +=
        "\n| workload | scheduler | extender calls | extender's own s | ms per call | scheduler "
        "CPU "
        "ms per pod |\n|---|---|---|---|---|---|\n" +
        extenders;
  }
  return out;
}

absl::Status WriteReport(const std::string& dir, const std::vector<WorkloadResult>& results,
                         const std::string& in_process_json) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(fmt::format("cannot make {}: {}", dir, ec.message()));

  json raw = json::array();
  std::string summary = "# workload kube-cpu-ms ksched-cpu-ms kube-rss-mib ksched-rss-mib\n";
  for (const WorkloadResult& w : results) {
    json runs = json::array();
    for (const RunResult& r : w.runs) {
      runs.push_back({{"runner", r.runner},
                      {"error", r.error},
                      {"bound", r.bound},
                      {"seconds", r.seconds},
                      {"samples", r.samples},
                      {"average", r.throughput.average},
                      {"p50", r.throughput.p50},
                      {"p90", r.throughput.p90},
                      {"p99", r.throughput.p99},
                      {"cpu_seconds", r.cpu_seconds},
                      {"peak_rss_mib", r.peak_rss_mib},
                      {"creation_seconds", r.creation_seconds},
                      {"watches", r.watches},
                      {"extender_calls", r.extender_calls},
                      {"extender_seconds", r.extender_seconds}});
      std::string dat = "# second pods/s\n";
      for (size_t i = 0; i < r.samples.size(); ++i)
        dat += fmt::format("{} {}\n", i + 1, r.samples[i]);
      if (absl::Status st =
              WriteFile(fmt::format("{}/{}-{}.dat", dir, w.workload.name, r.runner), dat);
          !st.ok()) {
        return st;
      }
    }
    raw.push_back({{"workload", w.workload.name},
                   {"nodes", w.workload.nodes},
                   {"init_pods", w.workload.init_pods},
                   {"measure_pods", w.workload.measure_pods},
                   {"threshold", w.workload.threshold},
                   {"runs", runs}});
    const RunResult* up = Upstream(w);
    const RunResult* us = Find(w, "ksched");
    summary += fmt::format("{} {:.3f} {:.3f} {:.1f} {:.1f}\n", w.workload.name,
                           up ? CpuMsPerPod(*up) : 0, us ? CpuMsPerPod(*us) : 0,
                           up ? up->peak_rss_mib : 0, us ? us->peak_rss_mib : 0);
  }
  const std::string machine = MachineLine();
  std::string md = fmt::format(
      "# ksched and kube-scheduler side by side\n\n{}\n\n"
      "Each run had a fresh etcd and kube-apiserver on loopback, the same nodes and pods, client "
      "QPS and burst 5000 and the default percentageOfNodesToScore. Throughput is "
      "scheduler_perf's: pods bound per second, sampled each second (by the bind times the API "
      "server writes into each pod's PodScheduled condition) while the measured pods are created "
      "and scheduled. CPU is the scheduler process's user + system time over the measured phase. "
      "`ceiling` binds every pending pod round-robin without deciding anything "
      "(bench/trivial_binder.cc).\n\n{}",
      machine, SideBySideTable(results));
  for (const WorkloadResult& w : results) {
    md += fmt::format("\n![{0} throughput](throughput-{0}.png)\n", w.workload.name);
  }
  md += "\n![CPU per pod](cpu-per-pod.png)\n![peak RSS](peak-rss.png)\n";
  if (!in_process_json.empty()) {
    const std::string table = InProcessTable(in_process_json);
    if (!table.empty()) {
      md += "\n## In process (scheduling_bench)\n\n" + table;
    }
  }
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{"results.md", md},
        {"results.json", json{{"machine", machine}, {"workloads", raw}}.dump(1) + "\n"},
        {"summary.dat", summary},
        {"plots.gp", PlotScripts(results)}}) {
    if (absl::Status st = WriteFile(fmt::format("{}/{}", dir, name), text); !st.ok()) return st;
  }
  testing::CommandResult gp =
      testing::RunCommand({"bash", "-c", "cd \"$0\" && gnuplot plots.gp", dir});
  if (gp.exit_code != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "the figures are in {}, but gnuplot failed, so there are no plots: {}", dir, gp.err));
  }
  return absl::OkStatus();
}

}  // namespace ksched::bench
