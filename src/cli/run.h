// `ksched run` (and `ksched` with no subcommand): schedules the pods of a real cluster, as
// kube-scheduler does. It connects (--kubeconfig, $KUBECONFIG or the service account), waits
// for its caches to sync, then schedules until SIGTERM or SIGINT, on which it stops taking pods,
// lets the binds in flight finish, and exits 0.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "ksched/registry.h"
#include "src/features/feature_gates.h"

namespace ksched::cli {

struct RunFlags {
  std::string config_file;
  std::string kubeconfig;  // Overrides clientConnection.kubeconfig.
  std::string context;
  std::string master;           // --master: the API server's address, over the kubeconfig's.
  std::string write_config_to;  // Write the effective configuration there, and exit 0.
  // Deprecated, as upstream: clientConnection's qps and burst, when there is no --config.
  double kube_api_qps = 50;
  int kube_api_burst = 100;
  std::string logging_format = "text";
  int verbosity = 0;
  // Leader election flags; each one given on the command line overrides the config file's
  // leaderElection field, as upstream's ApplyLeaderElectionTo does.
  struct LeaderElection {
    bool leader_elect = true;
    std::string lease_duration, renew_deadline, retry_period;
    std::string resource_lock, resource_name, resource_namespace;
  } leader_election;
  // Serving /healthz, /livez, /readyz, /metrics and /configz; secure_port 0 turns it off.
  struct Serving {
    int secure_port = 10259;
    std::string bind_address = "0.0.0.0";
    std::string tls_cert_file, tls_private_key_file;
    std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
    // Delegated authentication and authorization, as upstream's flags.
    std::string client_ca_file;
    std::string authentication_kubeconfig, authorization_kubeconfig;  // "": ksched's own.
    bool authentication_skip_lookup = false;
    bool authentication_tolerate_lookup_failure = true;  // kube-scheduler's default.
  } serving;
  // The memory, in MiB, of each pod's last attempt kept for `ksched explain` (/debug/pods/);
  // 0 keeps none.
  int explain_memory_mib = 32;
  // Write kube-scheduler-simulator's result annotations onto the pods it decides.
  bool simulator_annotations = false;
  features::Flags feature_gates;  // --feature-gates, --emulated-version, ...
  CLI::App* cmd = nullptr;        // To tell which flags were given.
};

// Adds the flags of `run` to `cmd`.
void AddRunFlags(CLI::App* cmd, RunFlags* flags);
// Returns the exit code: 0 after a clean shutdown, 1 when the configuration or the connection
// is bad.
int RunScheduler(const RunFlags& flags, const features::FeatureGates& gates,
                 const Registry& registry);

}  // namespace ksched::cli
