// Toxiproxy: a toxiproxy-server (built by `make k8s`) on loopback with one proxy, "apiserver", in
// front of an upstream port, for tests that put real network faults between ksched and the API
// server (the chaos soak, and integration tests of what a slow link does).
//
//   absl::StatusOr<std::unique_ptr<Toxiproxy>> proxy = Toxiproxy::Start(api_port, dir + "/t.log");
//   (*proxy)->Call("POST", "/proxies/apiserver/toxics",
//                  {{"name", "slow"}, {"type", "bandwidth"}, {"attributes", {{"rate", 8}}}});
//   ... ksched connects to https://127.0.0.1:<(*proxy)->port()> ...
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "src/testing/command.h"

namespace ksched::testing {

class Toxiproxy {
 public:
  // Starts the server, its output appended to `log`, and makes the proxy from a free port of
  // 127.0.0.1 to 127.0.0.1:`upstream_port`.
  static absl::StatusOr<std::unique_ptr<Toxiproxy>> Start(int upstream_port,
                                                          const std::string& log);

  // Where the proxy listens, on 127.0.0.1.
  int port() const { return proxy_port_; }
  int pid() const { return server_->pid(); }
  // A call to the REST API (https://github.com/Shopify/toxiproxy#http-api), e.g. ("POST",
  // "/proxies/apiserver", {{"enabled", false}}): its answer, or null with `error` set.
  nlohmann::json Call(const std::string& method, const std::string& path,
                      const nlohmann::json& body, std::string* error = nullptr);
  // Stops the server (SIGTERM); the destructor kills it if it still runs.
  void Stop();

 private:
  std::unique_ptr<Process> server_;
  int api_port_ = 0;
  int proxy_port_ = 0;
};

}  // namespace ksched::testing
