// The HTTPS endpoints kube-scheduler serves on --secure-port (10259): /healthz, /livez and
// /readyz with their named checks, /metrics and /configz; and ksched's /debug/ (`ksched explain`
// reads /debug/pods/NAMESPACE/NAME). Health paths are open to anyone;
// the others ask a RequestAuthorizer, as upstream's delegated authentication and authorization.
//
//   server::ServingOptions opts{.bind_address = "0.0.0.0", .secure_port = 10259};
//   auto s = server::Server::Start(opts, {.metrics = [&] { return registry.Text(); },
//                                         .configz = [&] { return json_text; },
//                                         .healthz = {leader_check},
//                                         .readyz = {leader_check, synced_check}},
//                                  &authorizer);
//   ...
//   (*s)->Stop();
//
// Without a certificate and key, the server makes a self-signed one for localhost in memory. With
// a client CA it asks clients for a certificate (without requiring one): a certificate that
// chains to the CA authenticates its request, one that does not gets 401.
// libmicrohttpd serves it: two threads, each an event loop over many connections, so that idle
// or slow clients cost a bounded amount of memory (64 KiB of buffers at most, 4096 connections
// at most, each closed after 32 s without a byte) and no thread; probes keep being answered.
// Headers beyond the buffer get 431; a request body is never read.
//
// Thread safety: the handlers run on the server's threads and may run concurrently.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct MHD_Daemon;

namespace ksched::server {

struct ServingOptions {
  std::string bind_address = "0.0.0.0";
  int secure_port = 10259;  // 0 turns serving off (Start is not called).
  std::string cert_file;    // --tls-cert-file; empty: a self-signed certificate.
  std::string key_file;     // --tls-private-key-file
  // Paths served without authorization; a trailing "*" matches a prefix.
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  // CA certificates (PEM) that client certificates are verified against; empty: none asked for.
  std::string client_ca_pem;
  std::string client_ca_source = "client CA";  // Where client_ca_pem came from, for errors.
};

// A named health check, as k8s.io/apiserver/pkg/server/healthz: OK, or why not (logged, and
// withheld from the response).
struct HealthCheck {
  std::string name;
  std::function<absl::Status()> check;
};

// A user, as Kubernetes' authenticators name one.
struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
};

// What a request says of who sends it. A client certificate comes first, as upstream's union of
// authenticators tries x509 before tokens; neither: anonymous.
struct Credentials {
  // A client certificate that chains to ServingOptions::client_ca_pem: its subject's CommonName
  // and Organizations, plus system:authenticated, as k8s.io/apiserver's x509 authenticator reads
  // them.
  std::optional<UserInfo> client_certificate;
  std::string bearer_token;  // Empty: none.
};

// Whether a request may read a path. OK to serve; Unauthenticated gives 401, anything else 403
// with the message.
class RequestAuthorizer {
 public:
  virtual ~RequestAuthorizer() = default;
  virtual absl::Status Authorize(const Credentials& credentials, std::string_view path) = 0;
};

struct Handlers {
  std::function<std::string()> metrics;  // The Prometheus text.
  std::function<std::string()> configz;  // The effective configuration, as a JSON object.
  // Besides "ping" and "log", which always pass.
  std::vector<HealthCheck> healthz;  // Also served at /livez.
  std::vector<HealthCheck> readyz;
  // Paths under /debug/: a JSON body, or an error: NotFound gives 404, InvalidArgument 400,
  // anything else 500, each with a metav1.Status naming it. Empty: /debug/ is 404.
  std::function<absl::StatusOr<std::string>(std::string_view path)> debug;
};

// Whether `pem` holds a CA certificate for ServingOptions::client_ca_pem; the error names
// `source`, as Start's would.
absl::Status CheckClientCa(const std::string& pem, const std::string& source);

class Server {
 public:
  // Binds and starts serving on a thread of its own. Fails if the port is taken or the
  // certificate cannot be read. `authorizer` must outlive the server; nullptr forbids every path
  // outside always_allow_paths.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServingOptions& options,
                                                       const Handlers& handlers,
                                                       RequestAuthorizer* authorizer);
  ~Server();  // Stops.
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void Stop();

  struct State;  // What the requests read.

 private:
  Server() = default;

  std::unique_ptr<State> state_;
  MHD_Daemon* daemon_ = nullptr;
};

}  // namespace ksched::server
