// In-process throughput of the full scheduler: scheduler_perf's node template (4 CPU, 32Gi,
// 110 pods, Ready, zone label) × 500, 5000 and 15000 nodes (BM_SchedulePods/<nodes>/<pods>: how
// cost grows with the cluster), then 10000 pods of 100m / 500Mi scheduled through the default
// plugins, with binding to an in-memory writer that accepts every bind at once.
//
//   build/bench/scheduling_bench --benchmark_counters_tabular=true
//
// Counters: pods/s (wall), CPU ns per pod (process CPU time, all threads), and the heap the cache
// holds per node and per pod (glibc mallinfo2 before and after).
//
// BM_Explain: the cost of the records `ksched explain` reads, with pods that fit and pods that do
// not.
//
// BM_TeamFilter/compiled and /library run the same workload with one more plugin enabled,
// examples/plugin-library's TeamFilter (Filter and Score on every node), compiled into this binary
// or loaded from its shared library as --plugin-library loads it: what a plugin in a .so costs.
//
// BM_Workload/<name> are scheduler_perf's workloads of the same name at their 5000-node sizes
// (bench/workloads.h; PreemptionBasic at 500 nodes), of the objects the side-by-side bench makes
// (bench/workload_objects.h): nodes, `init` pods scheduled first and not measured, then the
// measured pods (and their PodGroups, with GenericWorkload on), on the embedded cluster that
// `ksched simulate` uses, which feeds binds and preemption's deletions back as informers would.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <optional>

#include "bench/workload_objects.h"
#include "bench/workloads.h"
#include "fmt/format.h"
#include "ksched/plugin_library.h"
#include "src/base/clock.h"
#include "src/cli/plugin_library.h"
#include "src/plugins/registry.h"
#include "src/scheduler/explain_records.h"
#include "src/scheduler/scheduler.h"
#include "src/sim/cluster.h"
#include "src/sim/manifests.h"
#include "src/testing/builders.h"

namespace ksched {
namespace {

using bench::PerfWorkloads;
using bench::Workload;

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

// Schedules range(1) pods of `cpu` on range(0) nodes with `registry`'s plugins and `cfg`'s
// profile, keeping each attempt in `explain` when given.
void SchedulePods(benchmark::State& state, const Registry& registry,
                  const config::Configuration& cfg, const std::string& cpu = "100m",
                  bool explain = false) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_pods = static_cast<int>(state.range(1));
  for (auto _ : state) {
    state.PauseTiming();
    InstantWriter writer;
    std::optional<scheduler::ExplainRecords> records;
    std::vector<scheduler::AttemptObserver*> observers;
    if (explain) observers.push_back(&records.emplace());
    auto s = scheduler::Scheduler::Create(
        {.config = cfg, .writer = &writer, .seed = 1, .observers = std::move(observers)}, registry);
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
                         .Req("cpu", cpu)
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
    if (records) {
      state.counters["explain_records"] = static_cast<double>(records->records());
      state.counters["explain_MiB"] = static_cast<double>(records->bytes()) / (1 << 20);
    }
    s->reset();
    state.ResumeTiming();
  }
}

void BM_SchedulePods(benchmark::State& state) {
  SchedulePods(state, plugins::NewInTreeRegistry(), config::DefaultConfiguration());
}

// What `ksched explain`'s records cost (range(2): 0 without them, 1 with): 10000 pods that fit
// (100m, range(3) 0), the scheduling cycle's extra CPU; or 10000 pods that fit nowhere (8 CPU,
// range(3) 1), each tried once, and the memory their records take (explain_MiB as counted, and
// bytes_per_pod: the heap that grew per attempt, records and pending pods' queue entries alike).
void BM_Explain(benchmark::State& state) {
  SchedulePods(state, plugins::NewInTreeRegistry(), config::DefaultConfiguration(),
               state.range(3) != 0 ? "8" : "100m", state.range(2) != 0);
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
  absl::Status st = from_library ? cli::LoadPluginLibrary(TEAM_FILTER_LIBRARY, registry)
                                 : ksched_plugin_library_v1()->register_plugins(registry);
  if (!st.ok()) {
    state.SkipWithError(std::string(st.message()).c_str());
    return;
  }
  SchedulePods(state, registry, WithTeamFilter());
}

// Schedules every pending pod of `objects` on a new embedded cluster and scheduler, with the
// workload's GenericWorkload and TopologyAwareWorkloadScheduling gates; returns the cluster's pods
// afterwards. With `state`, the scheduling is measured.
absl::StatusOr<std::vector<std::shared_ptr<const api::Pod>>> RunCluster(
    const Workload& w, std::vector<api::Object> objects, benchmark::State* state) {
  sim::Cluster cluster(std::move(objects));
  FakeClock clock(absl::Now());
  const bool groups = !w.group_sizes.empty();
  auto s = scheduler::Scheduler::Create(
      {.writer = &cluster,
       .clock = &clock,
       .seed = 1,
       .generic_workload = groups,
       .topology_aware_workload_scheduling = w.racks},
      plugins::NewInTreeRegistry(
          {.generic_workload = groups, .topology_aware_workload_scheduling = w.racks}));
  if (!s.ok()) return s.status();
  cluster.Start(**s);
  if (state != nullptr) state->ResumeTiming();
  const double cpu0 = ProcessCpuSeconds();
  int attempts = 0;
  // A pod in backoff (a gang waiting for its victims to go) is tried at once when the others are
  // done: the clock jumps to its backoff's end, as `ksched simulate` does, until a jump brings
  // nothing new.
  auto bound_pods = [&cluster] {
    const std::vector<std::shared_ptr<const api::Pod>> pods = cluster.Pods();
    return std::count_if(pods.begin(), pods.end(),
                         [](const auto& p) { return p != nullptr && !p->spec.node_name.empty(); });
  };
  for (ptrdiff_t before = -1; before != bound_pods();) {
    before = bound_pods();
    for (; (*s)->ScheduleOne(); ++attempts) cluster.Deliver(**s);
    cluster.Deliver(**s);
    const absl::Time next = (*s)->queue().NextBackoffExpiry();
    if (next == absl::InfiniteFuture()) break;
    clock.Set(std::max(next, clock.Now()));
    (*s)->queue().FlushBackoffQCompleted();
  }
  const double cpu = ProcessCpuSeconds() - cpu0;
  if (state == nullptr) return cluster.Pods();
  state->PauseTiming();
  int measured = 0, bound = 0;
  for (const auto& pod : cluster.Pods()) {
    if (pod == nullptr || !pod->metadata.name.starts_with("measure-")) continue;
    ++measured;
    bound += pod->spec.node_name.empty() ? 0 : 1;
  }
  state->counters["pods"] = bound;
  state->counters["unscheduled"] = measured - bound;
  state->counters["attempts"] = attempts;
  state->counters["evicted"] = static_cast<double>(cluster.Evicted().size());
  state->counters["pods_per_s"] = benchmark::Counter(bound, benchmark::Counter::kIsRate);
  state->counters["cpu_ns_per_pod"] = cpu * 1e9 / std::max(bound, 1);
  return cluster.Pods();
}

// The init pods are scheduled first, unmeasured; then the measured ones join them.
absl::Status RunWorkload(benchmark::State& state, const Workload& w) {
  absl::StatusOr<bench::WorkloadObjects> o = bench::MakeObjects(w);
  if (!o.ok()) return o.status();
  absl::StatusOr<std::vector<api::Object>> first =
      bench::Decode({&o->setup, &o->nodes, &o->storage, &o->init_pods});
  if (!first.ok()) return first.status();
  absl::StatusOr<std::vector<std::shared_ptr<const api::Pod>>> placed =
      RunCluster(w, *std::move(first), nullptr);
  if (!placed.ok()) return placed.status();
  absl::StatusOr<std::vector<api::Object>> cluster =
      bench::Decode({&o->setup, &o->nodes, &o->storage, &o->measure_pods});
  if (!cluster.ok()) return cluster.status();
  for (const auto& pod : *placed) {
    if (pod != nullptr) cluster->emplace_back(*pod);
  }
  return RunCluster(w, *std::move(cluster), &state).status();
}

void BM_Workload(benchmark::State& state, const Workload& w) {
  for (auto _ : state) {
    state.PauseTiming();
    if (absl::Status st = RunWorkload(state, w); !st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
    state.ResumeTiming();
  }
}

// How cost grows with the cluster: the same 10000 pods on 500, 5000 and 15000 nodes.
BENCHMARK(BM_SchedulePods)
    ->Args({500, 10000})
    ->Args({5000, 10000})
    ->Args({15000, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK(BM_Explain)
    ->ArgNames({"nodes", "pods", "explain", "pending"})
    ->Args({5000, 10000, 0, 0})
    ->Args({5000, 10000, 1, 0})
    ->Args({5000, 10000, 0, 1})
    ->Args({5000, 10000, 1, 1})
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

// scheduler_perf's workloads, as BM_Workload/<name>; the churn of SchedulingWithMixedChurn, the
// volume and DRA workloads' claims and the Coscheduling ones' PodGroups are API objects, so those
// run only side by side.
void RegisterWorkloads() {
  for (const Workload& w : PerfWorkloads()) {
    if (w.churn || !w.volumes.empty() || !w.devices.empty() || w.coscheduling) continue;
    benchmark::RegisterBenchmark(("BM_Workload/" + w.name).c_str(), BM_Workload, w)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace ksched

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ksched::RegisterWorkloads();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
