#include "src/auth/delegated_auth.h"

#include "fmt/format.h"
#include "src/base/log.h"

namespace ksched::auth {

using client::HttpClient;
using client::HttpResponse;

using nlohmann::json;

namespace {

constexpr size_t kMaxCached = 1024;  // Beyond that the cache starts over.

absl::StatusOr<json> Post(HttpClient& http, std::string_view path, const json& body) {
  HttpResponse r = http.Call({.method = "POST",
                              .path = std::string(path),
                              .body = body.dump(),
                              .timeout = absl::Seconds(10)});
  if (absl::Status s = r.ToStatus(); !s.ok()) return s;
  json out = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded())
    return absl::InternalError(fmt::format("{}: the answer is not JSON", path));
  return out;
}

}  // namespace

absl::StatusOr<std::string> ClientCaFromCluster(HttpClient& http) {
  HttpResponse r = http.Call(
      {.path = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
       .timeout = absl::Seconds(10)});
  if (absl::Status s = r.ToStatus(); !s.ok()) return s;
  json cm = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (cm.is_discarded()) {
    return absl::InternalError(
        "configmap extension-apiserver-authentication: the answer is not JSON");
  }
  const json ca = cm.is_object() && cm["data"].is_object()
                      ? cm["data"].value("client-ca-file", json())
                      : json();
  return ca.is_string() ? ca.get<std::string>() : "";
}

const DelegatingAuthorizer::Cached* DelegatingAuthorizer::Lookup(
    const absl::flat_hash_map<std::string, Cached>& cache, const std::string& key,
    absl::Time now) const {
  auto it = cache.find(key);
  return it != cache.end() && it->second.expires > now ? &it->second : nullptr;
}

absl::StatusOr<json> DelegatingAuthorizer::Authenticate(std::string_view token) {
  if (token.empty()) {
    return json{{"username", "system:anonymous"}, {"groups", {"system:unauthenticated"}}};
  }
  const std::string key(token);
  {
    absl::MutexLock lock(&mu_);
    if (const Cached* c = Lookup(tokens_, key, absl::Now())) {
      if (!c->status.ok()) return c->status;
      return c->user;
    }
  }
  absl::StatusOr<json> review = Post(authn_, "/apis/authentication.k8s.io/v1/tokenreviews",
                                     {{"apiVersion", "authentication.k8s.io/v1"},
                                      {"kind", "TokenReview"},
                                      {"spec", {{"token", token}}}});
  if (!review.ok()) {  // Not cached: the API server may be back soon.
    KLOG_ERROR("Unable to authenticate the request",
               {"err", std::string(review.status().message())});
    return absl::UnauthenticatedError("Unauthorized");
  }
  const json status = review->value("status", json::object());
  Cached c{.expires = absl::Now() + kTtl};
  if (status.value("authenticated", false)) {
    c.user = status.value("user", json::object());
  } else {
    c.status = absl::UnauthenticatedError("Unauthorized");
  }
  absl::MutexLock lock(&mu_);
  if (tokens_.size() >= kMaxCached) tokens_.clear();
  tokens_[key] = c;
  if (!c.status.ok()) return c.status;
  return c.user;
}

absl::Status DelegatingAuthorizer::Review(const json& user, std::string_view path) {
  const std::string username = user.value("username", "");
  const std::string key = fmt::format("{}|{}", user.dump(), path);
  {
    absl::MutexLock lock(&mu_);
    if (const Cached* c = Lookup(decisions_, key, absl::Now())) return c->status;
  }
  json spec = {{"user", username},
               {"groups", user.value("groups", json::array())},
               {"nonResourceAttributes", {{"path", path}, {"verb", "get"}}}};
  if (user.contains("uid")) spec["uid"] = user["uid"];
  if (user.contains("extra")) spec["extra"] = user["extra"];
  absl::StatusOr<json> review = Post(
      authz_, "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}});
  if (!review.ok()) {
    return absl::PermissionDeniedError(
        fmt::format("forbidden: authorization of user \"{}\" failed: {}", username,
                    std::string(review.status().message())));
  }
  const json status = review->value("status", json::object());
  Cached c{.expires = absl::Now() + kTtl};
  if (!status.value("allowed", false)) {
    // As the API server's forbidden response: `User "u" cannot get path "/p"[: reason]`.
    std::string msg = fmt::format("forbidden: User \"{}\" cannot get path \"{}\"", username, path);
    if (std::string reason = status.value("reason", ""); !reason.empty()) msg += ": " + reason;
    c.status = absl::PermissionDeniedError(msg);
  }
  absl::MutexLock lock(&mu_);
  if (decisions_.size() >= kMaxCached) decisions_.clear();
  decisions_[key] = c;
  return c.status;
}

absl::Status DelegatingAuthorizer::Authorize(const server::Credentials& credentials,
                                             std::string_view path) {
  if (const std::optional<server::UserInfo>& cert = credentials.client_certificate) {
    return Review({{"username", cert->name}, {"groups", cert->groups}}, path);
  }
  absl::StatusOr<json> user = Authenticate(credentials.bearer_token);
  if (!user.ok()) return user.status();
  return Review(*user, path);
}

}  // namespace ksched::auth
