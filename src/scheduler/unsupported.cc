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
  if (!pod.spec.resource_claims.empty()) {
    return Rejected("spec.resourceClaims", names::kDynamicResources);
  }
  return Status();
}

}  // namespace ksched::scheduler
