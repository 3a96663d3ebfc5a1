#include "src/server/server.h"

#include <httplib.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/testing/ports.h"

namespace ksched::server {
namespace {

using ::testing::HasSubstr;

// Lets "good" in; "bad" is an unknown token; anonymous requests are forbidden.
class TokenAuthorizer : public RequestAuthorizer {
 public:
  absl::Status Authorize(std::string_view token, std::string_view path) override {
    if (token == "good") return absl::OkStatus();
    if (token == "bad") return absl::UnauthenticatedError("invalid bearer token");
    return absl::PermissionDeniedError("forbidden: User \"system:anonymous\" cannot get path \"" +
                                       std::string(path) + "\"");
  }
};

class ServerTest : public ::testing::Test {
 protected:
  void Start(const Handlers& handlers, RequestAuthorizer* authorizer,
             std::vector<std::string> always_allow = {"/healthz", "/readyz", "/livez"}) {
    port_ = ksched::testing::FreePort();
    auto s = Server::Start({.bind_address = "127.0.0.1",
                            .secure_port = port_,
                            .always_allow_paths = std::move(always_allow)},
                           handlers, authorizer);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
  }
  httplib::Result Get(const std::string& path, const std::string& token = "") {
    httplib::SSLClient client("127.0.0.1", port_);
    client.enable_server_certificate_verification(false);  // Self-signed.
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Get(path, headers);
  }

  int port_ = 0;
  std::unique_ptr<Server> server_;
};

TEST_F(ServerTest, HealthEndpointsAnswerAsKubeScheduler) {
  bool synced = false;
  Start({.healthz = {{"leaderElection", [] { return absl::OkStatus(); }}},
         .readyz = {{"leaderElection", [] { return absl::OkStatus(); }},
                    {"sched-handler-sync",
                     [&] {
                       return synced ? absl::OkStatus()
                                     : absl::UnavailableError("waiting for handlers to sync");
                     }}}},
        nullptr, {"/healthz", "/livez", "/readyz", "/readyz/*"});
  auto r = Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok");
  r = Get("/livez?verbose");
  EXPECT_EQ(r->body, "[+]ping ok\n[+]log ok\n[+]leaderElection ok\nlivez check passed\n");

  // Not ready until the caches synced: the reason is withheld from the listing...
  r = Get("/readyz");
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body,
            "[+]ping ok\n[+]log ok\n[+]leaderElection ok\n"
            "[-]sched-handler-sync failed: reason withheld\nreadyz check failed\n");
  // ...and given by the check's own path (allowed here by the pattern "/readyz/*").
  r = Get("/readyz/sched-handler-sync");
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body, "internal server error: waiting for handlers to sync\n");
  synced = true;
  EXPECT_EQ(Get("/readyz")->status, 200);
  EXPECT_EQ(Get("/readyz/sched-handler-sync")->body, "ok");
}

TEST_F(ServerTest, MetricsAndConfigzNeedAuthorization) {
  TokenAuthorizer authz;
  Start({.metrics = [] { return std::string("scheduler_pending_pods{queue=\"active\"} 3\n"); },
         .configz = [] { return std::string("{\"parallelism\":16}"); }},
        &authz);
  auto r = Get("/metrics");
  EXPECT_EQ(r->status, 403);
  EXPECT_THAT(r->body, HasSubstr("\"message\":\"forbidden: User \\\"system:anonymous\\\" cannot "
                                 "get path \\\"/metrics\\\"\""));
  EXPECT_THAT(r->body, HasSubstr("\"reason\":\"Forbidden\""));
  r = Get("/metrics", "bad");
  EXPECT_EQ(r->status, 401);
  EXPECT_THAT(r->body, HasSubstr("\"reason\":\"Unauthorized\""));

  r = Get("/metrics", "good");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r->body, "scheduler_pending_pods{queue=\"active\"} 3\n");
  r = Get("/configz", "good");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{\"componentconfig\":{\"parallelism\":16}}\n");
  r = Get("/nothing-here", "good");
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "404 page not found\n");
  // Health stays open to anyone, as upstream's always-allow paths.
  EXPECT_EQ(Get("/healthz")->status, 200);
}

TEST_F(ServerTest, ForbidsEverythingElseWithoutAnAuthorizer) {
  Start({.metrics = [] { return std::string("x 1\n"); }}, nullptr);
  EXPECT_EQ(Get("/metrics", "good")->status, 403);
}

TEST(ServerStartTest, BadCertificatesAndTakenPortsAreClearErrors) {
  auto s = Server::Start(
      {.secure_port = ksched::testing::FreePort(), .cert_file = "/nonexistent.crt"}, {}, nullptr);
  EXPECT_EQ(s.status().message(),
            "--tls-cert-file and --tls-private-key-file must be given together");
  s = Server::Start({.secure_port = ksched::testing::FreePort(),
                     .cert_file = "/nonexistent.crt",
                     .key_file = "/nonexistent.key"},
                    {}, nullptr);
  EXPECT_EQ(s.status().message(), "--tls-cert-file: cannot read \"/nonexistent.crt\"");

  const int port = ksched::testing::FreePort();
  auto first = Server::Start({.bind_address = "127.0.0.1", .secure_port = port}, {}, nullptr);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Server::Start({.bind_address = "127.0.0.1", .secure_port = port}, {}, nullptr);
  EXPECT_THAT(second.status().message(), HasSubstr("failed to listen on 127.0.0.1:"));
}

}  // namespace
}  // namespace ksched::server
