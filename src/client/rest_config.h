// RestConfig: where the API server is and how to authenticate to it, read as client-go reads it:
// from a kubeconfig file (--kubeconfig, or the KUBECONFIG variable) and a context, or from the
// pod's service account when ksched runs in the cluster.
//
//   absl::StatusOr<RestConfig> cfg = LoadRestConfig({.kubeconfig = flag, .context = ctx});
//   // cfg.status(): "/home/me/.kube/config: context \"prod\" does not exist"
//
// Thread safety: the functions are reentrant.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace ksched::client {

struct RestConfig {
  std::string server;  // "https://127.0.0.1:6443", no trailing slash.
  // The CA that signs the server's certificate: PEM data, or a file (re-read by libcurl).
  std::string ca_data;
  std::string ca_file;
  std::string tls_server_name;  // Overrides the name checked in the server's certificate.
  bool insecure_skip_tls_verify = false;
  // Client certificate and key, as PEM data or files.
  std::string cert_data, cert_file;
  std::string key_data, key_file;
  // A bearer token, or a file holding one (re-read when it changes, as projected tokens rotate).
  std::string token;
  std::string token_file;
  // Client-side rate limit of requests other than watches (clientConnection.qps and burst).
  float qps = 50;
  int burst = 100;
  std::string user_agent = "ksched";
};

struct RestConfigSource {
  std::string kubeconfig;  // A path; "" falls back to $KUBECONFIG, then to the service account.
  std::string context;     // "" is the kubeconfig's current-context.
  // --master: the API server's address, over the kubeconfig's. With no kubeconfig (nor
  // $KUBECONFIG) it is the whole configuration, no credentials, as client-go's
  // BuildConfigFromFlags makes it.
  std::string master;
};

// The service account's files, as every pod sees them.
inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

// Reads one kubeconfig file. Relative file paths inside it are relative to the file's folder.
absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context);
// Parses kubeconfig text; `dir` resolves relative paths and `name` labels errors.
absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view text, const std::string& name,
                                           const std::string& dir, const std::string& context);
// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT and the service account's token and
// CA in `sa_dir`.
absl::StatusOr<RestConfig> InClusterConfig(const std::string& sa_dir = kServiceAccountDir);
// --kubeconfig, else the first file of $KUBECONFIG, else the service account.
absl::StatusOr<RestConfig> LoadRestConfig(const RestConfigSource& source);

}  // namespace ksched::client
