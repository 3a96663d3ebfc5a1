// The structured-parameters allocator of DynamicResources, as upstream's
// k8s.io/dynamic-resource-allocation/structured ("incubating", the variant 1.37's default feature
// gates select): for one node, finds devices of the ResourceSlices that reach it for every request
// of a pod's unallocated claims, by an exhaustive search in upstream's order (pools by driver and
// name, slices by name, devices as listed), so that it picks the devices upstream picks.
//
//   auto slices = std::make_shared<const SliceIndex>(dra_lister.ListResourceSlices());
//   Allocator allocator(dra_lister, slices, {.allocated = dra_lister.Allocated(),
//                                            .pending = tracker.Pending()}, selectors, &memo);
//   absl::StatusOr<Allocator::Outcome> out = allocator.Allocate(node_ptr, claims);
//   if (!out.ok()) ...  // a broken claim or class: upstream's fatal error, word for word
//   if (out->fits) {  // On the node the pod goes to:
//     std::vector<api::AllocationResult> allocations =
//         Allocator::Results(*out->choice, claims, node_ptr->metadata.name);
//     ... allocations[i] ...  // one per claim
//   }
//
// Covered: ExactCount and All, firstAvailable lists, admin access, device taints and the requests'
// tolerations, matchAttribute constraints, per-device node selection, partitionable devices (the
// pool's counter sets, in whichever of its slices, and the counters its devices consume, in use or
// chosen), consumable capacity (devices shared by several allocations up to their capacities, the
// requests' capacity and its policies, distinctAttribute constraints; capacity.h), class and claim
// configs in the result, the allocation's node selector. Not covered, so that nothing is placed as
// if they were absent: binding conditions, compatibility groups. A pool that uses them is not
// allocated from, and a node that could only serve the claims from such a pool says so
// (Outcome::node_failure). Device selectors are evaluated
// by upstream's CEL (ksched/cel.h), once per expression and slice version (SelectorCache).
//
// Thread safety: Allocate may be called from several threads at once; SliceIndex and
// SelectorCache are safe from any thread; SearchMemo::Begin must not run with Allocate.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "ksched/cel.h"
#include "ksched/dra_lister.h"
#include "src/plugins/dynamic_resources/capacity.h"
#include "src/plugins/helper/dra_extended.h"
#include "src/plugins/helper/selector_cache.h"

namespace ksched::plugins::dynamic_resources {

// A device, by driver, pool and name, as the slices name it.
struct DeviceView {
  std::string_view driver, pool, device;
};

using helper::HeldInPool;
using helper::HeldViews;
using helper::SelectorCache;

struct Pool;  // pools.h

// The slices as allocators read them, made once per version of the slices
// (DraLister::DevicesGeneration) and shared by every pod's allocator: which slices reach which
// node, and each node's pools (upstream's GatherPools), gathered the first time a node is asked
// for and kept while its labels stay as they were.
class SliceIndex {
 public:
  explicit SliceIndex(std::vector<std::shared_ptr<const api::ResourceSlice>> slices);
  ~SliceIndex();
  // The pools of the slices that reach `node`, by driver and name.
  std::shared_ptr<const std::vector<Pool>> PoolsFor(const api::Node& node) const;

 private:
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices_;
  // Slices of one node, and those that are not of one node (node selectors, all nodes, per-device
  // node selection, shared counters).
  std::map<std::string, std::vector<const api::ResourceSlice*>, std::less<>> on_node_;
  std::vector<const api::ResourceSlice*> shared_;
  struct OfNode {
    api::StringMap labels;
    std::shared_ptr<const std::vector<Pool>> pools;
  };
  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<std::string, OfNode> by_node_ ABSL_GUARDED_BY(mu_);
};

// What a search chose on one node for each claim: the devices, and which alternative of each
// request. It holds no claim, so that it serves every claim of the same spec (SearchMemo); it
// points into the slices, and keeps their index alive.
struct Choice {
  struct Request {
    bool sub = false;        // A firstAvailable alternative, not `exactly`.
    size_t alternative = 0;  // Its index in firstAvailable.
    std::shared_ptr<const api::DeviceClass> device_class;
  };
  struct Device {
    size_t request = 0;  // In `requests` of its claim.
    DeviceView id;
    const api::Device* device = nullptr;
    const api::ResourceSlice* slice = nullptr;
    // Consumable capacity: a share of a device that allows multiple allocations, and what it
    // consumes of each of the device's capacities.
    bool shared = false;
    Amounts consumed;
  };
  std::vector<std::vector<Request>> requests;  // Per claim, per request of its spec.
  std::vector<std::vector<Device>> devices;    // Per claim, in the order they were found.
  std::shared_ptr<const SliceIndex> slices;
};

// What the shares of the device that `held` holds consume, added to *out.
void AddConsumed(const HeldInPool& held, std::string_view device, Amounts* out);

class SearchMemo;

// The gates an Allocator's search decides by (the slices show the others, ForGates).
struct AllocatorFeatures {
  bool consumable_capacity = true;         // DRAConsumableCapacity
  bool fractional_capacity_range = false;  // DRAFractionalCapacityRange
};

class Allocator {
 public:
  // In use: the devices of `held`, as they were when it was taken (upstream's PreFilter takes
  // its snapshot of the allocated devices too). With a memo (SearchMemo::Begin called for the
  // same claims), a node whose pools and devices in use are as they were for the memo's last
  // search there is not searched again.
  using Features = AllocatorFeatures;
  Allocator(const DraLister& classes, std::shared_ptr<const SliceIndex> slices, HeldViews held,
            SelectorCache& selectors, SearchMemo* memo = nullptr, Features features = {});

  struct Outcome {
    bool fits = false;
    std::shared_ptr<const Choice> choice;  // When it fits.
    // When it does not fit: why this node in particular cannot serve the claims, where that is
    // not "cannot allocate all claims" (upstream's ErrFailedAllocationOnNode).
    std::string node_failure;
    // When it does not fit and `explain` was asked: per request, how many of the node's devices
    // match it and are free, and what keeps the others ("claim default/gpu, request gpu: 2
    // wanted, 1 of the node's 4 devices matches and is free (2 in use, 1 does not match)").
    std::string why;
    // The memo had it: Kept gives its choice back until the memo's next Begin.
    bool memoized = false;
  };
  // The allocations of `claims` (all unallocated) for `node`. Errors: InvalidArgument, a broken
  // claim or class (upstream's fatal errors: the pod's attempt ends in an error);
  // FailedPrecondition, a selector to evaluate and no CEL library; DeadlineExceeded, the search
  // went on for longer than `timeout`. The memo is used only with `memoize`, for claims of the
  // specs its Begin was given.
  absl::StatusOr<Outcome> Allocate(const std::shared_ptr<const api::Node>& node,
                                   const std::vector<const api::ResourceClaim*>& claims,
                                   bool explain = false,
                                   absl::Duration timeout = absl::InfiniteDuration(),
                                   bool memoize = true) const;

  // The allocations of `claims` (those the choice was made for, or claims of the same specs), one
  // per claim, in order, on the node `node`: the devices, the classes' and the claims' configs,
  // and the node selector. Made only for the node the pod goes to.
  static std::vector<api::AllocationResult> Results(
      const Choice& choice, const std::vector<const api::ResourceClaim*>& claims,
      std::string_view node);

  // The choice of a memoized outcome (Outcome::memoized) on the node `node` that fits; nullptr
  // when there is none.
  std::shared_ptr<const Choice> Kept(std::string_view node) const;

 private:
  friend class Search;
  // The devices of `pool` in use.

  const DraLister& classes_;
  std::shared_ptr<const SliceIndex> slices_;
  HeldViews held_;
  SelectorCache& selectors_;
  SearchMemo* memo_;
  Features features_;
};

// What searches found on each node for claims of one list of specs, each kept while the node's
// pools and their devices in use are those the search saw: the same Node object and SliceIndex,
// and the same devices in use in each pool. Pods made from one template ask the same of every
// node, and between two of them only the nodes where devices were taken or freed changed. Errors,
// timeouts and explained searches are not kept.
//
// A pod's Filter asks it for every node from several threads at once, so a node's entry is told
// valid or not without reading the entry, nor taking a lock: each Begin drops the entries of the
// nodes whose pools' devices in use changed since the last one (few: a view of every pool's is
// compared with the last), and what searches keep during one pod's cycle joins the rest at the
// next pod's Begin. Begin must not run while Allocate does (it runs at PreFilter, on the
// scheduling thread), and the pod's Allocator must see the slices and devices in use Begin was
// given.
class SearchMemo {
 public:
  // For the claims of the next pod, searched in `slices` with the devices in use `held`: what was
  // kept for claims of other specs, or for other slices (which no node could use again, and which
  // it would keep alive), goes, and so does what was kept where devices in use changed.
  void Begin(const std::vector<const api::ResourceClaim*>& claims,
             const std::shared_ptr<const SliceIndex>& slices, const HeldViews& held);
  // Whether it keeps searches for claims of these specs in these slices.
  bool Holds(const std::vector<const api::ResourceClaim*>& claims, const SliceIndex* slices);
  // Forgets what it keeps unless it was searched in `slices`: what an older SliceIndex's searches
  // keep, no node can use again, and it would keep that index alive.
  void ForgetUnless(const SliceIndex* slices);

 private:
  friend class Allocator;
  struct Entry {
    std::shared_ptr<const api::Node> node;
    std::shared_ptr<const SliceIndex> slices;
    std::shared_ptr<const std::vector<Pool>> pools;
    Allocator::Outcome outcome;
  };
  // What Filter needs of an entry, without reading it: its node, and whether it fits (kFits) or
  // does not with nothing to say (kDoesNotFit, "cannot allocate all claims").
  struct Slot {
    enum class Plain : uint8_t { kNo, kFits, kDoesNotFit };
    const api::Node* node = nullptr;
    Plain plain = Plain::kNo;
    std::shared_ptr<const Entry> entry;
  };
  // The slot of `node` as of the last Begin, alive until the next; nullptr when none.
  const Slot* Find(std::string_view node) const;
  void Keep(std::shared_ptr<const Entry> entry);
  // Drops the entries of the nodes that read a pool whose devices in use differ in `now`.
  void ForgetChanged(const HeldViews& now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HoldsLocked(const std::vector<const api::ResourceClaim*>& claims, const SliceIndex* slices)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ClearLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::vector<api::ResourceClaimSpec> specs_ ABSL_GUARDED_BY(mu_);
  const SliceIndex* slices_ ABSL_GUARDED_BY(mu_) = nullptr;  // Only compared.
  HeldViews held_ ABSL_GUARDED_BY(mu_);                      // The last Begin's.
  // By the name of the node the entry holds; changed only by Begin, read by Find without a lock.
  absl::flat_hash_map<std::string_view, Slot> by_node_;
  // The nodes whose entries read a pool, by "driver/pool".
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> by_pool_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const Entry>> kept_ ABSL_GUARDED_BY(mu_);  // Since the last Begin.
};

// Whether a device toleration tolerates a device taint (upstream's resourceclaim.ToleratesTaint).
bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);

}  // namespace ksched::plugins::dynamic_resources
