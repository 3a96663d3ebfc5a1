// DRA-backed extended resources (DRAExtendedResource): a pod's extended resource that no device
// plugin advertises on a node, but a DeviceClass backs (its spec.extendedResourceName, or its
// implicit name "deviceclass.resource.kubernetes.io/<class>"), is served by devices that
// DynamicResources allocates in a claim it makes for the pod; NodeResourcesFit leaves it to it
// (upstream's shouldDelegateResourceToDRA).
//
//   std::vector<std::string> backed = DraBacked(pod, &handle.dra());  // {"example.com/gpu"}
//   if (node.allocatable().Get("example.com/gpu") == 0) ...  // the devices' on this node
//
// The scorers that name such a resource in their args count the devices of its class on a node
// and those in use (DraResourceCounter):
//   auto counter = DraResourceCounter::Make({"cpu", "example.com/gpu"}, handle.dra(), state,
//                                           selectors);  // in PreScore; null: none is backed
//   DraResourceCounter::Amounts a = counter->On(1, node);  // {devices, devices in use}
//
// Thread safety: DraResourceCounter::On may run from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ksched/api/objects.h"
#include "ksched/cycle_state.h"
#include "ksched/dra_lister.h"
#include "src/plugins/helper/selector_cache.h"

namespace ksched::plugins::helper {

// The devices of one pool that are in use: held by the claims' allocations, or pending.
struct HeldInPool {
  std::shared_ptr<const HeldDevices::Pool> allocated, pending;
  // Whether an allocation holds the device whole.
  bool Contains(std::string_view device) const {
    return (allocated && allocated->names.contains(device)) ||
           (pending && pending->names.contains(device));
  }
  // Consumable capacity: whether an allocation holds a share of the device.
  bool Shared(std::string_view device) const {
    return (allocated && allocated->shares.contains(device)) ||
           (pending && pending->shares.contains(device));
  }
};

// The devices in use, as a search sees them: those the DraLister's claims' allocations hold
// (DraLister::Allocated), and those allocations it does not show yet hold (Reserve made them and
// PreBind has not written them, or the informer does not show them yet).
struct HeldViews {
  std::shared_ptr<const HeldDevices::View> allocated, pending;
  // One pool's.
  HeldInPool In(std::string_view driver, std::string_view pool) const {
    return {.allocated = allocated ? allocated->InPool(driver, pool) : nullptr,
            .pending = pending ? pending->InPool(driver, pool) : nullptr};
  }
};

// What DynamicResources' PreFilter saw in use, for the other plugins of the cycle (upstream's
// shared DRA manager, whose allocated state includes the claims in flight).
struct DevicesInUse final : StateData {
  HeldViews held;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<DevicesInUse>(*this);
  }
};
inline constexpr StateKey<DevicesInUse> kDevicesInUseKey{"DynamicResourcesDevicesInUse",
                                                         StateScope::kSchedulingCycle};

// Whether a slice, or one device of a slice with per-device node selection, reaches the node
// (upstream's NodeMatches).
bool NodeMatches(const api::Node& node, const std::optional<std::string>& node_name, bool all_nodes,
                 const std::optional<api::NodeSelector>& selector);

// An extended resource name, or a class's implicit one (upstream's IsDRAExtendedResourceName).
bool IsDraExtendedResourceName(std::string_view name);

// The extended resource names the pod requests (non-zero, as api::PodRequests sums them), by
// name: those a DeviceClass backs, and the others.
struct DraRequested {
  std::vector<std::string> backed, unbacked;
};
DraRequested DraRequestedBy(const api::Pod& pod, const DraLister& dra);
// Its backed ones; none when `dra` is null (the gate is off).
std::vector<std::string> DraBacked(const api::Pod& pod, const DraLister* dra);

// A scorer's DRA-backed extended resources on a node that no device plugin serves them on
// (upstream's calculateDRAResourceTotals): the devices of every slice that reaches the node and
// that match the class's selectors, and how many of them an allocation holds, whole or in part.
// Slices count whatever their pool's generation, as upstream's do.
class DraResourceCounter {
 public:
  // For the scorer's resources, in order; nullptr when no DeviceClass backs any of them. The
  // devices in use are those DynamicResources' PreFilter wrote in `state`, else the lister's.
  // `selectors` forgets the verdicts on slices that went.
  static std::shared_ptr<const DraResourceCounter> Make(const std::vector<std::string>& resources,
                                                        const DraLister& dra,
                                                        const CycleState& state,
                                                        SelectorCache& selectors);
  struct Amounts {
    int64_t allocatable = 0;  // The devices.
    int64_t allocated = 0;    // Those in use.
  };
  // Resource i on `node`; zeros when no class backs it, and when a selector of the class does not
  // compile or fails on one of the node's devices (upstream then leaves the resource out).
  Amounts On(size_t i, const api::Node& node) const;

 private:
  explicit DraResourceCounter(SelectorCache& selectors) : selectors_(selectors) {}
  std::optional<Amounts> Count(const api::DeviceClass& cls, const api::Node& node) const;

  SelectorCache& selectors_;
  std::vector<std::shared_ptr<const api::DeviceClass>> classes_;  // By resource; null if unbacked.
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices_;
  // The slices by the node they name; the others (all nodes, a node selector, or per device).
  absl::flat_hash_map<std::string_view, std::vector<const api::ResourceSlice*>> on_node_;
  std::vector<const api::ResourceSlice*> others_;
  HeldViews held_;
};

}  // namespace ksched::plugins::helper
