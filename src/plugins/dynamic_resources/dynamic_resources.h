// DynamicResources (upstream's plugins/dynamicresources of v1.37.2, with 1.37's default feature
// gates): a pod's ResourceClaims get devices of the drivers' ResourceSlices.
//   PreEnqueue  holds back a pod whose claims do not exist yet (a template's claim not made).
//   PreFilter   checks the claims: in use by others, being allocated, a class that is missing.
//   Filter      allocated claims: their node selector, and whether their devices failed to
//               attach (binding.h) or timed out; unallocated ones: the allocator
//               (allocator.h) finds devices on the node, within the args' filterTimeout, and
//               keeps them for Reserve.
//   PostFilter  deallocates a claim that is allocated where the pod cannot go and reserved for
//               nobody else, so that the next attempt may allocate it elsewhere.
//   Score       with firstAvailable lists, prefers nodes where earlier alternatives fit.
//   Reserve     marks the node's allocations in flight: the next pods see those devices in use.
//   Unreserve   drops them, and the pod's reservations PreBind wrote.
//   PreBind     writes status.allocation and status.reservedFor (ClusterWriter); then, where a
//               device has binding conditions, waits until its driver attached it (binding.h),
//               up to the args' bindingTimeout: a failure sends the pod back to the queue.
// The pods of one pod group cycle share the allocation of a claim the first of them made
// (upstream's pending allocations). With DRAWorkloadResourceClaims, a claim a pod names with its
// PodGroup's entry is reserved for the group, once, and kept by Unreserve; a claim the
// resourceclaim controller made for the group is its pods'; PodGroupPostFilter frees the group's
// claims where none of its pods is placed.
// Messages are upstream's, word for word. A pod without claims is skipped at PreFilter, scores 0
// everywhere, and PostFilter answers Unschedulable with no reason (or "not found" when an
// earlier PreFilter rejected the pod, as upstream's CycleState does).
//
// What ksched does not support yet (the alpha fields) keeps the pods that need it pending with a
// message naming the field, never placed as if it were absent.
//
// Thread safety: Filter and Score run concurrently for different nodes; the claim tracker is
// shared by the plugin's calls on every thread.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/async_bind_plugin.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/dynamic_resources/allocator.h"
#include "src/plugins/dynamic_resources/args.h"
#include "src/plugins/dynamic_resources/binding.h"
#include "src/plugins/names.h"

namespace ksched::plugins::dynamic_resources {

// The claims as the plugin sees them (upstream's claim tracker): the informer's, or the one PreBind
// wrote until the informer has it; and the allocations Reserve made that PreBind has not written.
class ClaimTracker {
 public:
  explicit ClaimTracker(const DraLister& lister) : lister_(lister) {}
  std::shared_ptr<const api::ResourceClaim> Get(std::string_view ns, std::string_view name) const;
  // The devices that allocations the lister's claims do not show (DraLister::Allocated) hold:
  // those in flight, and those PreBind wrote that the informer has not brought yet; every pool's,
  // as one snapshot.
  std::shared_ptr<const HeldDevices::View> Pending() const;
  // Forgets what PreBind wrote that the informer has brought since (at most once per change of
  // the claims).
  void CatchUp();
  bool InFlight(std::string_view uid) const;
  // The allocation in flight for the claim, or nullptr.
  std::shared_ptr<const api::AllocationResult> InFlightAllocation(std::string_view uid) const;
  // Holds `allocated` in flight for one more pod (upstream's SignalClaimPendingAllocation): a pod
  // of the same pod group cycle may share a claim's allocation, which the first holder set.
  void Hold(std::shared_ptr<const api::ResourceClaim> allocated);
  // One holder less (upstream's MaybeRemoveClaimPendingAllocation): the allocation is no longer
  // in flight once none is left, or at once when `written` (PreBind wrote it). Whether it left.
  bool Release(std::string_view uid, bool written);
  // PreBind wrote `written` over the version `read_version`.
  void Written(api::ResourceClaim written, std::string read_version);

 private:
  std::shared_ptr<const api::ResourceClaim> Overlay(
      std::shared_ptr<const api::ResourceClaim> stored) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Counts the devices of the claim's allocation in pending_ (delta +1) or out of it (-1).
  void Count(const api::ResourceClaim& claim, int delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (claim.allocation) pending_.Count(*claim.allocation, delta);
  }
  // Drops the written claims the informer has brought.
  void ForgetCaughtUp() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const DraLister& lister_;
  mutable absl::Mutex mu_;
  struct WrittenClaim {
    std::shared_ptr<const api::ResourceClaim> claim;
    std::string read_version;
  };
  std::map<std::string, WrittenClaim, std::less<>> written_ ABSL_GUARDED_BY(mu_);  // ns/name
  struct InFlightClaim {
    std::shared_ptr<const api::ResourceClaim> claim;  // With the allocation.
    int holders = 0;
  };
  std::map<std::string, InFlightClaim, std::less<>> in_flight_ ABSL_GUARDED_BY(mu_);  // By uid.
  // The devices of in_flight_ and written_, kept with every change of those (its view made when
  // asked).
  mutable HeldDevices pending_ ABSL_GUARDED_BY(mu_);
  uint64_t caught_up_ ABSL_GUARDED_BY(mu_) = 0;  // The claims' generation CatchUp last saw.
};

// The feature gates DynamicResources decides by, at their 1.37 defaults.
struct DraFeatures {
  bool device_taint_rules = true;          // DRADeviceTaintRules
  bool device_taints = true;               // DRADeviceTaints
  bool partitionable_devices = true;       // DRAPartitionableDevices
  bool consumable_capacity = true;         // DRAConsumableCapacity
  bool fractional_capacity_range = false;  // DRAFractionalCapacityRange
  bool binding_conditions = true;          // DRADeviceBindingConditions
  bool extended_resource = true;           // DRAExtendedResource
  bool workload_resource_claims = false;   // DRAWorkloadResourceClaims
  // TopologyAwareWorkloadScheduling: PodGroupPostFilter leaves a group with constraints alone.
  bool topology_aware_workload_scheduling = false;
};

class DynamicResources final : public PreEnqueuePlugin,
                               public PreFilterPlugin,
                               public FilterPlugin,
                               public PostFilterPlugin,
                               public PodGroupPostFilterPlugin,
                               public ScorePlugin,
                               public ScoreExtensions,
                               public ReservePlugin,
                               public PreBindPlugin,
                               public AsyncPreBindPlugin,
                               public EnqueueExtensions,
                               public SignPlugin {
 public:
  DynamicResources(Handle& handle, const DynamicResourcesArgs& args, DraFeatures features = {})
      : handle_(handle),
        args_(args),
        features_(features),
        tracker_(handle.dra()),
        cannot_allocate_(Status::UnschedulableAndUnresolvable("cannot allocate all claims")
                             .WithPlugin(names::kDynamicResources)) {}
  std::string_view Name() const override { return names::kDynamicResources; }

  // Signs nothing; a pod with resource claims is not signed.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status PreEnqueue(const api::Pod& pod) override;
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;
  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override;
  // As PostFilter for each pod; then, with DRAWorkloadResourceClaims, where some pod freed nothing
  // and none of the group is placed: a claim available nowhere that is reserved for nobody or the
  // group alone is deallocated ("deallocation of PodGroup ResourceClaim completed"), else the
  // group's reservation of its first allocated claim goes ("ResourceClaim unreserved for
  // PodGroup", which ends the group's PodGroupPostFilter); else "deallocation and deletion of
  // ResourceClaims completed". A group with schedulingConstraints (TopologyAwareWorkloadScheduling)
  // is left alone.
  Status PodGroupPostFilter(CycleState& group_cycle, const api::PodGroup& group,
                            std::span<const api::Pod* const> pods,
                            std::span<CycleState* const> states) override;
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;
  Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) override;
  void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) override;
  // Waits for PreBindAsync.
  Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) override;
  // Writes the claims one after another through ClusterWriter::ReserveResourceClaimAsync; `done`
  // runs where the last answer arrives.
  void PreBindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                    std::function<void(Status)> done) override;
  Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  const ClaimTracker& tracker() const { return tracker_; }

 private:
  // The pod's claims, in spec.resourceClaims order (upstream's foreachPodResourceClaim), or why
  // one is not usable yet ("could not find ResourceClaim \"default/gpu\"", ...).
  // The entries of spec.resourceClaims they are for go to *entries, if given.
  absl::StatusOr<std::vector<std::shared_ptr<const api::ResourceClaim>>> PodClaims(
      const api::Pod& pod, std::vector<const api::PodResourceClaim*>* entries = nullptr) const;

  // PodGroupPostFilter's part for the group's own claims: the status it ends with, or nullopt.
  std::optional<Status> FreeGroupClaims(const api::PodGroup& group, const api::Pod& first,
                                        std::span<CycleState* const> states);

  // The slices' index at their current version (DraLister::DevicesGeneration), with the
  // DeviceTaintRules' taints on the devices they select.
  std::shared_ptr<const SliceIndex> Slices();
  // PreBind's end, once the claims are written: where a device has binding conditions, an event
  // says the pod waits, and `done` gets its status once every such device is attached (OK), one
  // failed or the args' bindingTimeout passed (Error, in upstream's words), or the scheduler
  // stops. The claims are read again as it waits. `claims` and `pod` live until then (the
  // binding cycle's state).
  // PreBind's writes for the DRA-backed extended resources (extended.h), blocking: creates
  // `claim` (into *created), writes `allocation` and the pod's reservation into it, then the
  // pod's status.extendedResourceClaimStatus with `mappings`. Errors in upstream's words.
  Status MakeExtendedClaim(const api::ResourceClaim& claim, const api::AllocationResult& allocation,
                           const std::vector<api::ContainerExtendedResourceRequest>& mappings,
                           const api::Pod& pod, std::shared_ptr<const api::ResourceClaim>* created);
  void AwaitBinding(std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                    const api::Pod& pod, std::string_view node, std::function<void(Status)> done);

  Handle& handle_;
  const DynamicResourcesArgs args_;
  const DraFeatures features_;
  ClaimTracker tracker_;
  SelectorCache selectors_;
  // A memo for each of the last kMemos lists of claim specs (pods of as many templates, or asking
  // for as many extended resources, in turn), the least recently used given to a new list.
  static constexpr size_t kMemos = 32;
  SearchMemo* MemoFor(const std::vector<const api::ResourceClaim*>& claims,
                      const SliceIndex* slices);
  std::array<SearchMemo, kMemos> memos_;
  std::array<uint64_t, kMemos> memo_used_{};  // When each was last given, by MemoFor's count.
  uint64_t memo_count_ = 0;
  const Status cannot_allocate_;
  absl::Mutex slices_mu_;
  std::shared_ptr<const SliceIndex> slices_ ABSL_GUARDED_BY(slices_mu_);
  uint64_t slices_generation_ ABSL_GUARDED_BY(slices_mu_) = 0;
  // Last: destroyed first, while what its waits use is still there.
  BindingWaiter waiter_;
};

absl::StatusOr<std::unique_ptr<Plugin>> New(const DynamicResourcesArgs& args, Handle& handle);
// The factory with these gates.
std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const DynamicResourcesArgs&, Handle&)>
MakeFactory(DraFeatures features);

// The slices as the allocator sees them: each DeviceTaintRule's taint appended to the taints of
// the devices its selector picks (upstream's slice tracker), in the rules' order; a slice no rule
// touches is shared as it is.
std::vector<std::shared_ptr<const api::ResourceSlice>> WithTaintRules(
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
    const std::vector<std::shared_ptr<const api::DeviceTaintRule>>& rules);

// The slices as the allocator sees them with these gates off, as the allocator of kube-scheduler
// v1.37.2 emulating 1.35 sees them: without DRADeviceTaints no device is tainted; without
// DRAPartitionableDevices a slice with shared counters or per-device node selection has no
// devices (it still counts for its pool's completeness), and a device that consumes counters is
// not there; without DRADeviceBindingConditions a device with binding
// conditions is not there, and bindsToNode is read as absent; without DRAConsumableCapacity
// allowMultipleAllocations and the capacities' requestPolicy are read as absent (the device is
// exclusive). A slice the gates leave as it is is shared as it is.
std::vector<std::shared_ptr<const api::ResourceSlice>> ForGates(
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices, const DraFeatures& features);

}  // namespace ksched::plugins::dynamic_resources
