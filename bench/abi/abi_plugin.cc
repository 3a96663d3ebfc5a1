// The plugin side of `make bench-abi` (abi.h): TeamFilter's check (a pod labelled team=X fits only
// a node labelled team=X) and a CPU fit, written once for each way a plugin could see the call,
// built as a shared library so that no call is inlined into the host.
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "bench/abi/abi.h"
#include "ksched/plugin.h"
#include "ksched/stable.h"

namespace {

constexpr int64_t kPodMilliCpu = 100;

// Today's: a FilterPlugin reading the objects directly.
class TeamFit : public ksched::FilterPlugin {
 public:
  std::string_view Name() const override { return "TeamFit"; }
  ksched::Status Filter(const ksched::CycleState&, const ksched::api::Pod& pod,
                        const ksched::NodeInfo& node) override {
    auto team = pod.metadata.labels.find("team");
    if (team != pod.metadata.labels.end()) {
      auto on_node = node.node()->metadata.labels.find("team");
      if (on_node == node.node()->metadata.labels.end() || on_node->second != team->second) {
        return ksched::Status::UnschedulableAndUnresolvable("node(s) didn't belong to the team");
      }
    }
    if (node.allocatable().milli_cpu - node.requested().milli_cpu < kPodMilliCpu) {
      return ksched::Status::Unschedulable("Insufficient cpu");
    }
    return {};
  }
};

bool ViewLabel(const ksched_object_view_v1* v, std::string_view key, std::string_view* value) {
  size_t lo = 0, hi = v->label_count;  // Binary search of the sorted labels.
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const std::string_view k(v->labels[mid].key, v->labels[mid].key_len);
    if (k == key) {
      *value = std::string_view(v->labels[mid].value, v->labels[mid].value_len);
      return true;
    }
    if (k < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

}  // namespace

#define ABI_EXPORT __attribute__((visibility("default")))

extern "C" {

ABI_EXPORT ksched::FilterPlugin* abi_new_team_fit() { return new TeamFit(); }

ABI_EXPORT int abi_filter_handles(const ksched_host_v1* host, const ksched_object* pod,
                                  const ksched_object* node, const char** reason) {
  const char *team, *on_node;
  size_t team_len, on_node_len;
  if (host->label(pod, "team", 4, &team, &team_len) &&
      (!host->label(node, "team", 4, &on_node, &on_node_len) ||
       std::string_view(team, team_len) != std::string_view(on_node, on_node_len))) {
    *reason = "node(s) didn't belong to the team";
    return 1;
  }
  if (host->allocatable_milli_cpu(node) - host->requested_milli_cpu(node) < kPodMilliCpu) {
    *reason = "Insufficient cpu";
    return 1;
  }
  return 0;
}

ABI_EXPORT int abi_filter_views(const ksched_object_view_v1* pod, const ksched_object_view_v1* node,
                                const char** reason) {
  std::string_view team, on_node;
  if (ViewLabel(pod, "team", &team) && (!ViewLabel(node, "team", &on_node) || team != on_node)) {
    *reason = "node(s) didn't belong to the team";
    return 1;
  }
  if (node->allocatable_milli_cpu - node->requested_milli_cpu < kPodMilliCpu) {
    *reason = "Insufficient cpu";
    return 1;
  }
  return 0;
}

}  // extern "C"

// The same check on the stable ABI as built (ksched/stable.h), through ksched's adapter.
namespace {

const ksched_host* stable_host = nullptr;

int32_t StableFilter(void*, const ksched_cycle_state*, const ksched_pod* pod,
                     const ksched_node_info* node, ksched_status* status) {
  const ksched_host* h = stable_host;
  const ksched_str key = {"team", 4}, cpu = {"cpu", 3};
  ksched_str team, on_node;
  const ksched_node* n = h->node_info_node(node);
  if (h->meta_label(h->pod_meta(pod), key, &team) &&
      (!h->meta_label(h->node_meta(n), key, &on_node) ||
       std::string_view(team.data, team.size) != std::string_view(on_node.data, on_node.size))) {
    h->status_add_reason(status, {"node(s) didn't belong to the team", 33});
    return KSCHED_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (h->node_info_allocatable(node, cpu) - h->node_info_requested(node, cpu) < kPodMilliCpu) {
    h->status_add_reason(status, {"Insufficient cpu", 16});
    return KSCHED_UNSCHEDULABLE;
  }
  return KSCHED_SUCCESS;
}

const ksched_plugin* MakeStable(const ksched_host* h, ksched_handle*, const ksched_args*,
                                ksched_status*) {
  stable_host = h;
  static const ksched_plugin plugin = {.size = sizeof(ksched_plugin), .filter = StableFilter};
  return &plugin;
}

}  // namespace

KSCHED_STABLE_PLUGINS({"TeamFit", MakeStable})
