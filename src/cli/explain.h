// `ksched explain NAMESPACE/POD`: asks a running ksched (its secure port, /debug/pods/) about the
// pod's last scheduling attempt and prints it: the nodes each filter rejected and why, the
// feasible nodes' scores per plugin, the preemption's nomination and victims, and the events that
// may make the pod schedulable. The request carries the kubeconfig's credentials (a client
// certificate or a token), which ksched checks as it does for /metrics.
//
//   ksched explain default/web --server https://127.0.0.1:10259 --insecure-skip-tls-verify
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "nlohmann/json.hpp"

namespace ksched::cli {

struct ExplainFlags {
  std::string pod;  // NAMESPACE/NAME, or NAME in "default".
  std::string server = "https://127.0.0.1:10259";
  std::string kubeconfig, context;    // The credentials; "": $KUBECONFIG, then ~/.kube/config.
  std::string certificate_authority;  // The CA of ksched's serving certificate.
  bool insecure_skip_tls_verify = false;
  std::string output = "table";
};

void AddExplainFlags(CLI::App* cmd, ExplainFlags* flags);
// 0; or 1 with why on stderr: no such pod, no attempt kept, the request refused (and whom
// ksched refused), ksched unreachable, a bad kubeconfig.
int RunExplain(const ExplainFlags& flags);

// The record (/debug/pods/'s JSON) for people.
std::string FormatExplainTable(const nlohmann::ordered_json& record);

}  // namespace ksched::cli
