#include "src/scheduler/unsupported.h"

#include <string>

#include "fmt/format.h"
#include "src/plugins/names.h"

namespace ksched::scheduler {
namespace {

namespace names = plugins::names;

Status Rejected(std::string_view field, std::string_view plugin) {
  return Status::UnschedulableAndUnresolvable(
             fmt::format("{} is not supported by ksched yet (kube-scheduler's {} plugin)", field,
                         plugin))
      .WithPlugin(plugin);
}

}  // namespace

Status UnsupportedFields(const api::Pod& pod) {
  const api::PodSpec& spec = pod.spec;
  for (size_t i = 0; i < spec.volumes.size(); ++i) {
    const api::Volume& v = spec.volumes[i];
    if (v.source == "persistentVolumeClaim" || (v.source == "ephemeral" && v.ephemeral_claim)) {
      return Rejected(fmt::format("spec.volumes[{}].{}", i, v.source), names::kVolumeBinding);
    }
  }
  if (!spec.resource_claims.empty()) {
    return Rejected("spec.resourceClaims", names::kDynamicResources);
  }
  return Status();
}

}  // namespace ksched::scheduler
