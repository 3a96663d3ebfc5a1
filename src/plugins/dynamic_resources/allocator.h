// The structured-parameters allocator of DynamicResources, as upstream's
// k8s.io/dynamic-resource-allocation/structured ("incubating", the variant 1.36's default feature
// gates select): for one node, finds devices of the ResourceSlices that reach it for every request
// of a pod's unallocated claims, by an exhaustive search in upstream's order (pools by driver and
// name, slices by name, devices as listed), so that it picks the devices upstream picks.
//
//   auto slices = std::make_shared<const SliceIndex>(dra_lister.ListResourceSlices());
//   Allocator allocator(dra_lister, slices, pending_in_pool, selectors, &memo);
//   absl::StatusOr<Allocator::Outcome> out = allocator.Allocate(node_ptr, claims);
//   if (!out.ok()) ...  // a broken claim or class: upstream's fatal error, word for word
//   if (out->fits) {  // On the node the pod goes to:
//     std::vector<api::AllocationResult> allocations =
//         Allocator::Results(*out->choice, claims, node_ptr->metadata.name);
//     ... allocations[i] ...  // one per claim
//   }
//
// Covered: ExactCount and All, firstAvailable lists, admin access, device taints and the requests'
// tolerations, matchAttribute constraints, per-device node selection, class and claim configs in
// the result, the allocation's node selector. Not covered, so that nothing is placed as if they
// were absent: partitionable devices' counters, consumable capacity, binding conditions. A pool
// that uses them is not allocated from, and a node that could only serve the claims from such a
// pool says so (Outcome::node_failure). Device selectors are evaluated by upstream's CEL
// (ksched/cel.h), once per expression and slice version (SelectorCache).
//
// Thread safety: Allocate may be called from several threads at once; SliceIndex and
// SelectorCache are safe from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "ksched/cel.h"
#include "ksched/dra_lister.h"

namespace ksched::plugins::dynamic_resources {

// A device, by driver, pool and name, as the slices name it.
struct DeviceView {
  std::string_view driver, pool, device;
};

// The devices of a pool (by driver and pool) that allocations the DraLister's claims do not show
// yet hold; nullptr when there are none.
using PendingInPool = std::function<std::shared_ptr<const HeldDevices::Names>(
    std::string_view driver, std::string_view pool)>;

// Compiled device selectors and their verdicts on each slice's devices.
class SelectorCache {
 public:
  // The verdict of `expression` on each device of `slice`, in order, computed once per slice
  // version. InvalidArgument with upstream's text when the expression does not compile;
  // FailedPrecondition when the CEL library cannot be opened.
  absl::StatusOr<std::shared_ptr<const std::vector<cel::Match>>> Evaluate(
      const std::string& expression, const api::ResourceSlice& slice);

 private:
  absl::StatusOr<std::shared_ptr<const cel::Selector>> Compile(const std::string& expression);

  struct OfSlice {
    std::string uid, resource_version;  // The slice's, when its devices were judged.
    std::map<std::string, std::shared_ptr<const std::vector<cel::Match>>, std::less<>> verdicts;
  };
  absl::Mutex mu_;
  std::map<std::string, absl::StatusOr<std::shared_ptr<const cel::Selector>>, std::less<>>
      selectors_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, OfSlice, std::less<>> slices_ ABSL_GUARDED_BY(mu_);  // By slice name.
};

struct Pool;

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
  };
  std::vector<std::vector<Request>> requests;  // Per claim, per request of its spec.
  std::vector<std::vector<Device>> devices;    // Per claim, in the order they were found.
  std::shared_ptr<const SliceIndex> slices;
};

// The devices of one pool that are in use: held by the claims' allocations, or pending.
struct HeldInPool {
  std::shared_ptr<const HeldDevices::Names> allocated, pending;
  bool Contains(std::string_view device) const {
    return (allocated && allocated->contains(device)) || (pending && pending->contains(device));
  }
  bool operator==(const HeldInPool& o) const {
    return allocated == o.allocated && pending == o.pending;
  }
};

class SearchMemo;

class Allocator {
 public:
  // In use: the devices `classes` says claims hold (DraLister::AllocatedInPool), and those
  // `pending` says are (Reserve made them and PreBind has not written them, or the informer does
  // not show them yet). With a memo (SearchMemo::Begin called for the same claims), a node whose
  // pools and devices in use are as they were for the memo's last search there is not searched
  // again.
  Allocator(const DraLister& classes, std::shared_ptr<const SliceIndex> slices,
            PendingInPool pending, SelectorCache& selectors, SearchMemo* memo = nullptr);

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
  };
  // The allocations of `claims` (all unallocated) for `node`. Errors: InvalidArgument, a broken
  // claim or class (upstream's fatal errors: the pod's attempt ends in an error);
  // FailedPrecondition, a selector to evaluate and no CEL library; DeadlineExceeded, the search
  // went on past `deadline`.
  absl::StatusOr<Outcome> Allocate(const std::shared_ptr<const api::Node>& node,
                                   const std::vector<const api::ResourceClaim*>& claims,
                                   bool explain = false,
                                   absl::Time deadline = absl::InfiniteFuture()) const;

  // The allocations of `claims` (those the choice was made for, or claims of the same specs), one
  // per claim, in order, on the node `node`: the devices, the classes' and the claims' configs,
  // and the node selector. Made only for the node the pod goes to.
  static std::vector<api::AllocationResult> Results(
      const Choice& choice, const std::vector<const api::ResourceClaim*>& claims,
      std::string_view node);

 private:
  friend class Search;
  const DraLister& classes_;
  std::shared_ptr<const SliceIndex> slices_;
  PendingInPool pending_;
  SelectorCache& selectors_;
  SearchMemo* memo_;
};

// What searches found on each node for claims of one list of specs, each kept while the node's
// pools and their devices in use are those the search saw: the same Node object and SliceIndex,
// and the same HeldInPool snapshots. Pods made from one template ask the same of every node, and
// between two of them only the nodes where devices were taken or freed changed. Errors, timeouts
// and explained searches are not kept.
class SearchMemo {
 public:
  // For the claims of the next pod, searched in `slices`: what was kept for claims of other specs,
  // or for other slices (which no node could use again, and which it would keep alive), goes.
  void Begin(const std::vector<const api::ResourceClaim*>& claims,
             const std::shared_ptr<const SliceIndex>& slices);

 private:
  friend class Allocator;
  struct Entry {
    std::shared_ptr<const api::Node> node;
    std::shared_ptr<const SliceIndex> slices;
    std::shared_ptr<const std::vector<Pool>> pools;
    std::vector<HeldInPool> held;
    Allocator::Outcome outcome;
  };
  std::shared_ptr<const Entry> Find(std::string_view node) const;
  void Keep(std::shared_ptr<const Entry> entry);

  mutable absl::Mutex mu_;
  std::vector<api::ResourceClaimSpec> specs_ ABSL_GUARDED_BY(mu_);
  const SliceIndex* slices_ ABSL_GUARDED_BY(mu_) = nullptr;  // Only compared.
  // By the name of the node the entry holds.
  absl::flat_hash_map<std::string_view, std::shared_ptr<const Entry>> by_node_ ABSL_GUARDED_BY(mu_);
};

// Whether a device toleration tolerates a device taint (upstream's resourceclaim.ToleratesTaint).
bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);

}  // namespace ksched::plugins::dynamic_resources
