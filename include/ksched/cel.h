// DRA's device selectors, evaluated by upstream's own CEL: k8s.io/dynamic-resource-allocation/cel
// of the pinned release, with Kubernetes' CEL libraries (quantity, semver, ...), its cost limit and
// its error texts, built by Go as a C-callable shared library, libksched_cel.so (its C ABI is in
// src/cel/main.go). ksched opens it when the first selector is compiled, not at start-up.
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
// One form is judged without the library: a selector that only compares the driver's name with a
// string, `device.driver == "gpu.example.com"` (either quote, either side of `==`, blanks around;
// the name of printable ASCII without quotes or backslashes), as DeviceClasses commonly are, or
// device.allowMultipleAllocations with true or false (with consumable capacity on), or both joined
// by `&&`. Its verdict is CEL's: equalities that cannot fail. Such a selector compiles, and judges
// a list, without opening the library; every other one needs it.
//
// The library is looked for at $KSCHED_CEL_LIBRARY, else beside the running binary
// (libksched_cel.so, as `make build` leaves it in build/), else in ../lib from it (an installed
// ksched), else by the dynamic linker's search. Without it, Compile fails with
// FailedPrecondition, naming the library (except for the form above).
//
// Thread safety: everything may be called from any thread; a Selector or a Devices may be shared.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/api/resource.h"

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

// A list of devices, handed to the library once: the first time a selector that needs the library
// judges it (the form judged without it only reads the drivers and allowMultipleAllocations).
class Devices {
 public:
  // Does not fail; a list the library refuses makes the Evaluate that hands it over fail with
  // InvalidArgument.
  static absl::StatusOr<std::shared_ptr<const Devices>> Make(std::vector<Device> devices);
  ~Devices();
  Devices(const Devices&) = delete;
  Devices& operator=(const Devices&) = delete;
  size_t size() const { return drivers_.size(); }

 private:
  friend class Selector;
  explicit Devices(std::vector<Device> devices);
  // The library's handle on the list, which it is given the first time.
  absl::StatusOr<int64_t> Handle() const;

  const std::vector<std::string> drivers_;
  const std::vector<bool> multiple_;  // allowMultipleAllocations, false when unset.
  mutable absl::Mutex mu_;
  mutable std::vector<Device> to_hand_over_ ABSL_GUARDED_BY(mu_);
  mutable absl::StatusOr<int64_t> handle_ ABSL_GUARDED_BY(mu_) = 0;  // 0: not handed over yet.
};

// The form of a selector ksched judges itself: each comparison given must hold.
struct NativeSelector {
  std::optional<std::string> driver;  // device.driver == "NAME"
  std::optional<bool> multiple;       // device.allowMultipleAllocations == true (or false)
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
  // Whether judging devices needs the library: false for the form ksched judges itself.
  bool needs_library() const { return handle_ != 0; }

 private:
  Selector(int64_t handle, NativeSelector native) : handle_(handle), native_(std::move(native)) {}
  const int64_t handle_;         // The library's; 0 for the form ksched judges itself,
  const NativeSelector native_;  // which is this.
};

}  // namespace ksched::cel
