#include "src/cli/version.h"

#include "fmt/format.h"
#include "ksched/stable.h"
#include "ksched/version.h"
#include "nlohmann/json.hpp"

namespace ksched::cli {

VersionInfo ThisVersion() {
  return {.version = "v" KSCHED_VERSION,
          .commit = KSCHED_COMMIT,
          .kubernetes = KSCHED_KUBERNETES_VERSION,
          .sdk = SdkVersion(),
          .plugin_abi = "v1",  // KschedPluginLibraryV1, include/ksched/plugin_library.h
          .stable_abi = KSCHED_STABLE_ABI};
}

std::string VersionText(const VersionInfo& v) {
  return fmt::format(
      "ksched {}\n"
      "commit:      {}\n"
      "decides as:  kube-scheduler {}\n"
      "plugin SDK:  {} (plugin ABI {}: a plugin library must be built against SDK {})\n"
      "stable ABI:  {} (a library built against ksched/stable.h of ABI {} or earlier loads)\n",
      v.version, v.commit, v.kubernetes, v.sdk, v.plugin_abi, v.sdk, v.stable_abi, v.stable_abi);
}

std::string VersionJson(const VersionInfo& v) {
  return nlohmann::json{{"gitVersion", v.version},           {"gitCommit", v.commit},
                        {"kubernetesVersion", v.kubernetes}, {"sdkVersion", v.sdk},
                        {"pluginAbi", v.plugin_abi},         {"stableAbi", v.stable_abi}}
             .dump(2) +
         "\n";
}

}  // namespace ksched::cli
