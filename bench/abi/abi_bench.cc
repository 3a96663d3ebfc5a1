// What each way of calling a plugin library's Filter costs per call (abi.h), on 5000 nodes with
// a dozen labels each, all or half of them of the pod's team: today's C++ ABI, opaque handles with
// an accessor table, and append-only views; and what keeping a view costs per node change. Then the
// stable ABI as built (ksched/stable.h, the opaque handles' way), through ksched's adapter. The
// plugin is a shared library (abi_plugin.cc), so that no call is inlined. `make bench-abi`.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/abi/abi.h"
#include "ksched/cycle_state.h"
#include "ksched/plugin.h"
#include "src/sdk/stable.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched {
namespace {

constexpr int kNodes = 5000;

// The plugin library's three entry points.
struct LibraryEntries {
  FilterPlugin* (*new_team_fit)() = nullptr;
  ksched_filter_handles_fn filter_handles = nullptr;
  ksched_filter_views_fn filter_views = nullptr;
  const ksched_stable_library* (*stable)() = nullptr;
};

const LibraryEntries& Library() {
  static const LibraryEntries plugin = [] {
    void* so = dlopen(ABI_PLUGIN_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (so == nullptr) {
      std::fprintf(stderr, "abi_bench: %s\n", dlerror());
      std::exit(1);
    }
    return LibraryEntries{
        .new_team_fit = reinterpret_cast<FilterPlugin* (*)()>(dlsym(so, "abi_new_team_fit")),
        .filter_handles =
            reinterpret_cast<ksched_filter_handles_fn>(dlsym(so, "abi_filter_handles")),
        .filter_views = reinterpret_cast<ksched_filter_views_fn>(dlsym(so, "abi_filter_views")),
        .stable = reinterpret_cast<const ksched_stable_library* (*)()>(
            dlsym(so, KSCHED_STABLE_ENTRY_POINT))};
  }();
  return plugin;
}

// A node as clusters label them, of team "a" (the pod's) or "b", with 4 cpus of which 3 are
// requested.
std::unique_ptr<NodeInfo> MakeNodeInfo(int i, bool of_the_team) {
  auto node = testing::MakeNode()
                  .Name("node-" + std::to_string(i))
                  .Label("kubernetes.io/hostname", "node-" + std::to_string(i))
                  .Label("kubernetes.io/os", "linux")
                  .Label("kubernetes.io/arch", "amd64")
                  .Label("topology.kubernetes.io/region", "europe-west1")
                  .Label("topology.kubernetes.io/zone", "europe-west1-" + std::to_string(i % 3))
                  .Label("node.kubernetes.io/instance-type", "n2-standard-4")
                  .Label("beta.kubernetes.io/os", "linux")
                  .Label("beta.kubernetes.io/arch", "amd64")
                  .Label("cloud.google.com/gke-nodepool", "pool-" + std::to_string(i % 7))
                  .Label("cloud.google.com/machine-family", "n2")
                  .Label("team", of_the_team ? "a" : "b")
                  .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}})
                  .Ptr();
  auto info = std::make_unique<NodeInfo>();
  info->SetNode(node);
  info->AddPod(
      PodInfo::Make(testing::MakePod().Name("used-" + std::to_string(i)).Req("cpu", "3").Ptr()));
  return info;
}

// kNodes nodes, of which `rejected_percent` are of another team than the pod's: a rejection
// costs a Status made in either ABI, so the calls are measured with none and with half rejected.
struct Cluster {
  std::vector<std::unique_ptr<NodeInfo>> nodes;
  std::shared_ptr<const api::Pod> pod;
  explicit Cluster(int rejected_percent) {
    for (int i = 0; i < kNodes; ++i) {
      nodes.push_back(MakeNodeInfo(i, i * 100 / kNodes >= rejected_percent));
    }
    pod = testing::MakePod().Name("web").Label("app", "web").Label("team", "a").Ptr();
  }
};
const Cluster& TheCluster(int rejected_percent) {
  static const Cluster none(0), half(50);
  return rejected_percent == 0 ? none : half;
}

// --- Today's C++ ABI ---------------------------------------------------------------------------

void BM_CppAbi(benchmark::State& st) {
  const Cluster& c = TheCluster(static_cast<int>(st.range(0)));
  std::unique_ptr<FilterPlugin> plugin(Library().new_team_fit());
  CycleState state;
  int64_t fit = 0;
  for (auto _ : st) {
    for (const auto& n : c.nodes) fit += plugin->Filter(state, *c.pod, *n).ok();
  }
  benchmark::DoNotOptimize(fit);
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_CppAbi)->ArgName("rejected%")->Arg(0)->Arg(50);

// --- Opaque handles ------------------------------------------------------------------------------

// What a handle points to: a pod or a node, which only the host reads.
struct HostObject {
  const api::ObjectMeta* meta;
  const NodeInfo* node;  // nullptr for a pod.
};
const HostObject* Host(const ksched_object* o) { return reinterpret_cast<const HostObject*>(o); }
const ksched_object* Handle(const HostObject* o) {
  return reinterpret_cast<const ksched_object*>(o);
}

const ksched_host_v1 kHost = {
    .size = sizeof(ksched_host_v1),
    .label =
        [](const ksched_object* o, const char* key, size_t key_len, const char** value,
           size_t* value_len) {
          const api::StringMap& labels = Host(o)->meta->labels;
          auto it = labels.find(std::string_view(key, key_len));
          if (it == labels.end()) return false;
          *value = it->second.data();
          *value_len = it->second.size();
          return true;
        },
    .allocatable_milli_cpu =
        [](const ksched_object* o) { return Host(o)->node->allocatable().milli_cpu; },
    .requested_milli_cpu =
        [](const ksched_object* o) { return Host(o)->node->requested().milli_cpu; }};

// The host's side of a call: a rejection becomes the Status the framework goes on with.
Status FromC(int code, const char* reason) {
  return code == 0 ? Status() : Status::Unschedulable(reason);
}

void BM_OpaqueHandles(benchmark::State& st) {
  const Cluster& c = TheCluster(static_cast<int>(st.range(0)));
  const ksched_filter_handles_fn filter = Library().filter_handles;
  const HostObject pod{.meta = &c.pod->metadata, .node = nullptr};
  std::vector<HostObject> nodes;
  for (const auto& n : c.nodes) nodes.push_back({.meta = &n->node()->metadata, .node = n.get()});
  int64_t fit = 0;
  for (auto _ : st) {
    for (const HostObject& n : nodes) {
      const char* reason = nullptr;
      const int code = filter(&kHost, Handle(&pod), Handle(&n), &reason);
      fit += FromC(code, reason).ok();
    }
  }
  benchmark::DoNotOptimize(fit);
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_OpaqueHandles)->ArgName("rejected%")->Arg(0)->Arg(50);

// --- Append-only views ---------------------------------------------------------------------------

// A view and what it points into; the host keeps one per object and makes it again when the
// object changes.
struct KeptView {
  std::vector<ksched_kv> labels;
  ksched_object_view_v1 view{};

  KeptView(const api::ObjectMeta& meta, const NodeInfo* node) {
    labels.reserve(meta.labels.size());
    for (const auto& [k, v] : meta.labels) {  // A std::map: already sorted.
      labels.push_back(
          {k.data(), static_cast<uint32_t>(k.size()), v.data(), static_cast<uint32_t>(v.size())});
    }
    view = {.size = sizeof(ksched_object_view_v1),
            .labels = labels.data(),
            .label_count = static_cast<uint32_t>(labels.size()),
            .allocatable_milli_cpu = node ? node->allocatable().milli_cpu : 0,
            .requested_milli_cpu = node ? node->requested().milli_cpu : 0};
  }
};

void BM_AppendOnlyViews(benchmark::State& st) {
  const Cluster& c = TheCluster(static_cast<int>(st.range(0)));
  const ksched_filter_views_fn filter = Library().filter_views;
  const KeptView pod(c.pod->metadata, nullptr);
  std::vector<KeptView> nodes;
  nodes.reserve(c.nodes.size());
  for (const auto& n : c.nodes) nodes.emplace_back(n->node()->metadata, n.get());
  int64_t fit = 0;
  for (auto _ : st) {
    for (const KeptView& n : nodes) {
      const char* reason = nullptr;
      const int code = filter(&pod.view, &n.view, &reason);
      fit += FromC(code, reason).ok();
    }
  }
  benchmark::DoNotOptimize(fit);
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_AppendOnlyViews)->ArgName("rejected%")->Arg(0)->Arg(50);

// What keeping views costs the host: one made again per node change (the bytes it holds, too).
void BM_AppendOnlyViewsRemake(benchmark::State& st) {
  const Cluster& c = TheCluster(0);
  size_t i = 0;
  for (auto _ : st) {
    const NodeInfo& n = *c.nodes[i++ % c.nodes.size()];
    KeptView v(n.node()->metadata, &n);
    benchmark::DoNotOptimize(v.view);
  }
  st.counters["bytes_per_node"] =
      sizeof(KeptView) + c.nodes[0]->node()->metadata.labels.size() * sizeof(ksched_kv);
}
BENCHMARK(BM_AppendOnlyViewsRemake);

// --- The stable ABI as built --------------------------------------------------------------------

void BM_StableAbi(benchmark::State& st) {
  const Cluster& c = TheCluster(static_cast<int>(st.range(0)));
  Registry registry;
  if (absl::Status s = stable::RegisterLibrary(*Library().stable(), registry); !s.ok()) {
    st.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  testing::FakeHandle handle;
  absl::StatusOr<std::unique_ptr<Plugin>> plugin =
      registry.Find("TeamFit")->factory(JsonArgs(), handle);
  FilterPlugin* filter = PluginAs<FilterPlugin>(plugin->get());
  CycleState state;
  int64_t fit = 0;
  for (auto _ : st) {
    for (const auto& n : c.nodes) fit += filter->Filter(state, *c.pod, *n).ok();
  }
  benchmark::DoNotOptimize(fit);
  st.SetItemsProcessed(st.iterations() * kNodes);
}
BENCHMARK(BM_StableAbi)->ArgName("rejected%")->Arg(0)->Arg(50);

}  // namespace
}  // namespace ksched

BENCHMARK_MAIN();
