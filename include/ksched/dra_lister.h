// DraLister: the dynamic resource allocation objects of the cluster (resource.k8s.io/v1), as last
// watched, for DynamicResources (upstream's ResourceClaim, ResourceSlice and DeviceClass listers).
// Objects are shared with the informers' stores, never copied.
//
//   std::shared_ptr<const api::ResourceClaim> claim =
//       handle.dra().GetResourceClaim(pod.metadata.namespace_, "gpu");
//   for (const auto& slice : handle.dra().ListResourceSlices()) ...
//   std::shared_ptr<const HeldDevices::Pool> held = handle.dra().AllocatedInPool(driver, pool);
//   if (held && held->names.contains(device)) ...  // a claim's allocation holds it whole
//   // Many pools (a PreFilter for a Filter's many nodes): one lock, then none per pool.
//   std::shared_ptr<const HeldDevices::View> all = handle.dra().Allocated();
//   const std::shared_ptr<const HeldDevices::Pool>& in_pool = all->InPool(driver, pool);
//
// Thread safety: every DraLister method is safe from any thread; HeldDevices is not synchronized
// (its owner locks), the snapshots it hands out are immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "ksched/api/resource.h"

namespace ksched {

// The devices that allocations hold (upstream's allocated-devices tracker; a result with admin
// access holds nothing), counted by pool and device, with each pool's as an immutable snapshot
// made again at every change of that pool: a search asks once per pool, then looks names up
// without a lock. A result with a share ID (consumable capacity) holds a share of its device,
// and what it consumes adds to what the device's other shares consume.
class HeldDevices {
  // std::string_view lookups (Abseil's own string_view may be another type).
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return absl::HashOf(s); }
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  template <typename V>
  using Map = absl::flat_hash_map<std::string, V, Hash, Eq>;

 public:
  using Names = absl::flat_hash_set<std::string, Hash, Eq>;
  // The shares of one device: how many, and what they consume of each capacity, together.
  struct Share {
    int count = 0;
    api::ResourceList consumed;
  };
  // One pool's held devices: those held whole, by name, and the shares of the others, by device.
  struct Pool {
    Names names;
    Map<Share> shares;
  };
  // Every pool's at once, as InPool gives them one by one; immutable.
  class View {
   public:
    // nullptr when none of the pool's devices is held; the view keeps the pool alive.
    const std::shared_ptr<const Pool>& InPool(std::string_view driver, std::string_view pool) const;
    // fn(driver, pool, held) for each pool with held devices.
    template <typename Fn>
    void ForEach(Fn&& fn) const {
      for (const auto& [driver, pools] : by_driver_) {
        for (const auto& [pool, names] : pools) fn(driver, pool, names);
      }
    }

   private:
    friend class HeldDevices;
    Map<Map<std::shared_ptr<const Pool>>> by_driver_;
  };
  // Counts the allocation's devices as held by one more (+1) or one fewer (-1) allocation.
  void Count(const api::AllocationResult& allocation, int delta);
  // The held devices of one pool; nullptr when none is held.
  std::shared_ptr<const Pool> InPool(std::string_view driver, std::string_view pool) const;
  // Every pool's, as the counts are now: made at the first call after a change, then shared.
  std::shared_ptr<const View> Snapshot();
  bool empty() const { return by_driver_.empty(); }

 private:
  struct Counts {
    Map<int> whole;     // By device: the allocations that hold it whole.
    Map<Share> shares;  // By device.
    std::shared_ptr<const Pool> held;
  };
  // By driver, then pool.
  Map<Map<Counts>> by_driver_;
  std::shared_ptr<const View> view_;  // Until the next change.
};

class DraLister {
 public:
  virtual ~DraLister() = default;
  // nullptr where there is no such object.
  virtual std::shared_ptr<const api::ResourceClaim> GetResourceClaim(
      std::string_view ns, std::string_view name) const = 0;
  virtual std::shared_ptr<const api::DeviceClass> GetDeviceClass(std::string_view name) const = 0;
  // Every namespace's claims, by namespace and name.
  virtual std::vector<std::shared_ptr<const api::ResourceClaim>> ListResourceClaims() const = 0;
  // The slices, by name.
  virtual std::vector<std::shared_ptr<const api::ResourceSlice>> ListResourceSlices() const = 0;
  // The DeviceTaintRules, by name: their taints go to the devices they select, when the
  // DRADeviceTaintRules gate is on (upstream's ListWithDeviceTaintRules).
  virtual std::vector<std::shared_ptr<const api::DeviceTaintRule>> ListDeviceTaintRules() const = 0;
  // Grow with every change of a claim (ClaimsGeneration) or of a slice, class or taint rule
  // (DevicesGeneration): a plugin that keeps what it computed from them can tell whether they
  // changed since.
  virtual uint64_t ClaimsGeneration() const = 0;
  virtual uint64_t DevicesGeneration() const = 0;
  // The devices of one pool that the claims' allocations hold, as the claims are now; nullptr
  // when none is held.
  virtual std::shared_ptr<const HeldDevices::Pool> AllocatedInPool(std::string_view driver,
                                                                   std::string_view pool) const = 0;
  // Every pool's, as one snapshot: for a plugin that asks about many pools at once.
  virtual std::shared_ptr<const HeldDevices::View> Allocated() const = 0;
  // DRA-backed extended resources (upstream's extended resource cache): the DeviceClass whose
  // spec.extendedResourceName is `resource` (the newest such class; of two made in the same
  // second, the first by name), or whose implicit name, "deviceclass.resource.kubernetes.io/"
  // and the class's name, it is; nullptr for none.
  virtual std::shared_ptr<const api::DeviceClass> ExtendedResourceClass(
      std::string_view resource) const = 0;
};

// The prefix of a DeviceClass's implicit extended resource name.
inline constexpr std::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

}  // namespace ksched
