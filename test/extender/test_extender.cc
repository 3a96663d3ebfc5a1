#include "test/extender/test_extender.h"

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace ksched::testing {
namespace {

using nlohmann::json;

constexpr char kRejected[] = "rejected by the test extender";

// The pod's annotation `key`, split at commas.
std::set<std::string> ListOf(const json& pod, const std::string& key) {
  std::set<std::string> out;
  const json annotations =
      pod.value("metadata", json::object()).value("annotations", json::object());
  for (absl::string_view item :
       absl::StrSplit(annotations.value(key, std::string()), ',', absl::SkipWhitespace())) {
    out.emplace(item);
  }
  return out;
}

// The nodes of ExtenderArgs: by name (NodeNames) or whole (Nodes.items), as sent.
std::vector<std::pair<std::string, json>> NodesOf(const json& args) {
  std::vector<std::pair<std::string, json>> out;
  if (args.contains("NodeNames") && args["NodeNames"].is_array()) {
    for (const json& name : args["NodeNames"]) out.emplace_back(name.get<std::string>(), nullptr);
  } else if (args.contains("Nodes") && args["Nodes"].is_object()) {
    for (const json& node : args["Nodes"].value("items", json::array())) {
      out.emplace_back(node["metadata"]["name"].get<std::string>(), node);
    }
  }
  return out;
}

json Filter(const json& args, bool ghost) {
  const json& pod = args["Pod"];
  const std::set<std::string> reject = ListOf(pod, "test-extender/reject");
  const std::set<std::string> unresolvable = ListOf(pod, "test-extender/unresolvable");
  const bool by_name = args.contains("NodeNames") && args["NodeNames"].is_array();
  json names = json::array(), items = json::array();
  json failed = json::object(), failed_unresolvable = json::object();
  for (auto& [name, node] : NodesOf(args)) {
    if (unresolvable.contains(name)) {
      failed_unresolvable[name] = kRejected;
    } else if (reject.contains(name)) {
      failed[name] = kRejected;
    } else {
      names.push_back(name);
      items.push_back(node);
    }
  }
  if (ghost) {
    names.push_back("ghost");
    items.push_back({{"metadata", {{"name", "ghost"}}}});
  }
  json out = {
      {"FailedNodes", failed}, {"FailedAndUnresolvableNodes", failed_unresolvable}, {"Error", ""}};
  if (by_name) {
    out["NodeNames"] = names;
    out["Nodes"] = nullptr;
  } else {
    out["Nodes"] = {{"metadata", json::object()}, {"items", items}};
    out["NodeNames"] = nullptr;
  }
  return out;
}

json Prioritize(const json& args, TestExtender::Fault fault) {
  std::map<std::string, int64_t> scores;
  for (const std::string& item : ListOf(args["Pod"], "test-extender/scores")) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, '=');
    int64_t score = 0;
    if (absl::SimpleAtoi(kv.second, &score)) scores[kv.first] = score;
  }
  json out = json::array();
  std::vector<std::pair<std::string, json>> nodes = NodesOf(args);
  if (fault == TestExtender::Fault::kUnknownNode) nodes.emplace_back("ghost", nullptr);
  for (const auto& [name, node] : nodes) {
    int64_t score = scores.contains(name) ? scores[name] : 0;
    if (fault == TestExtender::Fault::kScoreOutOfRange) score = 1000;
    out.push_back({{"Host", name}, {"Score", score}});
  }
  return out;
}

json Preempt(const json& args) {
  const std::set<std::string> dropped = ListOf(args["Pod"], "test-extender/no-preempt");
  json out = json::object();
  // Node-cache-capable calls name the victims by UID; the others send them whole.
  for (const char* key : {"NodeNameToMetaVictims", "NodeNameToVictims"}) {
    if (!args.contains(key) || !args[key].is_object()) continue;
    for (const auto& [node, victims] : args[key].items()) {
      if (dropped.contains(node)) continue;
      json pods = json::array();
      for (const json& p : victims.value("Pods", json::array())) {
        pods.push_back({{"UID", p.contains("UID")
                                    ? p["UID"]
                                    : p.value("metadata", json::object()).value("uid", json(""))}});
      }
      out[node] = {{"Pods", pods}, {"NumPDBViolations", victims.value("NumPDBViolations", 0)}};
    }
  }
  return {{"NodeNameToMetaVictims", out}};
}

}  // namespace

bool NamesTestExtender(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("extenders")) return false;
  for (const json& e : config["extenders"]) {
    if (e.value("urlPrefix", "") == kTestExtenderPlaceholder) return true;
  }
  return false;
}

nlohmann::json WithTestExtender(nlohmann::json config, const std::string& url) {
  if (!NamesTestExtender(config)) return config;
  for (json& e : config["extenders"]) {
    if (e.value("urlPrefix", "") == kTestExtenderPlaceholder) e["urlPrefix"] = url;
  }
  return config;
}

TestExtender::TestExtender(std::unique_ptr<httplib::Server> server)
    : server_(server != nullptr ? std::move(server) : std::make_unique<httplib::Server>()),
      tls_(server_->is_valid() && dynamic_cast<httplib::SSLServer*>(server_.get()) != nullptr) {
  // An answer's headers and body go in separate writes: without TCP_NODELAY the body waits for
  // the client's delayed ACK (40 ms a call), and the bench would measure that.
  server_->set_tcp_nodelay(true);
  for (const char* verb : {"filter", "prioritize", "preempt", "bind"}) {
    server_->Post(
        std::string("/ext/") + verb,
        [this, verb = std::string(verb)](const httplib::Request& req, httplib::Response& res) {
          Serve(verb, req, res);
        });
  }
}

TestExtender::~TestExtender() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

bool TestExtender::Start(int port) {
  if (port == 0) {
    port = server_->bind_to_any_port("127.0.0.1");
  } else if (!server_->bind_to_port("127.0.0.1", port)) {
    return false;
  }
  if (port <= 0) return false;
  port_ = port;
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return true;
}

std::string TestExtender::url() const {
  return fmt::format("{}://127.0.0.1:{}/ext", tls_ ? "https" : "http", port_);
}

void TestExtender::Serve(const std::string& verb, const httplib::Request& req,
                         httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  absl::Cleanup busy = [&] {
    busy_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  };
  BindFn bind;
  {
    absl::MutexLock lock(&mu_);
    ++calls_[verb];
    last_body_[verb] = req.body;
    bind = bind_;
  }
  const Fault fault = fault_;
  switch (fault) {
    case Fault::kError500:
      res.status = 500;
      res.set_content("the test extender fails", "text/plain");
      return;
    case Fault::kSlow:
      std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms_.load()));
      break;
    case Fault::kMalformed:
      res.set_content("{not json", "application/json");
      return;
    default:
      break;
  }
  const json args = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (args.is_discarded()) {
    res.status = 400;
    return;
  }
  json out;
  if (verb == "filter") {
    out = Filter(args, fault == Fault::kUnknownNode);
  } else if (verb == "prioritize") {
    out = Prioritize(args, fault);
  } else if (verb == "preempt") {
    out = Preempt(args);
  } else {
    absl::Status s = bind ? bind(args.value("PodNamespace", ""), args.value("PodName", ""),
                                 args.value("PodUID", ""), args.value("Node", ""))
                          : absl::OkStatus();
    out = {{"Error", s.ok() ? "" : std::string(s.message())}};
  }
  res.set_content(out.dump(), "application/json");
}

}  // namespace ksched::testing
