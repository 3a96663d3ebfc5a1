// An HTTP server on 127.0.0.1 for the client's tests (cpp-httplib): set the routes on server(),
// then Start(); the destructor stops it.
//
//   LoopbackServer s;
//   s.server().Get(".*", handler);
//   ASSERT_TRUE(s.Start());
//   auto http = HttpClient::Create({.server = s.url()});
#pragma once

#include <httplib.h>

#include <string>
#include <thread>

#include "fmt/format.h"

namespace ksched::testing {

class LoopbackServer {
 public:
  LoopbackServer() = default;
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  ~LoopbackServer() {
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }

  httplib::Server& server() { return server_; }
  // Binds `port` (0: any free one) and serves on a thread; false if the port could not be bound.
  bool Start(int port = 0) {
    if (port == 0) {
      port = server_.bind_to_any_port("127.0.0.1");
    } else if (!server_.bind_to_port("127.0.0.1", port)) {
      return false;
    }
    if (port <= 0) return false;
    port_ = port;
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    return true;
  }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace ksched::testing
