// Coscheduling: scheduler-plugins' gang plugin (sigs.k8s.io/scheduler-plugins, pkg/coscheduling,
// as of v0.34.7), for the clusters that place gangs with its PodGroup CRD
// (scheduling.x-k8s.io/v1alpha1) today. A pod joins the group its label
// scheduling.x-k8s.io/pod-group names, in its own namespace; the group's pods bind only once
// minMember of them have a node, or none does.
//
//   profiles:
//   - schedulerName: default-scheduler
//     plugins:
//       multiPoint: {enabled: [{name: Coscheduling}]}
//       queueSort: {enabled: [{name: Coscheduling}], disabled: [{name: "*"}]}
//     pluginConfig:
//     - name: Coscheduling
//       args: {permitWaitingTimeSeconds: 10, podGroupBackoffSeconds: 0, podGroupRejectPercentage:
//       10}
//
// Its extension points, as scheduler-plugins has them:
// - QueueSort: priority first, then the group's creation (or last failure) time, so that a
//   group's pods come one after another, then "namespace/name".
// - PreFilter (UnschedulableAndUnresolvable, so nothing is preempted for it): the group backed off,
//   fewer than minMember of its pods exist, too many of them are gated, or the cluster lacks the
//   group's minResources ("resource gap: ...").
// - PostFilter: when a pod of the group does not fit and the group is short by more than
//   podGroupRejectPercentage of minMember, the group's waiting pods are rejected and the group
//   backs off for podGroupBackoffSeconds.
// - Permit: a pod waits (up to the group's scheduleTimeoutSeconds, else permitWaitingTimeSeconds)
//   until minMember of the group have a node; then all are allowed. The first to wait brings its
//   siblings back to the active queue.
// - Reserve/Unreserve: a pod that fails after Permit rejects its waiting siblings.
//
// The PodGroup's status is not written here: scheduler-plugins' controller writes it.
//
// Thread safety: every method may be called from any thread; the plugin's state has one lock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/custom_objects.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/registry.h"
#include "nlohmann/json.hpp"

namespace ksched::coscheduling {

inline constexpr char kName[] = "Coscheduling";
// The label that names a pod's group, and the group's custom resource.
inline constexpr char kPodGroupLabel[] = "scheduling.x-k8s.io/pod-group";
inline constexpr char kPodGroupResource[] = "podgroups.v1alpha1.scheduling.x-k8s.io";

// CoschedulingArgs (kubescheduler.config.k8s.io/v1), with v1's defaults.
struct CoschedulingArgs {
  int64_t permit_waiting_time_seconds = 60;
  int64_t pod_group_backoff_seconds = 0;
  int32_t pod_group_reject_percentage = 10;
};

absl::StatusOr<CoschedulingArgs> ParseCoschedulingArgs(const nlohmann::json& args,
                                                       std::string_view path = "");
nlohmann::json CoschedulingArgsToJson(const CoschedulingArgs& args);

// The custom resource, with the checks of the CRD's schema (for `ksched simulate`).
CustomResource PodGroupResource();

// A PodGroup's spec, as the plugin reads it.
struct PodGroupSpec {
  int32_t min_member = 0;
  // minResources as written ("cpu" → "2"); none: nullopt.
  std::optional<std::map<std::string, std::string>> min_resources;
  std::optional<int32_t> schedule_timeout_seconds;
  absl::Time creation = absl::InfinitePast();
};

class Coscheduling final : public QueueSortPlugin,
                           public PreFilterPlugin,
                           public PostFilterPlugin,
                           public ReservePlugin,
                           public PermitPlugin,
                           public EnqueueExtensions {
 public:
  Coscheduling(CoschedulingArgs args, Handle& handle);

  std::string_view Name() const override { return kName; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override;
  Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) override;
  void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) override;
  Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                absl::Duration* timeout) override;
  // Pod Add, and the PodGroup's Add and Update, with no hint (scheduler-plugins gives none).
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  // The pod's group: "" when it has no label; its key "namespace/name" and, if the PodGroup
  // exists, its spec.
  struct Group {
    std::string key;
    std::string name;
    std::optional<PodGroupSpec> spec;
  };
  Group GroupOf(const api::Pod& pod) const;
  // The pods of the namespace with the group's label.
  std::vector<std::shared_ptr<const api::Pod>> Members(std::string_view ns,
                                                       std::string_view group) const;
  // How many of the group's pods have a node or passed Permit (scheduler-plugins'
  // assignedPodsByPG): those Permit counted that still exist, and those bound.
  size_t AssignedLocked(const Group& g, std::string_view ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rejects the waiting pods of the group with `message`.
  void RejectWaiting(std::string_view ns, std::string_view group, const std::string& message);
  absl::Time CreationTimestamp(const QueuedPodInfo& info) const;
  // Whether the cluster has the group's minResources (with minMember pods) free, counting the
  // nodes without the group's own pods; "resource gap: map[...]" otherwise.
  Status CheckClusterResource(const std::vector<const NodeInfo*>& nodes, const Group& g) const;

  const CoschedulingArgs args_;
  Handle& handle_;
  const PodLister& pods_;
  const CustomObjectLister& groups_;
  mutable absl::Mutex mu_;
  // By group key: until when a group passed minResources (permittedPG) or backs off
  // (backedOffPG); when it last failed (lastFailedSchedulePG); the names of its pods Permit let
  // through or held (assignedPodsByPG).
  std::map<std::string, absl::Time, std::less<>> permitted_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Time, std::less<>> backed_off_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Time, std::less<>> last_failed_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> assigned_
      ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::unique_ptr<Plugin>> New(const CoschedulingArgs& args, Handle& handle);

// Registers Coscheduling with its args decoder.
absl::Status Register(Registry& registry);

}  // namespace ksched::coscheduling
