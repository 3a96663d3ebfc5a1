// DRA's device selectors, evaluated by upstream's own CEL: k8s.io/dynamic-resource-allocation/cel
// of the pinned release, with Kubernetes' CEL libraries (quantity, semver, ...), its cost limit and
// its error texts, built by Go as a C-callable shared library, libksched_cel.so (its C ABI is in
// scripts/k8s/cel/main.go). ksched opens it when the first selector is compiled, not at start-up.
//
//   absl::StatusOr<std::shared_ptr<const cel::Selector>> gpu =
//       cel::Selector::Compile("device.attributes['gpu.example.com'].model == 'a100'");
//   if (!gpu.ok()) ...  // upstream's compile error, or the library that could not be opened
//   absl::StatusOr<std::shared_ptr<const cel::Devices>> devices =
//   cel::Devices::Make(slice_devices); absl::StatusOr<std::vector<cel::Match>> matches =
//   (*gpu)->Evaluate(**devices);
//
// Compile an expression once and hand a list of devices (a ResourceSlice's) over once; each
// Evaluate then costs one call into the library for the whole list.
//
// The library is looked for at $KSCHED_CEL_LIBRARY, else beside the running binary
// (libksched_cel.so, as `make build` leaves it in build/), else in ../lib from it (an installed
// ksched), else by the dynamic linker's search. Without it, Compile fails with
// FailedPrecondition, naming the library.
//
// Thread safety: everything may be called from any thread; Selector and Devices are immutable.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/api/objects.h"

namespace ksched::cel {

// A device as a selector sees it: `device.driver`, `device.attributes[domain][id]`,
// `device.capacity[domain][id]`, `device.allowMultipleAllocations`. Attribute and capacity names
// are qualified ("gpu.example.com/model") or not ("model", in the driver's domain).
struct Device {
  std::string driver;
  std::optional<bool> allow_multiple_allocations;
  std::map<std::string, api::DeviceAttribute> attributes;
  std::map<std::string, api::Quantity> capacity;
};

// Upstream's feature gates the environment depends on, at their 1.36 defaults.
struct Features {
  bool consumable_capacity = true;    // DRAConsumableCapacity (beta)
  bool list_type_attributes = false;  // DRAListTypeAttributes (alpha)
};

// A selector's verdict on one device: whether it matches, or upstream's runtime error (a missing
// attribute, a type mismatch, the cost limit exceeded), with which the device does not match.
struct Match {
  bool matches = false;
  std::string error;  // "" when the expression evaluated.
};

// A list of devices, handed to the library once.
class Devices {
 public:
  // InvalidArgument if the library refuses the list; FailedPrecondition without the library.
  static absl::StatusOr<std::shared_ptr<const Devices>> Make(const std::vector<Device>& devices);
  ~Devices();
  Devices(const Devices&) = delete;
  Devices& operator=(const Devices&) = delete;
  size_t size() const { return size_; }

 private:
  friend class Selector;
  Devices(int64_t handle, size_t size) : handle_(handle), size_(size) {}
  const int64_t handle_;
  const size_t size_;
};

// A compiled device selector.
class Selector {
 public:
  // InvalidArgument with upstream's message when `expression` does not compile ("compilation
  // failed: ERROR: <input>:1:8: ..."); FailedPrecondition when the library cannot be opened.
  static absl::StatusOr<std::shared_ptr<const Selector>> Compile(std::string_view expression,
                                                                 Features features = {});
  ~Selector();
  Selector(const Selector&) = delete;
  Selector& operator=(const Selector&) = delete;

  // The verdict on each of `devices`, in order.
  absl::StatusOr<std::vector<Match>> Evaluate(const Devices& devices) const;

 private:
  explicit Selector(int64_t handle) : handle_(handle) {}
  const int64_t handle_;
};

}  // namespace ksched::cel
