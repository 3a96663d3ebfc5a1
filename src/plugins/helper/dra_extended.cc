#include "src/plugins/helper/dra_extended.h"

#include <algorithm>

#include "ksched/api/resources.h"
#include "ksched/node_info.h"

namespace ksched::plugins::helper {

bool IsDraExtendedResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || name.starts_with(kDeviceClassResourcePrefix);
}

namespace {

// The names the pod requests (non-zero) that are extended resource names and that a DeviceClass
// backs (`backed`) or does not.
std::vector<std::string> Requested(const api::Pod& pod, const DraLister& dra, bool backed) {
  std::vector<std::string> out;
  // Most pods name no extended resource at all: they skip summing their requests (DynamicResources'
  // PreFilter asks for every pod).
  auto names_one = [](const api::ResourceList& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const auto& entry) { return IsDraExtendedResourceName(entry.first); });
  };
  bool candidate = names_one(pod.spec.overhead);
  for (const auto* containers : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *containers) {
      candidate = candidate || names_one(c.resources.requests) || names_one(c.resources.limits);
    }
  }
  if (!candidate) return out;
  for (const auto& [name, quantity] : api::PodRequests(pod)) {
    if (!quantity.IsZero() && IsDraExtendedResourceName(name) &&
        (dra.ExtendedResourceClass(name) != nullptr) == backed) {
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> DraBacked(const api::Pod& pod, const DraLister* dra) {
  return dra != nullptr ? Requested(pod, *dra, true) : std::vector<std::string>();
}

std::vector<std::string> DraUnbacked(const api::Pod& pod, const DraLister& dra) {
  return Requested(pod, dra, false);
}

}  // namespace ksched::plugins::helper
