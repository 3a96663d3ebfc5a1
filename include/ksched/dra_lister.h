// DraLister: the dynamic resource allocation objects of the cluster (resource.k8s.io/v1), as last
// watched, for DynamicResources (upstream's ResourceClaim, ResourceSlice and DeviceClass listers).
// Objects are shared with the informers' stores, never copied.
//
//   std::shared_ptr<const api::ResourceClaim> claim =
//       handle.dra().GetResourceClaim(pod.metadata.namespace_, "gpu");
//   for (const auto& slice : handle.dra().ListResourceSlices()) ...
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ksched/api/objects.h"

namespace ksched {

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
  // Grow with every change of a claim (ClaimsGeneration) or of a slice or class
  // (DevicesGeneration): a plugin that keeps what it computed from them can tell whether they
  // changed since.
  virtual uint64_t ClaimsGeneration() const = 0;
  virtual uint64_t DevicesGeneration() const = 0;
  // Whether a claim's allocation holds this device (results with admin access do not), as the
  // claims are now: kept up to date with every change, so that a question costs one lookup.
  virtual bool DeviceAllocated(std::string_view driver, std::string_view pool,
                               std::string_view device) const = 0;
};

}  // namespace ksched
