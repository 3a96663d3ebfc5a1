// H2Connection: one HTTP/2 connection over TLS to the API server, on nghttp2 and OpenSSL, driven
// by the HttpClient's I/O thread. Hand-written because libcurl 7.88 (Debian 12's) runs every
// transfer that shares its HTTP/2 connection whenever the socket is ready, and polls again for
// each: half of ksched's CPU under load went to its I/O thread (docs/performance.md). nghttp2 is
// the HTTP/2 library libcurl itself uses; this class adds only the socket, TLS and stream routing.
//
// Non-blocking throughout: Open() starts the TCP connect, and the handshake and every read and
// write happen in Process(), when poll() says the socket is ready. Requests may be submitted at
// once; they go out once the handshake is done.
//
//   auto c = H2Connection::Open(config, handlers);
//   int32_t stream = c->Submit({"GET", "/api/v1/nodes", ...}, user);
//   loop: poll({c->fd(), c->events()}); c->Process(revents);
//
// Not thread-safe: one thread (the I/O thread) uses it. Handlers run inside Submit/Process/Reset.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/client/rest_config.h"

namespace ksched::client {

struct H2Handlers {
  // A response header of the stream whose user data is `user`; ":status" first.
  std::function<void(void* user, std::string_view name, std::string_view value)> on_header;
  std::function<void(void* user, std::string_view data)> on_data;
  // The stream ended: `error` is empty when the whole response came, else why it did not;
  // `refused` when the server never processed the request (it may be sent again safely).
  std::function<void(void* user, const std::string& error, bool refused)> on_close;
};

struct H2Request {
  std::string_view method;
  std::string_view path;
  std::span<const std::pair<std::string, std::string>> headers;  // Lower-case names; copied.
  std::string_view body;  // Must stay valid until the stream closes.
};

class H2Connection {
 public:
  // Starts connecting to config.server (an https:// URL); fails only when the address cannot be
  // resolved or the TLS settings cannot be loaded.
  static absl::StatusOr<std::unique_ptr<H2Connection>> Open(const RestConfig& config,
                                                            H2Handlers handlers);
  ~H2Connection();
  H2Connection(const H2Connection&) = delete;
  H2Connection& operator=(const H2Connection&) = delete;

  int fd() const { return fd_; }
  // The poll() events the connection waits for.
  short events() const;
  // Does what the socket is ready for (`revents` from poll); on a failure the connection is dead
  // and every open stream has been closed with the error.
  void Process(short revents);
  // Sends a request; returns its stream id, or 0 when the connection takes no more requests (then
  // nothing was sent, and no handler runs for `user`).
  int32_t Submit(const H2Request& request, void* user);
  // Cancels a stream; no handler runs for it any more.
  void Reset(int32_t stream);
  // Whether new requests may go on this connection (not dead, no GOAWAY received).
  bool Usable() const;
  bool Dead() const { return dead_; }
  // Why the connection died; "" while it lives.
  const std::string& error() const { return error_; }
  int open_streams() const { return open_streams_; }
  // Whether the server refused HTTP/2 (ALPN chose something else); the connection is then dead.
  bool refused_h2() const { return refused_h2_; }
  // Called about once a second: ends a connection not established in 10 s (connect and
  // handshake), and checks an idle one's health with a PING, as client-go does.
  void Tick(absl::Time now);

 private:
  struct Impl;
  explicit H2Connection(std::unique_ptr<Impl> impl);
  void Fail(const std::string& why);
  void Flush();

  std::unique_ptr<Impl> impl_;
  int fd_ = -1;
  bool dead_ = false;
  std::string error_;
  bool refused_h2_ = false;
  int open_streams_ = 0;
};

}  // namespace ksched::client
