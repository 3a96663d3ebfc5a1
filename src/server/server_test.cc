#include "src/server/server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/lazy_library.h"
#include "src/base/proc_status.h"
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

TEST_F(ServerTest, DebugPathsNeedAuthorizationAndMapErrorsToStatuses) {
  TokenAuthorizer authz;
  Start({.debug = [](std::string_view path) -> absl::StatusOr<std::string> {
          if (path == "/debug/pods/default/web") return std::string("{\"name\":\"web\"}");
          if (path == "/debug/pods/x") return absl::InvalidArgumentError("want NAMESPACE/NAME");
          return absl::NotFoundError("no scheduling attempt of pod default/gone is kept");
        }},
        &authz);
  auto r = Get("/debug/pods/default/web");
  EXPECT_EQ(r->status, 403);
  EXPECT_THAT(r->body, HasSubstr("cannot get path \\\"/debug/pods/default/web\\\""));
  r = Get("/debug/pods/default/web", "good");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(r->body, "{\"name\":\"web\"}");
  r = Get("/debug/pods/default/gone", "good");
  EXPECT_EQ(r->status, 404);
  EXPECT_THAT(r->body, HasSubstr("\"reason\":\"NotFound\""));
  EXPECT_THAT(r->body, HasSubstr("no scheduling attempt of pod default/gone is kept"));
  EXPECT_EQ(Get("/debug/pods/x", "good")->status, 400);
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

// A TCP connection to the server on loopback, closed when it goes.
struct Socket {
  explicit Socket(int port) : fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Socket() { close(fd); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd;
  bool connected = false;
};

// A TLS session over a Socket, with OpenSSL, for clients that misbehave after the handshake.
struct TlsConnection {
  explicit TlsConnection(int port) : socket(port) {
    static SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    ssl = SSL_new(ctx);
    SSL_set_fd(ssl, socket.fd);
    timeval timeout{.tv_sec = 10, .tv_usec = 0};
    setsockopt(socket.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(socket.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    handshaken = socket.connected && SSL_connect(ssl) == 1;
  }
  ~TlsConnection() { SSL_free(ssl); }
  bool Send(const std::string& bytes) {
    return SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size())) > 0;
  }
  // What the server answered, up to when it closed or went quiet for the read timeout.
  std::string Answer() {
    std::string out;
    char buf[4096];
    for (int n; (n = SSL_read(ssl, buf, sizeof buf)) > 0;) out.append(buf, n);
    return out;
  }
  Socket socket;
  SSL* ssl = nullptr;
  bool handshaken = false;
};

// ThreadSanitizer (`make tsan`) keeps shadow memory for each byte the program touches: several
// times what the program itself holds.
#ifdef __SANITIZE_THREAD__
constexpr int64_t kRssFactor = 4;
#else
constexpr int64_t kRssFactor = 1;
#endif

int64_t RssKib() { return ProcStatusKib(0, "VmRSS").value_or(0); }

// The secure port under abuse: hundreds of idle connections that never start TLS, clients that
// stop in the middle of their headers, headers larger than any probe sends, and a body of a
// gigabyte announced. All the while the probes are answered, each in well under the kubelet's
// timeout; oversized headers get 431, a body no path takes is not read, and the memory stays
// bounded.
TEST_F(ServerTest, ProbesAreAnsweredWhileIdleSlowAndOversizedClientsHoldConnections) {
  signal(SIGPIPE, SIG_IGN);  // A write to a connection the server closed fails instead.
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = std::max<rlim_t>(files.rlim_cur, std::min<rlim_t>(files.rlim_max, 4096));
  setrlimit(RLIMIT_NOFILE, &files);
  Start({.healthz = {{"leaderElection", [] { return absl::OkStatus(); }}}}, nullptr);
  // A probe as the kubelet's, but patient: answered within 3 s (the old one-thread-per-connection
  // server gave no answer at all while two idle connections held its two threads).
  auto probe = [&] {
    httplib::SSLClient client("127.0.0.1", port_);
    client.enable_server_certificate_verification(false);
    client.set_connection_timeout(3);
    client.set_read_timeout(3);
    auto r = client.Get("/healthz");
    return r && r->status == 200 && r->body == "ok";
  };
  ASSERT_TRUE(probe());
  const int64_t rss_before = RssKib();

  std::vector<std::unique_ptr<Socket>> idle;
  for (int i = 0; i < 800; ++i) {
    idle.push_back(std::make_unique<Socket>(port_));
    ASSERT_TRUE(idle.back()->connected) << i;
  }
  std::vector<std::unique_ptr<TlsConnection>> slow;
  for (int i = 0; i < 50; ++i) {
    slow.push_back(std::make_unique<TlsConnection>(port_));
    ASSERT_TRUE(slow.back()->handshaken) << i;
    ASSERT_TRUE(slow.back()->Send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a"));
  }
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(probe()) << "probe " << i;

  TlsConnection big_headers(port_);
  ASSERT_TRUE(big_headers.handshaken);
  big_headers.Send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(1 << 20, 'a') +
                   "\r\n\r\n");
  EXPECT_THAT(big_headers.Answer(), HasSubstr("HTTP/1.1 431"));

  TlsConnection big_body(port_);
  ASSERT_TRUE(big_body.handshaken);
  big_body.Send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n");
  int sent_mib = 0;
  while (sent_mib < 64 && big_body.Send(std::string(1 << 20, 'b'))) ++sent_mib;
  EXPECT_LT(sent_mib, 64) << "the server went on reading a body no path takes";
  EXPECT_TRUE(probe());
  const int64_t rss_under_abuse = RssKib();
  EXPECT_LT(rss_under_abuse - rss_before, kRssFactor * 64 * 1024)
      << "KiB more for 850 connections held open: " << rss_under_abuse - rss_before;

  idle.clear();
  slow.clear();
  EXPECT_TRUE(probe());
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
  EXPECT_EQ(s.status().message(),
            "--tls-cert-file: open /nonexistent.crt: no such file or directory");

  const int port = ksched::testing::FreePort();
  auto first = Server::Start({.bind_address = "127.0.0.1", .secure_port = port}, {}, nullptr);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Server::Start({.bind_address = "127.0.0.1", .secure_port = port}, {}, nullptr);
  EXPECT_THAT(second.status().message(), HasSubstr("failed to listen on 127.0.0.1:"));

  s = Server::Start({.secure_port = ksched::testing::FreePort(), .client_ca_pem = "not a PEM"}, {},
                    nullptr);
  EXPECT_EQ(s.status().message(), "client CA: no PEM certificate");
}

// libmicrohttpd and GnuTLS (about 1.5 MiB resident) are loaded when a server starts: a ksched run
// with --secure-port=0 never maps them. In a process of its own, so that no other test's server
// loaded them first.
TEST(ServerStartDeathTest, LibmicrohttpdIsLoadedWhenAServerStarts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (LazyLibrary::IsLoaded("libmicrohttpd.so.12")) std::_Exit(1);
        auto s = Server::Start(
            {.bind_address = "127.0.0.1", .secure_port = ksched::testing::FreePort()}, {}, nullptr);
        std::_Exit(s.ok() && LazyLibrary::IsLoaded("libmicrohttpd.so.12") &&
                           LazyLibrary::IsLoaded("libgnutls.so.30")
                       ? 0
                       : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ksched::server
