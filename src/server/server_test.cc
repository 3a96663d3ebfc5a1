#include "src/server/server.h"

#include <httplib.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/testing/command.h"
#include "src/testing/ports.h"

namespace ksched::server {
namespace {

using ::testing::HasSubstr;

// Lets "good" in; "bad" is an unknown token; anonymous requests are forbidden.
class TokenAuthorizer : public RequestAuthorizer {
 public:
  absl::Status Authorize(const Credentials& credentials, std::string_view path) override {
    const std::string& token = credentials.bearer_token;
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

// Records the credentials of each request and lets every one in.
class RecordingAuthorizer : public RequestAuthorizer {
 public:
  absl::Status Authorize(const Credentials& credentials, std::string_view) override {
    seen.push_back(credentials);
    return absl::OkStatus();
  }
  std::vector<Credentials> seen;
};

// A CA and a client certificate it signs (subject `subject`), made with the openssl command in
// `dir`; returns the CA's PEM.
std::string MakeCa(const std::string& dir, const std::string& name) {
  using ksched::testing::RunCommand;
  const std::string ca = dir + "/" + name;
  EXPECT_EQ(RunCommand({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=" + name, "-keyout", ca + ".key", "-out", ca + ".crt"})
                .exit_code,
            0);
  std::ifstream in(ca + ".crt");
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void MakeClientCert(const std::string& dir, const std::string& ca, const std::string& subject) {
  using ksched::testing::RunCommand;
  const std::string client = dir + "/client";
  EXPECT_EQ(RunCommand({"openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", subject,
                        "-keyout", client + ".key", "-out", client + ".csr"})
                .exit_code,
            0);
  EXPECT_EQ(RunCommand({"openssl", "x509", "-req", "-in", client + ".csr", "-CA",
                        dir + "/" + ca + ".crt", "-CAkey", dir + "/" + ca + ".key",
                        "-CAcreateserial", "-days", "1", "-out", client + ".crt"})
                .exit_code,
            0);
}

TEST_F(ServerTest, AClientCertificateFromTheClientCaNamesItsUser) {
  const std::string dir = ::testing::TempDir() + "/client-ca";
  std::filesystem::create_directories(dir);
  const std::string ca_pem = MakeCa(dir, "ca");
  MakeCa(dir, "other-ca");
  RecordingAuthorizer authz;
  port_ = ksched::testing::FreePort();
  auto s =
      Server::Start({.bind_address = "127.0.0.1", .secure_port = port_, .client_ca_pem = ca_pem},
                    {.metrics = [] { return std::string("x 1\n"); }}, &authz);
  ASSERT_TRUE(s.ok()) << s.status();
  server_ = std::move(*s);
  auto get = [&](bool with_cert, const std::string& token = "") {
    auto client = with_cert ? std::make_unique<httplib::SSLClient>(
                                  "127.0.0.1", port_, dir + "/client.crt", dir + "/client.key")
                            : std::make_unique<httplib::SSLClient>("127.0.0.1", port_);
    client->enable_server_certificate_verification(false);
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client->Get("/metrics", headers);
  };

  MakeClientCert(dir, "ca", "/O=system:monitoring/O=team-a/CN=prometheus");
  auto r = get(true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  ASSERT_EQ(authz.seen.size(), 1u);
  ASSERT_TRUE(authz.seen[0].client_certificate.has_value());
  EXPECT_EQ(authz.seen[0].client_certificate->name, "prometheus");
  EXPECT_EQ(authz.seen[0].client_certificate->groups,
            (std::vector<std::string>{"system:monitoring", "team-a", "system:authenticated"}));
  // Without a certificate the request is anonymous, or has its token: the authorizer decides.
  EXPECT_EQ(get(false, "t")->status, 200);
  ASSERT_EQ(authz.seen.size(), 2u);
  EXPECT_FALSE(authz.seen[1].client_certificate.has_value());
  EXPECT_EQ(authz.seen[1].bearer_token, "t");

  // A certificate another CA signed authenticates nobody: 401, unless a token does.
  MakeClientCert(dir, "other-ca", "/O=system:masters/CN=intruder");
  r = get(true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_THAT(r->body, HasSubstr("\"reason\":\"Unauthorized\""));
  EXPECT_EQ(authz.seen.size(), 2u);
  EXPECT_EQ(get(true, "t")->status, 200);
  ASSERT_EQ(authz.seen.size(), 3u);
  EXPECT_FALSE(authz.seen[2].client_certificate.has_value());
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

  s = Server::Start({.secure_port = ksched::testing::FreePort(), .client_ca_pem = "not a PEM"}, {},
                    nullptr);
  EXPECT_EQ(s.status().message(), "client CA: no PEM certificate");
}

}  // namespace
}  // namespace ksched::server
