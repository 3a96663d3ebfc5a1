#include "src/plugins/helper/selector_cache.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace ksched::plugins::helper {

absl::StatusOr<std::shared_ptr<const cel::Selector>> SelectorCache::Compile(
    const std::string& expression) {
  {
    absl::MutexLock lock(&mu_);
    if (auto it = selectors_.find(expression); it != selectors_.end()) return it->second;
  }
  absl::StatusOr<std::shared_ptr<const cel::Selector>> compiled =
      cel::Selector::Compile(expression);
  absl::MutexLock lock(&mu_);
  return selectors_.emplace(expression, std::move(compiled)).first->second;
}

absl::StatusOr<std::shared_ptr<const std::vector<cel::Match>>> SelectorCache::Evaluate(
    const std::string& expression, const api::ResourceSlice& slice) {
  absl::StatusOr<std::shared_ptr<const cel::Selector>> selector = Compile(expression);
  if (!selector.ok()) return selector.status();
  auto same_version = [&](const OfSlice& of) {
    return of.uid == slice.metadata.uid && of.resource_version == slice.metadata.resource_version;
  };
  {
    absl::MutexLock lock(&mu_);
    auto it = slices_.find(slice.metadata.name);
    if (it != slices_.end() && same_version(it->second)) {
      if (auto v = it->second.verdicts.find(expression); v != it->second.verdicts.end()) {
        return v->second;
      }
    }
  }
  // The devices are handed to the library for this evaluation only: kept there, every slice's
  // devices would stay in the Go heap (about 2 KiB a device), for verdicts that are kept here. A
  // selector ksched judges itself reads the driver and allowMultipleAllocations only.
  const bool whole = (*selector)->needs_library();
  std::vector<cel::Device> input;
  input.reserve(slice.devices.size());
  for (const api::Device& d : slice.devices) {
    input.push_back({.driver = slice.driver,
                     .allow_multiple_allocations = d.allow_multiple_allocations,
                     .attributes = whole ? d.attributes : decltype(d.attributes){},
                     .capacity = whole ? d.capacity : decltype(d.capacity){}});
  }
  absl::StatusOr<std::shared_ptr<const cel::Devices>> devices =
      cel::Devices::Make(std::move(input));
  if (!devices.ok()) return devices.status();
  absl::StatusOr<std::vector<cel::Match>> verdicts = (*selector)->Evaluate(**devices);
  if (!verdicts.ok()) return verdicts.status();
  auto shared = std::make_shared<const std::vector<cel::Match>>(*std::move(verdicts));
  absl::MutexLock lock(&mu_);
  OfSlice& of = slices_[slice.metadata.name];
  if (!same_version(of)) {
    of = OfSlice{.uid = slice.metadata.uid, .resource_version = slice.metadata.resource_version};
  }
  of.verdicts[expression] = shared;
  return shared;
}

void SelectorCache::Retain(const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices) {
  absl::flat_hash_map<std::string_view, std::string_view> uids;  // By name.
  for (const auto& slice : slices) uids.emplace(slice->metadata.name, slice->metadata.uid);
  absl::MutexLock lock(&mu_);
  for (auto it = slices_.begin(); it != slices_.end();) {
    auto now = uids.find(it->first);
    it = now == uids.end() || now->second != it->second.uid ? slices_.erase(it) : std::next(it);
  }
}

size_t SelectorCache::slices() const {
  absl::MutexLock lock(&mu_);
  return slices_.size();
}

}  // namespace ksched::plugins::helper
