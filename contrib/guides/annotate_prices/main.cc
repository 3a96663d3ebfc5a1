// annotate-prices: Hightower's annotator (guide 001), which gives nodes a price that the
// NodePrice plugin schedules by. It PATCHes a random price from {0.05, 0.10, 0.20, 0.40, 0.80,
// 1.60} onto every node, or onto the nodes named, and prints "<node> <price>" for each; with
// --list it only prints them ("<none>" for a node without one).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/random/random.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/client/rest_config.h"

namespace ksched::guides {
namespace {

struct AnnotatePricesFlags {
  std::string kubeconfig, context, master;  // As `ksched run` takes them.
  std::string annotation = "hightower.com/cost";
  bool list = false;
  std::vector<std::string> nodes;  // Empty: every node.
};

constexpr const char* kPrices[] = {"0.05", "0.10", "0.20", "0.40", "0.80", "1.60"};

int Fail(std::string_view what) {
  std::fprintf(stderr, "annotate-prices: %.*s\n", static_cast<int>(what.size()), what.data());
  return 1;
}

// Node name → its price annotation ("" when it has none), in name order.
absl::StatusOr<std::map<std::string, std::string>> NodePrices(client::HttpClient& http,
                                                              const std::string& annotation) {
  client::HttpResponse r = http.Call({.path = "/api/v1/nodes"});
  if (!r.ok()) return r.ToStatus();
  nlohmann::json list = nlohmann::json::parse(r.body, nullptr, false);
  if (list.is_discarded()) return absl::InternalError("the node list is not JSON");
  std::map<std::string, std::string> out;
  for (const nlohmann::json& node : list.value("items", nlohmann::json::array())) {
    const nlohmann::json meta = node.value("metadata", nlohmann::json::object());
    out[meta.value("name", "")] =
        meta.value("annotations", nlohmann::json::object()).value(annotation, "");
  }
  return out;
}

void AddAnnotatePricesFlags(CLI::App* cmd, AnnotatePricesFlags* flags) {
  cmd->add_option("--kubeconfig", flags->kubeconfig, "Path to a kubeconfig");
  cmd->add_option("--context", flags->context, "The kubeconfig context to use");
  cmd->add_option("--master", flags->master, "The address of the Kubernetes API server");
  cmd->add_option("--annotation", flags->annotation, "The annotation that holds a node's price");
  cmd->add_flag("-l,--list", flags->list, "Only print each node with its price");
  cmd->add_option("nodes", flags->nodes, "The nodes to price (default: all)");
}

// 0, or 1 with the error on stderr (a bad kubeconfig, an unknown node, a refused patch).
int RunAnnotatePrices(const AnnotatePricesFlags& flags) {
  absl::StatusOr<client::RestConfig> rest = client::LoadRestConfig(
      {.kubeconfig = flags.kubeconfig, .context = flags.context, .master = flags.master});
  if (!rest.ok()) return Fail(AsStd(rest.status().message()));
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(*rest);
  if (!http.ok()) return Fail(AsStd(http.status().message()));
  absl::StatusOr<std::map<std::string, std::string>> prices = NodePrices(**http, flags.annotation);
  if (!prices.ok()) return Fail(AsStd(prices.status().message()));
  std::vector<std::string> names = flags.nodes;
  if (names.empty()) {
    for (const auto& [name, price] : *prices) names.push_back(name);
  }
  absl::BitGen random;
  for (const std::string& name : names) {
    auto it = prices->find(name);
    if (it == prices->end()) return Fail(fmt::format("nodes \"{}\" not found", name));
    std::string price = it->second;
    if (!flags.list) {
      price = kPrices[absl::Uniform<size_t>(random, 0, std::size(kPrices))];
      nlohmann::json patch = {{"metadata", {{"annotations", {{flags.annotation, price}}}}}};
      client::HttpResponse r = (*http)->Call({.method = "PATCH",
                                              .path = "/api/v1/nodes/" + name,
                                              .body = patch.dump(),
                                              .content_type = "application/merge-patch+json"});
      if (!r.ok()) return Fail(fmt::format("node {}: {}", name, AsStd(r.ToStatus().message())));
    }
    std::printf("%s %s\n", name.c_str(), price.empty() ? "<none>" : price.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace ksched::guides

int main(int argc, char** argv) {
  CLI::App app("Give nodes a random price annotation, as Hightower's annotator does",
               "annotate-prices");
  ksched::guides::AnnotatePricesFlags flags;
  ksched::guides::AddAnnotatePricesFlags(&app, &flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  return ksched::guides::RunAnnotatePrices(flags);
}
