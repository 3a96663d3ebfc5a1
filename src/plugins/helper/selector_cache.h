// SelectorCache: DRA device selectors compiled once, and their verdicts on each ResourceSlice's
// devices kept per slice version, for the plugins that judge devices by DeviceClasses' and
// requests' CEL selectors (DynamicResources' allocator, and the scorers of DRA-backed extended
// resources).
//
//   SelectorCache selectors;
//   auto verdicts = selectors.Evaluate("device.driver == \"gpu.example.com\"", slice);
//   if (verdicts.ok() && (**verdicts)[i].matches) ...  // slice.devices[i] matches
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/api/objects.h"
#include "ksched/cel.h"

namespace ksched::plugins::helper {

// Compiled device selectors and their verdicts on each slice's devices.
class SelectorCache {
 public:
  // The verdict of `expression` on each device of `slice`, in order, computed once per slice
  // version. InvalidArgument with upstream's text when the expression does not compile;
  // FailedPrecondition when the CEL library cannot be opened.
  absl::StatusOr<std::shared_ptr<const std::vector<cel::Match>>> Evaluate(
      const std::string& expression, const api::ResourceSlice& slice);
  // Forgets the verdicts on slices that are not among `slices` any more (drivers replace their
  // slices under new names), so that the cache holds no more than the cluster's slices.
  void Retain(const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices);
  // How many slices' verdicts are kept.
  size_t slices() const;

 private:
  absl::StatusOr<std::shared_ptr<const cel::Selector>> Compile(const std::string& expression);

  struct OfSlice {
    std::string uid, resource_version;  // The slice's, when its devices were judged.
    std::map<std::string, std::shared_ptr<const std::vector<cel::Match>>, std::less<>> verdicts;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, absl::StatusOr<std::shared_ptr<const cel::Selector>>, std::less<>>
      selectors_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, OfSlice, std::less<>> slices_ ABSL_GUARDED_BY(mu_);  // By slice name.
};

}  // namespace ksched::plugins::helper
