#include "src/server/server.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/log.h"

namespace ksched::server {
namespace {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

// A self-signed serving certificate for localhost and 127.0.0.1, valid for a year, as upstream's
// MaybeDefaultWithSelfSignedCerts makes when no --tls-cert-file is given (kept in memory).
absl::Status SelfSigned(X509Ptr* cert, KeyPtr* key) {
  key->reset(EVP_RSA_gen(2048));
  if (*key == nullptr) return absl::InternalError("generating an RSA key failed");
  cert->reset(X509_new());
  X509* x = cert->get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), static_cast<long>(std::time(nullptr)));
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 365L * 24 * 3600);
  X509_set_pubkey(x, key->get());
  const std::string cn = fmt::format("localhost@{}", std::time(nullptr));
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  for (auto [nid, value] : {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                            std::pair{NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                            std::pair{NID_ext_key_usage, "serverAuth"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (ext == nullptr) return absl::InternalError("building the certificate's extensions failed");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(x, key->get(), EVP_sha256()) == 0) {
    return absl::InternalError("signing the self-signed certificate failed");
  }
  return absl::OkStatus();
}

absl::Status ReadPem(const std::string& cert_file, const std::string& key_file, X509Ptr* cert,
                     KeyPtr* key) {
  std::unique_ptr<FILE, int (*)(FILE*)> cf(std::fopen(cert_file.c_str(), "r"), &std::fclose);
  if (cf == nullptr)
    return absl::InvalidArgumentError(
        fmt::format("--tls-cert-file: cannot read \"{}\"", cert_file));
  cert->reset(PEM_read_X509(cf.get(), nullptr, nullptr, nullptr));
  if (*cert == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("--tls-cert-file: \"{}\" holds no PEM certificate", cert_file));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> kf(std::fopen(key_file.c_str(), "r"), &std::fclose);
  if (kf == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("--tls-private-key-file: cannot read \"{}\"", key_file));
  }
  key->reset(PEM_read_PrivateKey(kf.get(), nullptr, nullptr, nullptr));
  if (*key == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("--tls-private-key-file: \"{}\" holds no PEM private key", key_file));
  }
  return absl::OkStatus();
}

// The client CA bundle, for verifying client certificates (TLS client authentication).
// `source` names the bundle in the error.
absl::StatusOr<X509_STORE*> ClientCaStore(const std::string& pem, const std::string& source) {
  std::unique_ptr<X509_STORE, void (*)(X509_STORE*)> store(X509_STORE_new(), &X509_STORE_free);
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                          &BIO_free);
  int count = 0;
  while (X509Ptr cert{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) {
    X509_STORE_add_cert(store.get(), cert.get());
    ++count;
  }
  ERR_clear_error();  // The end of the bundle reads as an error.
  if (count == 0) {
    return absl::InvalidArgumentError(fmt::format("{}: no PEM certificate", source));
  }
  X509_STORE_set_purpose(store.get(), X509_PURPOSE_SSL_CLIENT);
  return store.release();
}

// The entries of `nid` in the certificate's subject.
std::vector<std::string> SubjectEntries(X509* cert, int nid) {
  std::vector<std::string> out;
  X509_NAME* name = X509_get_subject_name(cert);
  for (int i = -1; (i = X509_NAME_get_index_by_NID(name, nid, i)) >= 0;) {
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
    if (n < 0) continue;
    out.emplace_back(reinterpret_cast<char*>(utf8), n);
    OPENSSL_free(utf8);
  }
  return out;
}

// Who the request's client certificate names: nullopt without one; Unauthenticated when it does
// not chain to the client CA (or the server asked for none).
absl::StatusOr<std::optional<UserInfo>> CertificateUser(const SSL* ssl) {
  if (ssl == nullptr) return std::nullopt;
  X509Ptr peer(SSL_get1_peer_certificate(ssl));
  if (peer == nullptr) return std::nullopt;
  if (long err = SSL_get_verify_result(ssl); err != X509_V_OK) {
    return absl::UnauthenticatedError(
        fmt::format("verifying certificate: {}", X509_verify_cert_error_string(err)));
  }
  std::vector<std::string> cn = SubjectEntries(peer.get(), NID_commonName);
  UserInfo user{.name = cn.empty() ? "" : cn.front(),
                .groups = SubjectEntries(peer.get(), NID_organizationName)};
  if (user.name.empty()) return absl::UnauthenticatedError("the certificate names no user (CN)");
  user.groups.push_back("system:authenticated");
  return user;
}

// What the request says of who sends it; Unauthenticated for a certificate that does not verify
// and no token that could authenticate instead.
absl::StatusOr<Credentials> CredentialsOf(const httplib::Request& req) {
  Credentials credentials;
  const std::string auth = req.get_header_value("Authorization");
  if (auth.size() > 7 && absl::AsciiStrToLower(auth.substr(0, 7)) == "bearer ") {
    credentials.bearer_token = auth.substr(7);
  }
  absl::StatusOr<std::optional<UserInfo>> cert = CertificateUser(req.ssl);
  if (cert.ok()) {
    credentials.client_certificate = std::move(*cert);
  } else if (credentials.bearer_token.empty()) {
    KLOG(2, "Unable to authenticate the request", {"err", std::string(cert.status().message())});
    return cert.status();
  }
  return credentials;
}

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

void SetText(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(body, "text/plain; charset=utf-8");
}

// /healthz, /livez or /readyz and their /<check> subpaths, as k8s.io/apiserver's healthz
// handlers answer them.
void ServeHealth(httplib::Server& http, const std::string& name, std::vector<HealthCheck> checks) {
  auto ping = [] { return absl::OkStatus(); };
  checks.insert(checks.begin(), {{"ping", ping}, {"log", ping}});
  auto shared = std::make_shared<const std::vector<HealthCheck>>(std::move(checks));
  http.Get("/" + name, [name, shared](const httplib::Request& req, httplib::Response& res) {
    std::string lines;
    bool failed = false;
    for (const HealthCheck& c : *shared) {
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
      SetText(res, 500, fmt::format("{}{} check failed\n", lines, name));
    } else if (req.has_param("verbose")) {
      SetText(res, 200, fmt::format("{}{} check passed\n", lines, name));
    } else {
      SetText(res, 200, "ok");
    }
  });
  for (size_t i = 0; i < shared->size(); ++i) {
    http.Get(fmt::format("/{}/{}", name, (*shared)[i].name), [shared, i](const httplib::Request&,
                                                                         httplib::Response& res) {
      absl::Status s = (*shared)[i].check();
      if (s.ok()) {
        SetText(res, 200, "ok");
      } else {
        SetText(res, 500, fmt::format("internal server error: {}\n", std::string(s.message())));
      }
    });
  }
}

}  // namespace

absl::Status CheckClientCa(const std::string& pem, const std::string& source) {
  absl::StatusOr<X509_STORE*> store = ClientCaStore(pem, source);
  if (!store.ok()) return store.status();
  X509_STORE_free(*store);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServingOptions& options,
                                                      const Handlers& handlers,
                                                      RequestAuthorizer* authorizer) {
  X509Ptr cert;
  KeyPtr key;
  if (options.cert_file.empty() != options.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-private-key-file must be given together");
  }
  absl::Status st = options.cert_file.empty()
                        ? SelfSigned(&cert, &key)
                        : ReadPem(options.cert_file, options.key_file, &cert, &key);
  if (!st.ok()) return st;

  std::unique_ptr<Server> s(new Server());
  s->http_ = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
  httplib::Server& http = *s->http_;
  if (!http.is_valid()) return absl::InternalError("setting up TLS for the secure port failed");
  if (!options.client_ca_pem.empty()) {
    absl::StatusOr<X509_STORE*> store =
        ClientCaStore(options.client_ca_pem, options.client_ca_source);
    if (!store.ok()) return store.status();
    SSL_CTX* ctx = static_cast<httplib::SSLServer&>(http).ssl_context();
    SSL_CTX_set_cert_store(ctx, *store);  // The context owns it.
    // Ask for a certificate without requiring one, and let every handshake through: the
    // verification result is read per request (CertificateUser), so that a bad certificate gets
    // 401 as upstream answers it, not a failed handshake.
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
  }
  // Scrapes and probes are few: two threads serve them (httplib's default is one per core, at
  // least eight).
  http.new_task_queue = [] { return new httplib::ThreadPool(2); };
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, which would let a second
  // scheduler on the host bind the same port instead of failing as upstream does.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });

  // Authorization first, for every path outside always_allow_paths.
  std::vector<std::string> allow = options.always_allow_paths;
  http.set_pre_routing_handler(
      [allow, authorizer](const httplib::Request& req, httplib::Response& res) {
        if (AlwaysAllowed(allow, req.path)) return httplib::Server::HandlerResponse::Unhandled;
        absl::StatusOr<Credentials> credentials = CredentialsOf(req);
        absl::Status s = credentials.status();
        if (s.ok()) {
          s = authorizer == nullptr ? absl::PermissionDeniedError(fmt::format(
                                          "forbidden: no authorizer for path \"{}\"", req.path))
                                    : authorizer->Authorize(*credentials, req.path);
        }
        if (s.ok()) return httplib::Server::HandlerResponse::Unhandled;
        const bool unauthenticated = s.code() == absl::StatusCode::kUnauthenticated;
        res.status = unauthenticated ? 401 : 403;
        res.set_content(StatusBody(res.status, unauthenticated ? "Unauthorized" : "Forbidden",
                                   unauthenticated ? "Unauthorized" : std::string(s.message())),
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      });

  ServeHealth(http, "healthz", handlers.healthz);
  ServeHealth(http, "livez", handlers.healthz);
  ServeHealth(http, "readyz", handlers.readyz);
  http.Get("/metrics",
           [metrics = handlers.metrics](const httplib::Request&, httplib::Response& res) {
             res.set_content(metrics ? metrics() : "", "text/plain; version=0.0.4; charset=utf-8");
           });
  http.Get(
      "/configz", [configz = handlers.configz](const httplib::Request&, httplib::Response& res) {
        res.set_content(fmt::format("{{\"componentconfig\":{}}}\n", configz ? configz() : "{}"),
                        "application/json");
      });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404) SetText(res, 404, "404 page not found\n");
  });

  if (!http.bind_to_port(options.bind_address, options.secure_port)) {
    return absl::UnavailableError(
        fmt::format("failed to listen on {}:{}: address in use or not available",
                    options.bind_address, options.secure_port));
  }
  s->thread_ = std::thread([&http] { http.listen_after_bind(); });
  KLOG(0, "Serving securely on " + fmt::format("{}:{}", options.bind_address, options.secure_port));
  return s;
}

void Server::Stop() {
  if (http_ != nullptr) http_->stop();
  if (thread_.joinable()) thread_.join();
}

Server::~Server() { Stop(); }

}  // namespace ksched::server
