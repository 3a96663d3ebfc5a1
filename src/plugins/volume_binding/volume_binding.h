// VolumeBinding: places a pod where its PersistentVolumeClaims can be served, and binds them there
// (upstream's plugins/volumebinding, 1.36).
//
//   - PreFilter: Skip for a pod without claims (persistentVolumeClaim or generic ephemeral
//     volumes). UnschedulableAndUnresolvable, in upstream's words, for a claim that is missing
//     (`persistentvolumeclaim "data" not found`), lost, being deleted, an ephemeral claim not made
//     for the pod, or an unbound claim of an Immediate class (`pod has unbound immediate
//     PersistentVolumeClaims`).
//   - Filter: a bound claim's PV must admit the node (its node affinity); an unbound
//     WaitForFirstConsumer claim needs a matching available PV there, or a class whose
//     provisioner can provision there (allowedTopologies, and CSIStorageCapacity where the
//     CSIDriver asks for capacity tracking). Reasons as binder.h's kErrReason*.
//   - Reserve assumes the chosen bindings (so that no other pod gets the same PV), Unreserve
//     drops them.
//   - PreBind writes them (a static PV's claimRef, a claim's selected-node annotation) and waits,
//     up to the args' bindTimeoutSeconds, until the PV controller has bound every claim.
//   - Score, with the StorageCapacityScoring feature gate only (off by default in 1.36; PreScore
//     returns Skip without it): per storage class, the args' shape at the utilization the pod's
//     claims would bring, averaged over the classes. Static bindings are scored by their PVs'
//     capacity; without any, dynamic provisions by the CSIStorageCapacity that has room for them
//     (classes whose driver tracks no capacity are left out).
//
// Thread safety: Filter runs concurrently for different nodes; the binder is thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"
#include "src/plugins/volume_binding/args.h"
#include "src/plugins/volume_binding/binder.h"

namespace ksched::plugins::volume_binding {

inline constexpr char kErrReasonUnboundImmediate[] =
    "pod has unbound immediate PersistentVolumeClaims";

class VolumeBinding final : public PreFilterPlugin,
                            public FilterPlugin,
                            public PreScorePlugin,
                            public ScorePlugin,
                            public ReservePlugin,
                            public PreBindPlugin,
                            public EnqueueExtensions,
                            public SignPlugin {
 public:
  VolumeBinding(Handle& handle, const VolumeBindingArgs& args);

  std::string_view Name() const override { return names::kVolumeBinding; }

  // Signs the volumes.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;
  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) override;
  void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) override;
  Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) override;
  // Skip when every claim of the pod is bound (or it has none).
  Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) override;

  // StorageClass Add/Update (a new class, or new allowedTopologies), PersistentVolumeClaim
  // Add/Update (one of the pod's claims), PersistentVolume Add/Update, Node Add/UpdateNodeLabel,
  // CSINode Add/Update (its migrated-plugins annotation), CSIDriver Update (capacity tracking
  // turned off for a driver of the pod's CSI volumes), CSIStorageCapacity Add/Update (a larger
  // limit), as upstream with queueing hints on.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  // Counts the error in scheduler_volume_scheduling_stage_error_total{operation} and returns it.
  Status StageFailed(std::string_view operation, const absl::Status& st);

  Handle& handle_;
  Binder binder_;
  // The storage-capacity score of a utilization in [0, 100]; null without the gate.
  std::function<int64_t(int64_t)> scorer_;
};

absl::StatusOr<std::unique_ptr<Plugin>> New(const VolumeBindingArgs& args, Handle& handle);

}  // namespace ksched::plugins::volume_binding
