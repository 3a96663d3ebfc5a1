// What `ksched version` and `ksched --version` print: ksched's release, the commit it was built
// from, the kube-scheduler release whose decisions it makes, and the plugin SDK and ABI that
// plugin libraries must be built against.
//
//   std::printf("%s", VersionText(ThisVersion()).c_str());
#pragma once

#include <string>

namespace ksched::cli {

struct VersionInfo {
  std::string version;     // "v0.1.0"
  std::string commit;      // The short commit id, or "unknown" when not built from a checkout.
  std::string kubernetes;  // The kube-scheduler release ksched decides as: "v1.36.3".
  int sdk = 0;             // KSCHED_SDK_VERSION.
  std::string plugin_abi;  // The entry point a plugin library exports: "v1".
  int stable_abi = 0;      // KSCHED_STABLE_ABI: the generation of ksched/stable.h.
};

// This build's.
VersionInfo ThisVersion();
// For people: one item a line.
std::string VersionText(const VersionInfo& v);
// `-o json` and `--version=raw`: one object, its keys as kube-scheduler's version JSON spells
// what they share (gitVersion, gitCommit).
std::string VersionJson(const VersionInfo& v);

}  // namespace ksched::cli
