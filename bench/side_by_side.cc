// ksched and the upstream kube-scheduler, side by side in one run, against the same real
// kube-apiserver (scripts/cluster.sh, `make k8s`): each schedules the same number of pods onto
// the same fake nodes, as scheduler_perf's SchedulingBasic does, with client QPS and burst raised
// to 5000 (scheduler_perf's settings) so that the client's rate limit does not decide.
//
//   build/bench/side_by_side [nodes] [pods]        # default 1000 nodes, 3000 pods
//
// For each scheduler the pods are created first (with its schedulerName), then the scheduler is
// started; a watch on the namespace sees each bind as it happens. Throughput is the pods bound per
// second between the first and the last bind, so that start-up does not count; "to last bind" is
// the time from the process's start. CPU is the scheduler process's whole
// user+system time (start-up, list and watch included) per pod; memory its peak RSS. ksched runs
// second, so it sees the other's pods in its cache.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/metrics/scheduler_metrics.h"
#include "src/testing/command.h"
#include "src/testing/control_plane.h"

namespace ksched::bench {
namespace {

using testing::CommandResult;
using testing::ControlPlane;
using testing::Process;

struct Result {
  std::string name;
  double seconds = 0;      // First to last bind.
  double from_start = 0;   // Process start to last bind.
  double cpu_seconds = 0;  // The process's user + system time.
  double peak_rss_mib = 0;
  int pods = 0;
  int watches = 0;  // How many times the bind watch was opened.
};

double PeakRssMib(int pid) {
  std::ifstream f(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(f, line);) {
    if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// Watches a namespace's pods and notes when each one is first seen bound.
class BindWatcher {
 public:
  using Clock = std::chrono::steady_clock;

  BindWatcher(client::HttpClient& http, const std::string& ns) : http_(http), ns_(ns) { Open(); }
  ~BindWatcher() { stream_->Cancel(); }

  // Waits until `pods` are bound or `timeout` passes. A watch the API server ends (it drops
  // watchers it finds slow while it is busy) is opened again: its first events list the pods
  // bound so far, and those not seen before count as bound when seen.
  absl::Status WaitFor(size_t pods, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    for (;;) {
      {
        absl::MutexLock lock(&mu_);
        auto done = [&]()
                        ABSL_SHARED_LOCKS_REQUIRED(mu_) { return bound_.size() >= pods || ended_; };
        mu_.AwaitWithDeadline(absl::Condition(&done), deadline);
        if (bound_.size() >= pods) return absl::OkStatus();
        if (!ended_ || absl::Now() >= deadline) {
          return absl::DeadlineExceededError(
              fmt::format("{} of {} pods bound ({} watches)", bound_.size(), pods, watches_));
        }
        ended_ = false;
      }
      Open();
    }
  }
  int watches() {
    absl::MutexLock lock(&mu_);
    return watches_;
  }
  std::pair<Clock::time_point, Clock::time_point> FirstAndLast() {
    absl::MutexLock lock(&mu_);
    return {first_, last_};
  }

 private:
  void Open() {
    {
      absl::MutexLock lock(&mu_);
      ++watches_;
      buffer_.clear();
    }
    // Only bound pods match the field selector: each one arrives as ADDED when bound.
    stream_ = http_.Watch(
        {.path = fmt::format("/api/v1/namespaces/{}/pods?watch=1&fieldSelector=spec.nodeName%21%3D",
                             ns_),
         .timeout = absl::ZeroDuration()},
        [this](std::string_view data) { OnData(data); },
        [this](const client::HttpResponse&) {
          absl::MutexLock lock(&mu_);
          ended_ = true;
        });
  }

  // Events come one JSON object per line; a bound pod's carries "nodeName". Substring search
  // keeps the watcher's own CPU small beside the schedulers it measures.
  void OnData(std::string_view data) {
    absl::MutexLock lock(&mu_);
    buffer_.append(data);
    size_t start = 0;
    for (size_t end; (end = buffer_.find('\n', start)) != std::string::npos; start = end + 1) {
      std::string_view line(buffer_.data() + start, end - start);
      if (line.find("\"nodeName\":\"") == std::string_view::npos) continue;
      size_t at = line.find("\"name\":\"");
      if (at == std::string_view::npos) continue;
      at += 8;
      std::string name(line.substr(at, line.find('"', at) - at));
      if (bound_.insert(name).second) {
        last_ = Clock::now();
        if (bound_.size() == 1) first_ = last_;
      }
    }
    buffer_.erase(0, start);
  }

  client::HttpClient& http_;
  const std::string ns_;
  absl::Mutex mu_;
  std::string buffer_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  int watches_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<std::string> bound_ ABSL_GUARDED_BY(mu_);
  Clock::time_point first_ ABSL_GUARDED_BY(mu_), last_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<client::HttpClient::Stream> stream_;
};

absl::StatusOr<Result> Run(const ControlPlane& cluster, client::HttpClient& http,
                           const std::string& name, std::vector<std::string> argv, int pods) {
  const std::string ns = "bench-" + name;
  if (cluster.Kubectl({"create", "namespace", ns}).exit_code != 0) {
    return absl::InternalError("creating the namespace failed");
  }
  nlohmann::json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::json::array()}};
  for (int i = 0; i < pods; ++i) {
    list["items"].push_back(
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", {{"name", fmt::format("p-{}", i)}, {"namespace", ns}}},
         {"spec",
          {{"schedulerName", ns},
           {"containers",
            {{{"name", "c"},
              {"image", "registry.k8s.io/pause:3.10"},
              {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "500Mi"}}}}}}}}}}});
  }
  CommandResult created = cluster.Kubectl({"create", "-f", "-", "-o", "name"}, list.dump());
  if (created.exit_code != 0) return absl::InternalError("creating pods: " + created.err);

  const std::string config = fmt::format("{}/{}.yaml", cluster.dir(), ns);
  std::ofstream(config) << fmt::format(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "clientConnection: {{kubeconfig: {}, qps: 5000, burst: 5000}}\n"
      "leaderElection: {{leaderElect: false}}\n"
      "profiles:\n- schedulerName: {}\n",
      cluster.kubeconfig(), ns);
  argv.insert(argv.end(), {"--config=" + config, "--secure-port=0", "--v=1"});
  BindWatcher watcher(http, ns);
  const auto started = std::chrono::steady_clock::now();
  Process p(argv, fmt::format("{}/{}.log", cluster.dir(), ns));
  if (p.pid() <= 0) return absl::InternalError("starting " + name + ": " + p.Log());
  if (absl::Status st = watcher.WaitFor(pods, absl::Minutes(5)); !st.ok()) {
    return absl::DeadlineExceededError(
        fmt::format("{}: {}; its log: {}", name, std::string(st.message()), p.Log()));
  }
  auto [first, last] = watcher.FirstAndLast();
  Result r{.name = name,
           .seconds = std::chrono::duration<double>(last - first).count(),
           .from_start = std::chrono::duration<double>(last - started).count(),
           .cpu_seconds = metrics::ReadProcessStat(p.pid()).cpu_seconds,
           .peak_rss_mib = PeakRssMib(p.pid()),
           .pods = pods,
           .watches = watcher.watches()};
  p.Stop(SIGTERM);
  return r;
}

int Main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int pods = argc > 2 ? std::atoi(argv[2]) : 3000;
  absl::StatusOr<std::unique_ptr<ControlPlane>> cluster = ControlPlane::Start();
  if (!cluster.ok()) {
    std::fprintf(stderr, "side_by_side: %s\n", std::string(cluster.status().message()).c_str());
    return 1;
  }
  if (absl::Status st = (*cluster)->CreateNodes(nodes); !st.ok()) {
    std::fprintf(stderr, "side_by_side: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = (*cluster)->kubeconfig()});
  if (!rest.ok()) {
    std::fprintf(stderr, "side_by_side: %s\n", std::string(rest.status().message()).c_str());
    return 1;
  }
  auto http = client::HttpClient::Create(*rest);
  if (!http.ok()) return 1;
  std::vector<Result> results;
  for (auto [name, argv0] : {std::pair{"kube-scheduler", testing::K8sBinDir() + "/kube-scheduler"},
                             std::pair{"ksched", std::string(KSCHED_BINARY)}}) {
    absl::StatusOr<Result> r = Run(**cluster, **http, name, {argv0}, pods);
    if (!r.ok()) {
      std::fprintf(stderr, "side_by_side: %s\n", std::string(r.status().message()).c_str());
      return 1;
    }
    results.push_back(*r);
  }
  std::printf("%d nodes, %d pods each; QPS/burst 5000\n", nodes, pods);
  std::printf("%-15s %10s %16s %14s %14s %8s\n", "scheduler", "pods/s", "to last bind (s)",
              "CPU ms/pod", "peak RSS MiB", "watches");
  for (const Result& r : results) {
    std::printf("%-15s %10.0f %16.2f %14.3f %14.1f %8d\n", r.name.c_str(), r.pods / r.seconds,
                r.from_start, 1000 * r.cpu_seconds / r.pods, r.peak_rss_mib, r.watches);
  }
  const Result& up = results[0];
  const Result& us = results[1];
  std::printf("ksched / kube-scheduler: throughput %.2fx, CPU per pod %.2fx, peak RSS %.2fx\n",
              (us.pods / us.seconds) / (up.pods / up.seconds), us.cpu_seconds / up.cpu_seconds,
              us.peak_rss_mib / up.peak_rss_mib);
  return 0;
}

}  // namespace
}  // namespace ksched::bench

int main(int argc, char** argv) { return ksched::bench::Main(argc, argv); }
