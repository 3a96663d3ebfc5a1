// In-process throughput of the full scheduler: scheduler_perf's node template (4 CPU, 32Gi,
// 110 pods, Ready, zone label) × 5000 nodes, then 10000 pods of 100m / 500Mi scheduled through the
// default plugins, with binding to an in-memory writer that accepts every bind at once.
//
//   build/bench/scheduling_bench --benchmark_counters_tabular=true
//
// Counters: pods/s (wall), CPU ns per pod (process CPU time, all threads), and the heap the cache
// holds per node and per pod (glibc mallinfo2 before and after).
//
// BM_TeamFilter/compiled and /library run the same workload with one more plugin enabled,
// examples/plugin-library's TeamFilter (Filter and Score on every node), compiled into this binary
// or loaded from its shared library as --plugin-library loads it: what a plugin in a .so costs.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <time.h>

#include "ksched/plugin_library.h"
#include "src/cli/plugin_library.h"
#include "src/plugins/registry.h"
#include "src/scheduler/scheduler.h"
#include "src/testing/builders.h"

namespace ksched {
namespace {

// Accepts every write at once and feeds binds back as the informer would, in batches.
class InstantWriter : public ClusterWriter {
 public:
  absl::Status Bind(const api::Pod&, std::string_view) override { return absl::OkStatus(); }
  void RecordEvent(const api::Pod&, std::string_view, std::string_view, std::string_view,
                   std::string) override {}
  absl::Status UpdatePodStatus(const api::Pod&, const api::PodCondition&,
                               const std::string*) override {
    return absl::OkStatus();
  }
  absl::Status DeletePod(const api::Pod&) override { return absl::OkStatus(); }
};

double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

size_t HeapInUse() { return mallinfo2().uordblks; }

std::shared_ptr<const api::Node> TemplateNode(int i) {
  api::Node n = testing::MakeNode()
                    .Name("node-" + std::to_string(i))
                    .Label("topology.kubernetes.io/zone", "zone-" + std::to_string(i % 3))
                    .Capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}})
                    .Obj();
  n.status.conditions.push_back({.type = "Ready", .status = "True"});
  return std::make_shared<const api::Node>(std::move(n));
}

// Schedules range(1) pods on range(0) nodes with `registry`'s plugins and `cfg`'s profile.
void SchedulePods(benchmark::State& state, const Registry& registry,
                  const config::Configuration& cfg) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_pods = static_cast<int>(state.range(1));
  for (auto _ : state) {
    state.PauseTiming();
    InstantWriter writer;
    auto s = scheduler::Scheduler::Create({.config = cfg, .writer = &writer, .seed = 1}, registry);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.status().message()).c_str());
      return;
    }
    size_t heap0 = HeapInUse();
    for (int i = 0; i < num_nodes; ++i) (*s)->OnNodeAdd(TemplateNode(i));
    size_t heap_nodes = HeapInUse();
    std::vector<std::shared_ptr<const api::Pod>> pods;
    pods.reserve(num_pods);
    for (int i = 0; i < num_pods; ++i) {
      pods.push_back(testing::MakePod()
                         .Name("pod-" + std::to_string(i))
                         .Req("cpu", "100m")
                         .Req("memory", "500Mi")
                         .Ptr());
    }
    for (const auto& p : pods) (*s)->OnPodAdd(p);
    state.ResumeTiming();

    double cpu0 = ProcessCpuSeconds();
    int scheduled = 0;
    while ((*s)->ScheduleOne()) ++scheduled;
    double cpu = ProcessCpuSeconds() - cpu0;

    state.PauseTiming();
    size_t heap_pods = HeapInUse();
    state.counters["pods"] = scheduled;
    state.counters["pods_per_s"] = benchmark::Counter(scheduled, benchmark::Counter::kIsRate);
    state.counters["cpu_ns_per_pod"] = cpu * 1e9 / std::max(scheduled, 1);
    state.counters["cache_bytes_per_node"] = static_cast<double>(heap_nodes - heap0) / num_nodes;
    state.counters["bytes_per_pod"] =
        static_cast<double>(heap_pods - heap_nodes) / std::max(scheduled, 1);
    s->reset();
    state.ResumeTiming();
  }
}

void BM_SchedulePods(benchmark::State& state) {
  SchedulePods(state, plugins::NewInTreeRegistry(), config::DefaultConfiguration());
}

// The default profile plus TeamFilter through multiPoint.
config::Configuration WithTeamFilter() {
  config::Configuration cfg;
  config::Profile profile;
  profile.plugins.multi_point.enabled.push_back({"TeamFilter", 1});
  config::MergeDefaultPlugins(profile);
  cfg.profiles.push_back(profile);
  return cfg;
}

void BM_TeamFilter(benchmark::State& state, bool from_library) {
  Registry registry = plugins::NewInTreeRegistry();
  absl::Status st = from_library ? app::LoadPluginLibrary(TEAM_FILTER_LIBRARY, registry)
                                 : ksched_plugin_library_v1()->register_plugins(registry);
  if (!st.ok()) {
    state.SkipWithError(std::string(st.message()).c_str());
    return;
  }
  SchedulePods(state, registry, WithTeamFilter());
}

BENCHMARK(BM_SchedulePods)
    ->Args({5000, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TeamFilter, compiled, false)
    ->Args({5000, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TeamFilter, library, true)
    ->Args({5000, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace ksched

BENCHMARK_MAIN();
