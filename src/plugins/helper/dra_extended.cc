#include "src/plugins/helper/dra_extended.h"

#include "ksched/api/resources.h"
#include "ksched/node_info.h"

namespace ksched::plugins::helper {

bool IsDraExtendedResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || name.starts_with(kDeviceClassResourcePrefix);
}

std::vector<std::string> DraBacked(const api::Pod& pod, const DraLister* dra) {
  std::vector<std::string> out;
  if (dra == nullptr) return out;
  for (const auto& [name, quantity] : api::PodRequests(pod)) {
    if (!quantity.IsZero() && IsDraExtendedResourceName(name) &&
        dra->ExtendedResourceClass(name) != nullptr) {
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace ksched::plugins::helper
