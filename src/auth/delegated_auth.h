// DelegatingAuthorizer: who may read /metrics and /configz, asked of the API server as
// kube-scheduler's delegated authentication and authorization do. A verified client certificate
// names its user itself; a bearer token is checked with a TokenReview (through `authn`); the user
// (or system:anonymous, for a request with neither) must then be allowed `get` on the path by a
// SubjectAccessReview (through `authz`). Answers are cached for 10 seconds, as upstream's
// defaults.
//
//   DelegatingAuthorizer authorizer(authn_http, authz_http);
//   absl::Status s = authorizer.Authorize({.bearer_token = t}, "/metrics");  // 403, with why
//
// Thread safety: Authorize may be called from several threads at once.
#pragma once

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/server/server.h"

namespace ksched::auth {

// The API server's client CA bundle (PEM), from configmap kube-system/
// extension-apiserver-authentication, key client-ca-file, where upstream's delegated
// authentication looks it up; "" if the configmap has none.
absl::StatusOr<std::string> ClientCaFromCluster(client::HttpClient& http);

class DelegatingAuthorizer : public server::RequestAuthorizer {
 public:
  DelegatingAuthorizer(client::HttpClient& authn, client::HttpClient& authz)
      : authn_(authn), authz_(authz) {}

  absl::Status Authorize(const server::Credentials& credentials, std::string_view path) override;

 private:
  struct Cached {
    absl::Status status;
    nlohmann::json user;  // TokenReview's status.user, for the reviews that follow.
    absl::Time expires;
  };
  static constexpr absl::Duration kTtl = absl::Seconds(10);

  // The user the token belongs to (Unauthenticated if none), from cache or a TokenReview.
  absl::StatusOr<nlohmann::json> Authenticate(std::string_view token);
  absl::Status Review(const nlohmann::json& user, std::string_view path);
  // A cached answer that has not expired, or nullptr.
  const Cached* Lookup(const absl::flat_hash_map<std::string, Cached>& cache,
                       const std::string& key, absl::Time now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  client::HttpClient& authn_;
  client::HttpClient& authz_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Cached> tokens_ ABSL_GUARDED_BY(mu_);     // token → user
  absl::flat_hash_map<std::string, Cached> decisions_ ABSL_GUARDED_BY(mu_);  // user|path
};

}  // namespace ksched::auth
