// The secure port: routing, authorization and health checks over libmicrohttpd (mhd_library.h),
// with the TLS material of tls_material.h.
#include "src/server/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/pem.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <iterator>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/log.h"
#include "src/server/mhd_library.h"
#include "src/server/tls_material.h"

namespace ksched::server {
namespace {

bool AlwaysAllowed(const std::vector<std::string>& patterns, std::string_view path) {
  for (std::string_view p : patterns) {
    if (p.ends_with('*') ? path.starts_with(p.substr(0, p.size() - 1)) : p == path) {
      return true;
    }
  }
  return false;
}

// A metav1.Status body, as the API server's authorization filter writes it.
std::string StatusBody(int code, std::string_view reason, std::string_view message) {
  nlohmann::json s = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  if (code == 403) s["details"] = nlohmann::json::object();
  return s.dump() + "\n";
}

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
};

Reply Text(int status, std::string body) { return {.status = status, .body = std::move(body)}; }

// /healthz, /livez or /readyz, as k8s.io/apiserver's healthz handler answers it.
Reply HealthOf(const std::string& name, const std::vector<HealthCheck>& checks, bool verbose) {
  std::string lines;
  bool failed = false;
  for (const HealthCheck& c : checks) {
    absl::Status s = c.check();
    if (s.ok()) {
      lines += fmt::format("[+]{} ok\n", c.name);
    } else {
      failed = true;
      lines += fmt::format("[-]{} failed: reason withheld\n", c.name);
      KLOG(2, "Health check failed", {"check", name + "/" + c.name},
           {"err", std::string(s.message())});
    }
  }
  if (failed) {
    KLOG_WARNING(name + " check failed");
    return Text(500, fmt::format("{}{} check failed\n", lines, name));
  }
  return verbose ? Text(200, fmt::format("{}{} check passed\n", lines, name)) : Text(200, "ok");
}

// One health check of it: /healthz/<check>; nullopt for a check there is not.
std::optional<Reply> OneCheck(const std::vector<HealthCheck>& checks, std::string_view name) {
  for (const HealthCheck& c : checks) {
    if (c.name != name) continue;
    absl::Status s = c.check();
    return s.ok() ? Text(200, "ok")
                  : Text(500, fmt::format("internal server error: {}\n", std::string(s.message())));
  }
  return std::nullopt;
}

// The listening socket for `address`:`port` (IPv4 or IPv6; "::" takes IPv4 too, as Go's
// listener does), with SO_REUSEADDR but not SO_REUSEPORT, so that a second scheduler on the host
// fails to bind the port as upstream's does.
absl::StatusOr<int> Listen(const std::string& address, int port) {
  const auto failed = [&] {
    return absl::UnavailableError(
        fmt::format("failed to listen on {}:{}: address in use or not available", address, port));
  };
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v4;
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v6;
  } else {
    return absl::InvalidArgumentError(
        fmt::format("--bind-address: \"{}\" is not an IP address", address));
  }
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return failed();
  int yes = 1;
  int no = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (addr.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, SOMAXCONN) != 0) {
    close(fd);
    return failed();
  }
  return fd;
}

void LogFromMhd(void*, const char* format, va_list args) {
  if (!log::Enabled(4)) return;
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  std::string_view text(line);
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  KLOG(4, "Serving", {"detail", text});
}

}  // namespace

// What the daemon's callbacks read; lives as long as the daemon.
struct Server::State {
  std::vector<std::string> allow;
  RequestAuthorizer* authorizer = nullptr;
  X509StorePtr client_ca{nullptr, &X509_STORE_free};
  std::function<std::string()> metrics, configz;
  std::function<absl::StatusOr<std::string>(std::string_view)> debug;
  std::vector<HealthCheck> healthz, readyz;  // "ping" and "log" first.
  std::string cert_pem, key_pem, trust_pem;  // MHD reads them at start.

  Reply Route(MHD_Connection* c, std::string_view path) const;
  absl::StatusOr<Credentials> CredentialsOf(MHD_Connection* c) const;
};

absl::StatusOr<Credentials> Server::State::CredentialsOf(MHD_Connection* c) const {
  Credentials credentials;
  const char* auth = Mhd().lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
  const std::string_view a = auth == nullptr ? "" : auth;
  if (a.size() > 7 && absl::AsciiStrToLower(std::string(a.substr(0, 7))) == "bearer ") {
    credentials.bearer_token = std::string(a.substr(7));
  }
  const gnutls_datum_t* chain = nullptr;
  unsigned int length = 0;
  if (const MHD_ConnectionInfo* info =
          Mhd().get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
      info != nullptr && info->tls_session != nullptr) {
    chain = Mhd().gnutls_certificate_get_peers(static_cast<gnutls_session_t>(info->tls_session),
                                               &length);
  }
  absl::StatusOr<std::optional<UserInfo>> cert = CertificateUser(client_ca.get(), chain, length);
  if (cert.ok()) {
    credentials.client_certificate = std::move(*cert);
  } else if (credentials.bearer_token.empty()) {
    KLOG(2, "Unable to authenticate the request", {"err", std::string(cert.status().message())});
    return cert.status();
  }
  return credentials;
}

Reply Server::State::Route(MHD_Connection* c, std::string_view path) const {
  // Authorization first, for every path outside always_allow_paths.
  if (!AlwaysAllowed(allow, path)) {
    absl::StatusOr<Credentials> credentials = CredentialsOf(c);
    absl::Status s = credentials.status();
    if (s.ok()) {
      s = authorizer == nullptr ? absl::PermissionDeniedError(
                                      fmt::format("forbidden: no authorizer for path \"{}\"", path))
                                : authorizer->Authorize(*credentials, path);
    }
    if (!s.ok()) {
      const bool unauthenticated = s.code() == absl::StatusCode::kUnauthenticated;
      const int status = unauthenticated ? 401 : 403;
      return {.status = status,
              .body = StatusBody(status, unauthenticated ? "Unauthorized" : "Forbidden",
                                 unauthenticated ? "Unauthorized" : std::string(s.message())),
              .content_type = "application/json"};
    }
  }
  if (path == "/metrics") {
    return {.body = metrics ? metrics() : "",
            .content_type = "text/plain; version=0.0.4; charset=utf-8"};
  }
  if (path.starts_with("/debug/") && debug) {
    absl::StatusOr<std::string> body = debug(path);
    if (body.ok()) return {.body = *std::move(body), .content_type = "application/json"};
    const absl::StatusCode code = body.status().code();
    const auto [status, reason] = code == absl::StatusCode::kNotFound ? std::pair{404, "NotFound"}
                                  : code == absl::StatusCode::kInvalidArgument
                                      ? std::pair{400, "BadRequest"}
                                      : std::pair{500, "InternalError"};
    return {.status = status,
            .body = StatusBody(status, reason, std::string(body.status().message())),
            .content_type = "application/json"};
  }
  if (path == "/configz") {
    return {.body = fmt::format("{{\"componentconfig\":{}}}\n", configz ? configz() : "{}"),
            .content_type = "application/json"};
  }
  for (auto [name, checks] : {std::pair{"healthz", &healthz}, std::pair{"livez", &healthz},
                              std::pair{"readyz", &readyz}}) {
    const std::string base = fmt::format("/{}", name);
    if (path == base) {
      const char* v = nullptr;
      size_t n = 0;
      const bool verbose = Mhd().lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, "verbose", 7,
                                                           &v, &n) == MHD_YES;
      return HealthOf(name, *checks, verbose);
    }
    if (path.starts_with(base + "/")) {
      if (auto r = OneCheck(*checks, path.substr(base.size() + 1))) return *r;
    }
  }
  return Text(404, "404 page not found\n");
}

namespace {

// MHD's request handler: answers at the first call, when the headers are in, and never reads a
// body (none of these paths takes one); MHD then closes a connection whose body was not read.
MHD_Result OnRequest(void* cls, MHD_Connection* c, const char* url, const char*, const char*,
                     const char*, size_t*, void**) {
  const Reply r = static_cast<const Server::State*>(cls)->Route(c, url);
  MHD_Response* res = Mhd().create_response_from_buffer(
      r.body.size(), const_cast<char*>(r.body.data()), MHD_RESPMEM_MUST_COPY);
  if (res == nullptr) return MHD_NO;
  Mhd().add_response_header(res, "Content-Type", r.content_type.c_str());
  Mhd().add_response_header(res, "X-Content-Type-Options", "nosniff");
  const MHD_Result queued = Mhd().queue_response(c, static_cast<unsigned int>(r.status), res);
  Mhd().destroy_response(res);
  return queued;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServingOptions& options,
                                                      const Handlers& handlers,
                                                      RequestAuthorizer* authorizer) {
  if (absl::StatusOr<const MhdFunctions*> mhd = LoadMhd(); !mhd.ok()) return mhd.status();
  X509Ptr cert;
  KeyPtr key;
  if (options.cert_file.empty() != options.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-private-key-file must be given together");
  }
  std::string cert_file_pem;  // The whole file: it may hold the chain after the leaf.
  absl::Status st = options.cert_file.empty()
                        ? SelfSigned(&cert, &key)
                        : ReadPem(options.cert_file, options.key_file, &cert, &key, &cert_file_pem);
  if (!st.ok()) return st;

  std::unique_ptr<Server> s(new Server());
  s->state_ = std::make_unique<State>();
  State& state = *s->state_;
  state.allow = options.always_allow_paths;
  state.authorizer = authorizer;
  state.metrics = handlers.metrics;
  state.configz = handlers.configz;
  state.debug = handlers.debug;
  auto ping = [] { return absl::OkStatus(); };
  for (auto [to, from] :
       {std::pair{&state.healthz, &handlers.healthz}, std::pair{&state.readyz, &handlers.readyz}}) {
    *to = {{"ping", ping}, {"log", ping}};
    to->insert(to->end(), from->begin(), from->end());
  }
  state.cert_pem = options.cert_file.empty()
                       ? Pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); })
                       : std::move(cert_file_pem);
  state.key_pem = Pem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  if (!options.client_ca_pem.empty()) {
    absl::StatusOr<X509StorePtr> store =
        ClientCaStore(options.client_ca_pem, options.client_ca_source);
    if (!store.ok()) return store.status();
    state.client_ca = std::move(*store);
    // Given a trust list, MHD asks clients for a certificate without requiring one and lets the
    // handshake through: CredentialsOf verifies it per request, so that a certificate from
    // another CA gets 401 as upstream answers it, not a failed handshake.
    state.trust_pem = options.client_ca_pem;
  }

  absl::StatusOr<int> fd = Listen(options.bind_address, options.secure_port);
  if (!fd.ok()) return fd.status();
  // One event loop per thread holds every connection, so that idle or slow clients cost memory
  // (bounded below) but no thread, and probes keep their answers. Two threads: a slow /metrics
  // does not hold up a probe. The limits follow upstream's serving defaults where MHD has one:
  // headers up to the connection's memory, a connection idle for 32 s (ReadHeaderTimeout) is
  // closed.
  constexpr unsigned int kMaxConnections = 4096;
  constexpr size_t kConnectionMemory = size_t{64} * 1024;
  std::vector<MHD_OptionItem> opts = {
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&LogFromMhd), nullptr},
      {MHD_OPTION_LISTEN_SOCKET, *fd, nullptr},
      {MHD_OPTION_HTTPS_MEM_KEY, 0, state.key_pem.data()},
      {MHD_OPTION_HTTPS_MEM_CERT, 0, state.cert_pem.data()},
      {MHD_OPTION_THREAD_POOL_SIZE, 2, nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, kMaxConnections, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, 32, nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, kConnectionMemory, nullptr},
  };
  if (!state.trust_pem.empty()) {
    opts.push_back({MHD_OPTION_HTTPS_MEM_TRUST, 0, state.trust_pem.data()});
  }
  opts.push_back({MHD_OPTION_END, 0, nullptr});
  s->daemon_ = Mhd().start_daemon(MHD_USE_TLS | MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG,
                                  0, nullptr, nullptr, &OnRequest, &state, MHD_OPTION_ARRAY,
                                  opts.data(), MHD_OPTION_END);
  if (s->daemon_ == nullptr) {
    close(*fd);
    return absl::InternalError("setting up TLS for the secure port failed");
  }
  KLOG(0, "Serving securely on " + fmt::format("{}:{}", options.bind_address, options.secure_port));
  return s;
}

void Server::Stop() {
  if (daemon_ != nullptr) Mhd().stop_daemon(daemon_);  // Closes the listening socket too.
  daemon_ = nullptr;
}

Server::~Server() { Stop(); }

}  // namespace ksched::server
