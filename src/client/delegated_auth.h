// DelegatingAuthorizer: who may read /metrics and /configz, asked of the API server as
// kube-scheduler's delegated authentication and authorization do. A bearer token is checked with
// a TokenReview; the user it names (or system:anonymous, for a request without one) must then be
// allowed `get` on the path by a SubjectAccessReview. Answers are cached for 10 seconds, as
// upstream's defaults.
//
//   DelegatingAuthorizer authz(http);
//   absl::Status s = authz.Authorize(token, "/metrics");  // PermissionDenied: 403, with why
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

namespace ksched::client {

class DelegatingAuthorizer : public server::RequestAuthorizer {
 public:
  explicit DelegatingAuthorizer(HttpClient& http) : http_(http) {}

  absl::Status Authorize(std::string_view bearer_token, std::string_view path) override;

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

  HttpClient& http_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Cached> tokens_ ABSL_GUARDED_BY(mu_);     // token → user
  absl::flat_hash_map<std::string, Cached> decisions_ ABSL_GUARDED_BY(mu_);  // user|path
};

}  // namespace ksched::client
