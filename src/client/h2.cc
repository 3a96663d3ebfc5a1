#include "src/client/h2.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "src/client/go_errors.h"

namespace ksched::client {
namespace {

using SslCtxPtr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;

std::string SslError(std::string_view what) {
  const unsigned long e = ERR_get_error();
  char buf[256] = {};
  if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return e != 0 ? fmt::format("{}: {}", what, buf) : std::string(what);
}

// The PEM blocks of `pem`, read with `read`, handed to `use`; false if there was none or `use`
// refused one.
template <typename T, typename Read, typename Use>
bool EachPem(const std::string& pem, Read read, Use use) {
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                          BIO_free);
  int n = 0;
  while (T* x = read(bio.get(), nullptr, nullptr, nullptr)) {
    if (!use(x, n++)) return false;
  }
  ERR_clear_error();  // The end of the data reads as an error.
  return n > 0;
}

// The TLS settings of a RestConfig: the CA, the client certificate and key, ALPN h2.
absl::StatusOr<SslCtxPtr> MakeContext(const RestConfig& c) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (ctx == nullptr) return absl::InternalError(SslError("SSL_CTX_new"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // No SSL_MODE_RELEASE_BUFFERS: the connection is long-lived and busy, and releasing its read
  // buffer whenever it drains cost a 16 KiB malloc a record (and a consolidation of malloc's free
  // lists): 2.4% of ksched's CPU in SteadyState.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Read ahead: TLS reads what the socket has, up to 64 KiB, in one read(), where it read each
  // record's header and then its body: 35 read() calls a pod in SteadyState (Process reads until
  // TLS holds nothing more, so nothing read ahead waits unseen).
  SSL_CTX_set_read_ahead(ctx.get(), 1);
  SSL_CTX_set_default_read_buffer_len(ctx.get(), size_t{64} * 1024);
  static const unsigned char kAlpn[] = {2, 'h', '2'};
  SSL_CTX_set_alpn_protos(ctx.get(), kAlpn, sizeof kAlpn);
  if (c.insecure_skip_tls_verify) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    bool loaded = false;
    if (!c.ca_data.empty()) {
      X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
      loaded = EachPem<X509>(c.ca_data, PEM_read_bio_X509, [store](X509* x, int) {
        const bool ok = X509_STORE_add_cert(store, x) == 1;
        X509_free(x);
        return ok;
      });
    } else if (!c.ca_file.empty()) {
      loaded = SSL_CTX_load_verify_locations(ctx.get(), c.ca_file.c_str(), nullptr) == 1;
    } else {
      loaded = SSL_CTX_set_default_verify_paths(ctx.get()) == 1;
    }
    if (!loaded) return absl::InvalidArgumentError(SslError("the certificate authority"));
  }
  if (!c.cert_data.empty()) {
    SSL_CTX* raw = ctx.get();
    if (!EachPem<X509>(c.cert_data, PEM_read_bio_X509, [raw](X509* x, int i) {
          if (i == 0) {
            const bool ok = SSL_CTX_use_certificate(raw, x) == 1;
            X509_free(x);
            return ok;
          }
          return SSL_CTX_add_extra_chain_cert(raw, x) == 1;  // Takes `x`.
        })) {
      return absl::InvalidArgumentError(SslError("the client certificate"));
    }
  } else if (!c.cert_file.empty() &&
             SSL_CTX_use_certificate_chain_file(ctx.get(), c.cert_file.c_str()) != 1) {
    return absl::InvalidArgumentError(SslError("the client certificate " + c.cert_file));
  }
  if (!c.key_data.empty()) {
    SSL_CTX* raw = ctx.get();
    if (!EachPem<EVP_PKEY>(c.key_data, PEM_read_bio_PrivateKey, [raw](EVP_PKEY* k, int) {
          const bool ok = SSL_CTX_use_PrivateKey(raw, k) == 1;
          EVP_PKEY_free(k);
          return ok;
        })) {
      return absl::InvalidArgumentError(SslError("the client key"));
    }
  } else if (!c.key_file.empty() &&
             SSL_CTX_use_PrivateKey_file(ctx.get(), c.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return absl::InvalidArgumentError(SslError("the client key " + c.key_file));
  }
  return ctx;
}

// host and port of an https:// URL; "[::1]:6443" gives "::1" and "6443".
std::pair<std::string, std::string> HostPort(const std::string& server) {
  std::string rest = server.substr(server.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (rest.starts_with('[')) {
    const size_t end = rest.find(']');
    const std::string host = rest.substr(1, end - 1);
    return {host, end + 1 < rest.size() && rest[end + 1] == ':' ? rest.substr(end + 2) : "443"};
  }
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos) return {rest, "443"};
  return {rest.substr(0, colon), rest.substr(colon + 1)};
}

bool IsIp(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

struct H2Connection::Impl {
  H2Handlers handlers;
  SslCtxPtr ctx{nullptr, SSL_CTX_free};
  SSL* ssl = nullptr;
  nghttp2_session* session = nullptr;
  std::string authority;
  sockaddr_storage address{};  // The address connected to, for Go's words on a failure.
  enum class State { kConnecting, kHandshaking, kReady } state = State::kConnecting;
  absl::Time connect_deadline;
  bool want_write = false;  // The socket refused part of `out`, or TLS wants to write.
  // The socket's last read() returned less than TLS asked for, or nothing: it had no more then.
  bool drained = false;
  std::string out;  // Encrypted-to-be bytes nghttp2 produced that TLS has not taken.
  bool goaway = false;
  bool in_callback = false;  // Inside nghttp2_session_mem_recv: no mem_send then.
  absl::Time last_read = absl::Now();
  absl::Time ping_sent = absl::InfinitePast();  // A PING waiting for its answer.
  // The bodies being sent, by stream.
  struct Body {
    std::string_view data;
    size_t sent = 0;
  };
  std::map<int32_t, Body> bodies;
  std::map<int32_t, void*> streams;  // The open streams and their users.

  // Whether the TLS call that returned `ret` only has to wait for the socket (noting which way);
  // false for an error.
  bool WouldBlock(int ret) {
    const int e = SSL_get_error(ssl, ret);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return false;
    want_write = e == SSL_ERROR_WANT_WRITE;
    return true;
  }

  ~Impl() {
    if (session != nullptr) nghttp2_session_del(session);
    if (ssl != nullptr) SSL_free(ssl);
  }
};

H2Connection::H2Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

H2Connection::~H2Connection() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<std::unique_ptr<H2Connection>> H2Connection::Open(const RestConfig& config,
                                                                 H2Handlers handlers) {
  auto impl = std::make_unique<Impl>();
  impl->handlers = std::move(handlers);
  absl::StatusOr<SslCtxPtr> ctx = MakeContext(config);
  if (!ctx.ok()) return ctx.status();
  impl->ctx = std::move(*ctx);
  const auto [host, port] = HostPort(config.server);
  const std::string name = config.tls_server_name.empty() ? host : config.tls_server_name;
  impl->authority = (name.find(':') != std::string::npos ? "[" + name + "]" : name) + ":" + port;

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int err = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); err != 0) {
    return absl::UnavailableError(fmt::format("resolve {}: {}", host, gai_strerror(err)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addrs(found, freeaddrinfo);
  auto conn = std::unique_ptr<H2Connection>(new H2Connection(std::move(impl)));
  Impl& m = *conn->impl_;
  conn->fd_ = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (conn->fd_ < 0) return absl::UnavailableError(fmt::format("socket: {}", strerror(errno)));
  const int one = 1;
  setsockopt(conn->fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(conn->fd_, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  m.connect_deadline = absl::Now() + absl::Seconds(10);  // libcurl's CONNECTTIMEOUT here.
  std::memcpy(&m.address, found->ai_addr, std::min<size_t>(found->ai_addrlen, sizeof m.address));
  if (connect(conn->fd_, found->ai_addr, found->ai_addrlen) != 0 && errno != EINPROGRESS) {
    conn->Fail(GoDialError(reinterpret_cast<const sockaddr*>(&m.address), errno));
    return conn;
  }

  m.ssl = SSL_new(m.ctx.get());
  SSL_set_fd(m.ssl, conn->fd_);
  // Notes whether each read() of the socket emptied it (Impl::drained), so that Process stops
  // reading there instead of asking once more for an EAGAIN.
  BIO* rbio = SSL_get_rbio(m.ssl);
  BIO_set_callback_arg(rbio, reinterpret_cast<char*>(&m));
  BIO_set_callback_ex(
      rbio,
      +[](BIO* b, int oper, const char*, size_t len, int, long, int ret,
          size_t* processed) -> long {
        if (oper == (BIO_CB_READ | BIO_CB_RETURN)) {
          reinterpret_cast<Impl*>(BIO_get_callback_arg(b))->drained =
              ret <= 0 || processed == nullptr || *processed < len;
        }
        return ret;
      });
  SSL_set_connect_state(m.ssl);
  if (!IsIp(name)) SSL_set_tlsext_host_name(m.ssl, name.c_str());
  if (!config.insecure_skip_tls_verify) {
    X509_VERIFY_PARAM* param = SSL_get0_param(m.ssl);
    if (IsIp(name)) {
      X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
    } else {
      X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
    }
  }

  nghttp2_session_callbacks* cbs = nullptr;
  nghttp2_session_callbacks_new(&cbs);
  nghttp2_session_callbacks_set_on_header_callback(
      cbs,
      +[](nghttp2_session* s, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
          const uint8_t* value, size_t valuelen, uint8_t, void* self) -> int {
        if (frame->hd.type != NGHTTP2_HEADERS) return 0;
        void* user = nghttp2_session_get_stream_user_data(s, frame->hd.stream_id);
        if (user == nullptr) return 0;
        static_cast<H2Connection*>(self)->impl_->handlers.on_header(
            user, std::string_view(reinterpret_cast<const char*>(name), namelen),
            std::string_view(reinterpret_cast<const char*>(value), valuelen));
        return 0;
      });
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
      cbs,
      +[](nghttp2_session* s, uint8_t, int32_t stream, const uint8_t* data, size_t len,
          void* self) -> int {
        void* user = nghttp2_session_get_stream_user_data(s, stream);
        if (user == nullptr) return 0;
        static_cast<H2Connection*>(self)->impl_->handlers.on_data(
            user, std::string_view(reinterpret_cast<const char*>(data), len));
        return 0;
      });
  nghttp2_session_callbacks_set_on_stream_close_callback(
      cbs, +[](nghttp2_session* s, int32_t stream, uint32_t error_code, void* self) -> int {
        auto* c = static_cast<H2Connection*>(self);
        c->impl_->bodies.erase(stream);
        (void)s;
        auto it = c->impl_->streams.find(stream);
        if (it == c->impl_->streams.end()) return 0;  // Reset by us.
        void* user = it->second;
        c->impl_->streams.erase(it);
        --c->open_streams_;
        std::string error;
        if (error_code != NGHTTP2_NO_ERROR) {
          error = fmt::format("HTTP/2 stream {} closed: {}", stream,
                              nghttp2_http2_strerror(error_code));
        }
        c->impl_->handlers.on_close(user, error, error_code == NGHTTP2_REFUSED_STREAM);
        return 0;
      });
  nghttp2_session_callbacks_set_on_frame_recv_callback(
      cbs, +[](nghttp2_session*, const nghttp2_frame* frame, void* self) -> int {
        if (frame->hd.type == NGHTTP2_GOAWAY)
          static_cast<H2Connection*>(self)->impl_->goaway = true;
        return 0;
      });
  nghttp2_session_client_new(&m.session, cbs, conn.get());
  nghttp2_session_callbacks_del(cbs);
  // Large windows, so that a list of every pod or a busy watch is not held back waiting for
  // WINDOW_UPDATEs (client-go's are larger still).
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                             {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 4 << 20}};
  nghttp2_submit_settings(m.session, NGHTTP2_FLAG_NONE, settings, 2);
  nghttp2_session_set_local_window_size(m.session, NGHTTP2_FLAG_NONE, 0, 16 << 20);
  return conn;
}

void H2Connection::Fail(const std::string& why) {
  if (dead_) return;
  dead_ = true;
  error_ = why;
  // Every open stream ends with the error, in the order they were opened.
  std::map<int32_t, void*> open = std::move(impl_->streams);
  impl_->streams.clear();
  open_streams_ = 0;
  for (const auto& [id, user] : open) impl_->handlers.on_close(user, why, refused_h2_);
}

short H2Connection::events() const {
  if (dead_) return 0;
  if (impl_->state == Impl::State::kConnecting) return POLLOUT;
  return static_cast<short>(POLLIN | (impl_->want_write || !impl_->out.empty() ||
                                              (impl_->state == Impl::State::kReady &&
                                               nghttp2_session_want_write(impl_->session) != 0)
                                          ? POLLOUT
                                          : 0));
}

bool H2Connection::Usable() const { return !dead_ && !impl_->goaway; }

void H2Connection::Tick(absl::Time now) {
  Impl& m = *impl_;
  if (dead_) return;
  if (m.state != Impl::State::kReady) {
    if (now >= m.connect_deadline) {
      Fail(GoDialError(reinterpret_cast<const sockaddr*>(&m.address), ETIMEDOUT));
    }
    return;
  }
  // client-go's HTTP/2 health check: a PING after 30 s without a frame, and the connection
  // given up if 15 s more pass without one.
  if (m.ping_sent == absl::InfinitePast() && now - m.last_read >= absl::Seconds(30)) {
    nghttp2_submit_ping(m.session, NGHTTP2_FLAG_NONE, nullptr);
    m.ping_sent = now;
    Flush();
  } else if (m.ping_sent != absl::InfinitePast() && now - m.ping_sent >= absl::Seconds(15)) {
    Fail("no answer from " + m.authority + " to an HTTP/2 PING in 15s");
  }
}

void H2Connection::Process(short revents) {
  if (dead_) return;
  Impl& m = *impl_;
  if (m.state == Impl::State::kConnecting) {
    // The connect's outcome; an error or hang-up without one reads as refused.
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err == 0 && (revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) err = ECONNREFUSED;
    if (err != 0) {
      Fail(GoDialError(reinterpret_cast<const sockaddr*>(&m.address), err));
      return;
    }
    m.state = Impl::State::kHandshaking;
  }
  if (m.state == Impl::State::kHandshaking) {
    const int r = SSL_do_handshake(m.ssl);
    if (r != 1) {
      if (!m.WouldBlock(r)) Fail(SslError("TLS handshake with " + m.authority));
      return;
    }
    const unsigned char* alpn = nullptr;
    unsigned int alpn_len = 0;
    SSL_get0_alpn_selected(m.ssl, &alpn, &alpn_len);
    if (std::string_view(reinterpret_cast<const char*>(alpn), alpn_len) != "h2") {
      refused_h2_ = true;
      Fail(m.authority + " does not speak HTTP/2");  // Nothing was sent: `refused`.
      return;
    }
    m.state = Impl::State::kReady;
    m.want_write = false;
  }
  // Read all TLS has, and hand it to nghttp2 (also when only writable: TLS may have read ahead).
  // Once the socket's last read() emptied it and TLS holds nothing more, stop: poll() tells when
  // more comes, so that no read() is made only to be told EAGAIN.
  {
    char buf[64 * 1024];
    m.drained = false;
    while (true) {
      const int n = SSL_read(m.ssl, buf, sizeof buf);
      if (n <= 0) {
        const int e = SSL_get_error(m.ssl, n);
        if (e == SSL_ERROR_WANT_READ) break;
        if (e == SSL_ERROR_WANT_WRITE) {
          m.want_write = true;
          break;
        }
        Fail(e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
                 ? "the server closed the connection"
                 : SslError("TLS read from " + m.authority));
        return;
      }
      m.want_write = false;
      m.last_read = absl::Now();
      m.ping_sent = absl::InfinitePast();
      m.in_callback = true;
      const ssize_t used =
          nghttp2_session_mem_recv(m.session, reinterpret_cast<const uint8_t*>(buf), n);
      m.in_callback = false;
      if (used < 0) {
        Fail(fmt::format("HTTP/2: {}", nghttp2_strerror(static_cast<int>(used))));
        return;
      }
      if (dead_) return;
      if (m.drained && SSL_has_pending(m.ssl) == 0) break;
    }
  }
  Flush();
}

void H2Connection::Flush() {
  Impl& m = *impl_;
  if (dead_ || m.state != Impl::State::kReady) return;
  while (true) {
    if (m.out.size() < size_t{64} * 1024) {
      const uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(m.session, &data);
      if (n < 0) {
        Fail(fmt::format("HTTP/2: {}", nghttp2_strerror(static_cast<int>(n))));
        return;
      }
      m.out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
      if (n > 0) continue;  // Gather what there is, then write once.
    }
    if (m.out.empty()) return;
    const int w = SSL_write(m.ssl, m.out.data(), static_cast<int>(m.out.size()));
    if (w <= 0) {
      if (!m.WouldBlock(w)) Fail(SslError("TLS write to " + m.authority));
      return;
    }
    m.out.erase(0, static_cast<size_t>(w));
  }
}

int32_t H2Connection::Submit(const H2Request& request, void* user) {
  if (!Usable()) return 0;
  Impl& m = *impl_;
  auto nv = [](std::string_view name, std::string_view value) {
    return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                      reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                      value.size(), NGHTTP2_NV_FLAG_NONE};
  };
  std::vector<nghttp2_nv> headers = {nv(":method", request.method), nv(":scheme", "https"),
                                     nv(":authority", m.authority), nv(":path", request.path)};
  for (const auto& [name, value] : request.headers) headers.push_back(nv(name, value));
  const std::string length = std::to_string(request.body.size());
  nghttp2_data_provider provider{};
  const bool has_body =
      !request.body.empty() || (request.method != "GET" && request.method != "DELETE");
  if (has_body) {
    headers.push_back(nv("content-length", length));
    provider.read_callback = +[](nghttp2_session*, int32_t stream, uint8_t* buf, size_t length,
                                 uint32_t* flags, nghttp2_data_source*, void* self) -> ssize_t {
      auto& bodies = static_cast<H2Connection*>(self)->impl_->bodies;
      auto it = bodies.find(stream);
      if (it == bodies.end()) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        return 0;
      }
      const size_t n = std::min(length, it->second.data.size() - it->second.sent);
      std::memcpy(buf, it->second.data.data() + it->second.sent, n);
      it->second.sent += n;
      if (it->second.sent == it->second.data.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    };
  }
  const int32_t id = nghttp2_submit_request(m.session, nullptr, headers.data(), headers.size(),
                                            has_body ? &provider : nullptr, user);
  if (id < 0) return 0;
  if (has_body) m.bodies[id] = {request.body, 0};
  m.streams[id] = user;
  ++open_streams_;
  if (!m.in_callback) Flush();
  return id;
}

void H2Connection::Reset(int32_t stream) {
  Impl& m = *impl_;
  if (m.streams.erase(stream) == 0) return;
  m.bodies.erase(stream);
  --open_streams_;
  if (dead_) return;
  nghttp2_session_set_stream_user_data(m.session, stream, nullptr);
  nghttp2_submit_rst_stream(m.session, NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL);
  if (!m.in_callback) Flush();
}

}  // namespace ksched::client
