// The bind ceiling of the side-by-side bench: a "scheduler" that decides nothing. It watches every
// pending pod (no spec.nodeName) and binds each, as soon as it sees it, to the next node of a
// round robin over the nodes that existed when it started, with no regard to fit. So it shows how
// fast the API server takes binds from a client with the schedulers' settings (ksched's own
// HttpClient: one HTTP/2 connection, the same qps and burst), on the same workload.
//
//   build/bench/trivial_binder --kubeconfig KUBECONFIG [--qps 5000] [--burst 5000]
//
// It runs until it is killed. A bind the API server refuses (the pod went, or was bound already)
// is dropped.
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/notification.h"
#include "fmt/format.h"
#include "simdjson.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"

namespace ksched::bench {
namespace {

// The names of every node, read once, page by page.
absl::StatusOr<std::vector<std::string>> ListNodes(client::HttpClient& http) {
  std::vector<std::string> names;
  simdjson::ondemand::parser parser;
  std::string next;
  do {
    client::HttpResponse r =
        http.Call({.path = "/api/v1/nodes?limit=1000" + (next.empty() ? "" : "&continue=" + next)});
    if (!r.ok()) return r.ToStatus();
    simdjson::padded_string body(r.body);
    simdjson::ondemand::document doc = parser.iterate(body);
    next.clear();
    std::string_view cont;
    if (doc["metadata"]["continue"].get_string().get(cont) == simdjson::SUCCESS) next = cont;
    for (auto item : doc["items"]) {
      std::string_view name;
      if (item["metadata"]["name"].get_string().get(name) == simdjson::SUCCESS) {
        names.emplace_back(name);
      }
    }
  } while (!next.empty());
  return names;
}

class Binder {
 public:
  Binder(client::HttpClient& http, std::vector<std::string> nodes)
      : http_(http), nodes_(std::move(nodes)) {}

  // Watches pending pods until the watch ends; their first events list the pods pending now.
  void WatchOnce() {
    absl::Notification ended;
    auto stream = http_.Watch(
        {.path = "/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3D",
         .timeout = absl::ZeroDuration()},
        [this](std::string_view data) { OnData(data); },
        [&ended](const client::HttpResponse&) { ended.Notify(); });
    ended.WaitForNotification();
    buffer_.clear();
  }

 private:
  // Runs on the HttpClient's I/O thread: must not block.
  void OnData(std::string_view data) {
    buffer_.append(data);
    size_t start = 0;
    for (size_t end; (end = buffer_.find('\n', start)) != std::string::npos; start = end + 1) {
      OnEvent(std::string_view(buffer_).substr(start, end - start));
    }
    buffer_.erase(0, start);
  }

  void OnEvent(std::string_view line) {
    simdjson::padded_string padded(line);
    simdjson::ondemand::document doc;
    if (parser_.iterate(padded).get(doc) != simdjson::SUCCESS) return;
    std::string_view type, name, ns, uid;
    if (doc["type"].get_string().get(type) != simdjson::SUCCESS || type != "ADDED") return;
    auto meta = doc["object"]["metadata"];
    if (meta["name"].get_string().get(name) != simdjson::SUCCESS) return;
    if (meta["namespace"].get_string().get(ns) != simdjson::SUCCESS) return;
    if (meta["uid"].get_string().get(uid) != simdjson::SUCCESS) return;
    if (!seen_.insert(std::string(uid)).second || nodes_.empty()) return;
    const std::string& node = nodes_[next_++ % nodes_.size()];
    http_.Send({.method = "POST",
                .path = fmt::format("/api/v1/namespaces/{}/pods/{}/binding", ns, name),
                .body = fmt::format(
                    R"({{"apiVersion":"v1","kind":"Binding","metadata":{{"name":"{}","uid":"{}"}},)"
                    R"("target":{{"apiVersion":"v1","kind":"Node","name":"{}"}}}})",
                    name, uid, node)},
               [](const client::HttpResponse&) {});
  }

  client::HttpClient& http_;
  const std::vector<std::string> nodes_;
  // Used on the I/O thread only.
  std::string buffer_;
  simdjson::ondemand::parser parser_;
  absl::flat_hash_set<std::string> seen_;
  size_t next_ = 0;
};

int Main(int argc, char** argv) {
  CLI::App app("The bind ceiling: binds every pending pod round-robin, deciding nothing.");
  std::string kubeconfig;
  float qps = 5000;
  int burst = 5000;
  app.add_option("--kubeconfig", kubeconfig, "the cluster")->required();
  app.add_option("--qps", qps, "client-side rate limit, as clientConnection.qps");
  app.add_option("--burst", burst, "as clientConnection.burst");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<client::RestConfig> rest = client::LoadRestConfig({.kubeconfig = kubeconfig});
  if (!rest.ok()) {
    std::fprintf(stderr, "trivial_binder: %s\n", std::string(rest.status().message()).c_str());
    return 1;
  }
  rest->qps = qps;
  rest->burst = burst;
  rest->user_agent = "trivial-binder";
  auto http = client::HttpClient::Create(*rest);
  if (!http.ok()) {
    std::fprintf(stderr, "trivial_binder: %s\n", std::string(http.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::vector<std::string>> nodes = ListNodes(**http);
  if (!nodes.ok()) {
    std::fprintf(stderr, "trivial_binder: listing nodes: %s\n",
                 std::string(nodes.status().message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "trivial_binder: binding to %zu nodes\n", nodes->size());
  Binder binder(**http, *std::move(nodes));
  for (;;) {
    binder.WatchOnce();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace
}  // namespace ksched::bench

int main(int argc, char** argv) { return ksched::bench::Main(argc, argv); }
