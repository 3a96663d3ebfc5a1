#include "src/testing/toxiproxy.h"

#include <csignal>
#include <thread>

#include "fmt/format.h"
#include "src/testing/control_plane.h"
#include "src/testing/ports.h"

namespace ksched::testing {

using nlohmann::json;

absl::StatusOr<std::unique_ptr<Toxiproxy>> Toxiproxy::Start(int upstream_port,
                                                            const std::string& log) {
  auto t = std::make_unique<Toxiproxy>();
  t->api_port_ = FreePort();
  t->proxy_port_ = FreePort();
  t->server_ = std::make_unique<Process>(
      std::vector<std::string>{K8sBinDir() + "/toxiproxy-server", "-host", "127.0.0.1", "-port",
                               std::to_string(t->api_port_)},
      log);
  for (int i = 0; i < 100; ++i) {  // Until it listens.
    json made = t->Call("POST", "/proxies",
                        {{"name", "apiserver"},
                         {"listen", fmt::format("127.0.0.1:{}", t->proxy_port_)},
                         {"upstream", fmt::format("127.0.0.1:{}", upstream_port)},
                         {"enabled", true}});
    if (made.is_object() && made.value("name", "") == "apiserver") return t;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return absl::UnavailableError("toxiproxy-server did not start; its log: " + log);
}

json Toxiproxy::Call(const std::string& method, const std::string& path, const json& body,
                     std::string* error) {
  CommandResult r =
      RunCommand({"curl", "-sS", "-m", "10", "-X", method, "-d", body.is_null() ? "" : body.dump(),
                  fmt::format("http://127.0.0.1:{}{}", api_port_, path)});
  if (r.exit_code != 0 && error != nullptr) *error = r.err;
  return r.exit_code == 0 ? json::parse(r.out, nullptr, false) : json();
}

void Toxiproxy::Stop() {
  if (server_ != nullptr && server_->Running()) server_->Stop(SIGTERM);
}

}  // namespace ksched::testing
