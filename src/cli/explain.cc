#include "src/cli/explain.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/api/yaml.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"

namespace ksched::cli {
namespace {

int Fail(std::string_view what) {
  std::fprintf(stderr, "ksched explain: %.*s\n", static_cast<int>(what.size()), what.data());
  return 1;
}

// --kubeconfig, else $KUBECONFIG, else ~/.kube/config as kubectl reads it, else the service
// account.
absl::StatusOr<client::RestConfig> Credentials(const ExplainFlags& flags) {
  client::RestConfigSource source{.kubeconfig = flags.kubeconfig, .context = flags.context};
  const char* env = std::getenv("KUBECONFIG");
  const char* home = std::getenv("HOME");
  if (source.kubeconfig.empty() && (env == nullptr || *env == '\0') && home != nullptr &&
      std::filesystem::exists(std::filesystem::path(home) / ".kube/config")) {
    source.kubeconfig = (std::filesystem::path(home) / ".kube/config").string();
  }
  return client::LoadRestConfig(source);
}

// Up to `most` of `names`, then how many more.
std::string Some(const nlohmann::ordered_json& names, size_t most) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < most; ++i) {
    if (i > 0) out += ", ";
    out += names[i].get<std::string>();
  }
  if (names.size() > most)
    out += fmt::format(", and {} more (-o json lists all)", names.size() - most);
  return out;
}

std::string Reasons(const nlohmann::ordered_json& group) {
  std::string out;
  for (const auto& r : group["reasons"]) {
    if (!out.empty()) out += "; ";
    out += r.get<std::string>();
  }
  return out;
}

}  // namespace

void AddExplainFlags(CLI::App* cmd, ExplainFlags* flags) {
  cmd->add_option("pod", flags->pod, "The pod: NAMESPACE/NAME, or NAME in namespace default")
      ->required();
  cmd->add_option("--server", flags->server,
                  "ksched's secure port (default https://127.0.0.1:10259)");
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "The kubeconfig whose credentials the request carries (default $KUBECONFIG, "
                  "then ~/.kube/config)");
  cmd->add_option("--context", flags->context, "The kubeconfig context to use");
  cmd->add_option("--certificate-authority", flags->certificate_authority,
                  "The CA (PEM file) of ksched's serving certificate");
  cmd->add_flag("--insecure-skip-tls-verify", flags->insecure_skip_tls_verify,
                "Do not check ksched's serving certificate (a self-signed one, by default)");
  cmd->add_option("-o,--output", flags->output, "Output format: table, json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
}

int RunExplain(const ExplainFlags& flags) {
  std::string ns = "default", name = flags.pod;
  if (size_t slash = flags.pod.find('/'); slash != std::string::npos) {
    ns = flags.pod.substr(0, slash);
    name = flags.pod.substr(slash + 1);
  }
  if (ns.empty() || name.empty() || name.find('/') != std::string::npos) {
    return Fail(fmt::format("{}: want NAMESPACE/NAME or NAME", flags.pod));
  }
  absl::StatusOr<client::RestConfig> api = Credentials(flags);
  if (!api.ok()) return Fail(AsStd(api.status().message()));
  // ksched's port, with the API server's credentials and ksched's own CA (or none).
  client::RestConfig ksched = *api;
  ksched.server = flags.server;
  while (ksched.server.ends_with('/')) ksched.server.pop_back();
  ksched.ca_data.clear();
  ksched.ca_file = flags.certificate_authority;
  ksched.tls_server_name.clear();
  ksched.insecure_skip_tls_verify = flags.insecure_skip_tls_verify;
  ksched.user_agent = "ksched-explain";
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(ksched);
  if (!http.ok()) return Fail(AsStd(http.status().message()));
  const std::string path = fmt::format("/debug/pods/{}/{}", ns, name);
  client::HttpResponse r = (*http)->Call({.path = path, .timeout = absl::Seconds(30)});
  if (r.status == 0) {
    return Fail(fmt::format("cannot reach ksched at {}: {}", flags.server, r.transport_error));
  }
  // ksched answers errors with a metav1.Status, whose message this is.
  const absl::Status answer = r.ToStatus();
  const std::string_view why = AsStd(answer.message());
  if (r.status == 401) {
    return Fail(fmt::format("ksched at {} did not accept the kubeconfig's credentials: {}",
                            flags.server, why));
  }
  if (r.status == 403) {
    return Fail(fmt::format("ksched at {} refused the request: {}", flags.server, why));
  }
  if (r.status == 404) {
    // Does the pod exist at all? The API server says.
    if (absl::StatusOr<std::unique_ptr<client::HttpClient>> a = client::HttpClient::Create(*api);
        a.ok()) {
      client::HttpResponse pod =
          (*a)->Call({.path = fmt::format("/api/v1/namespaces/{}/pods/{}", ns, name)});
      if (pod.status == 404) return Fail(fmt::format("pod {}/{} does not exist", ns, name));
    }
    return Fail(why);
  }
  if (!r.ok()) {
    return Fail(fmt::format("ksched at {} answered {}: {}", flags.server, r.status, why));
  }
  nlohmann::ordered_json record = nlohmann::ordered_json::parse(r.body, nullptr, false);
  if (record.is_discarded() || !record.is_object()) {
    return Fail(fmt::format("ksched at {} answered {} with no JSON object", flags.server, path));
  }
  if (flags.output == "json") {
    std::printf("%s\n", record.dump(2).c_str());
  } else if (flags.output == "yaml") {
    std::printf("%s", api::JsonToYaml(nlohmann::json::parse(r.body)).c_str());
  } else {
    std::printf("%s", FormatExplainTable(record).c_str());
  }
  return 0;
}

std::string FormatExplainTable(const nlohmann::ordered_json& j) {
  std::string out = fmt::format("Pod:      {}/{}\n", j.value("namespace", ""), j.value("name", ""));
  out += fmt::format("Profile:  {}\n", j.value("profile", ""));
  out += fmt::format("Attempt:  {} at {}\n", j.value("attempts", 0), j.value("time", ""));
  std::string result = j.value("result", "");
  if (j.contains("node") && j["node"].is_string()) {
    result += " on " + j["node"].get<std::string>();
  }
  out += fmt::format("Result:   {}\n", result);
  if (j.contains("message")) out += fmt::format("Message:  {}\n", j["message"].get<std::string>());
  if (j.contains("podGroup")) {  // Tried in its PodGroup's cycle: what the cycle decided for it.
    const auto& g = j["podGroup"];
    const std::string message = g.value("message", "");
    const std::string placement = g.value("placement", "");
    out += fmt::format("Group:    {}: {}{}{}\n", g.value("name", ""), g.value("reason", ""),
                       placement.empty() ? "" : " (placement " + placement + ")",
                       message.empty() ? "" : ": " + message);
  }
  const auto& n = j["nodes"];
  out += fmt::format("Nodes:    {} in all: {} feasible, {} rejected, {} not evaluated\n",
                     n.value("total", 0), n.value("feasible", 0), n.value("rejected", 0),
                     n.value("notEvaluated", 0));
  if (j.contains("notEvaluated")) {
    out += fmt::format("          not evaluated: {}: {}\n", j["notEvaluated"].value("plugin", ""),
                       Reasons(j["notEvaluated"]));
  }
  if (!j["rejected"].empty()) {
    out += "\nRejected by the filters:\n";
    for (const auto& g : j["rejected"]) {
      out += fmt::format("  {} ({}), {} node(s): {}\n", g.value("plugin", ""), g.value("code", ""),
                         g["nodes"].size(), Reasons(g));
      out += fmt::format("    {}\n", Some(g["nodes"], 10));
    }
  }
  if (!j["scores"].empty()) {
    constexpr size_t kMost = 20;
    const size_t scored = n.value("scored", size_t{0});
    out += scored > j["scores"].size()
               ? fmt::format("\nScores of the {} best of {} scored nodes (weighted):\n",
                             j["scores"].size(), scored)
               : std::string("\nScores of the feasible nodes, best first (weighted):\n");
    std::vector<std::string> plugins;
    for (const auto& [plugin, score] : j["scores"][0]["plugins"].items()) plugins.push_back(plugin);
    size_t w = 4;
    for (const auto& s : j["scores"]) w = std::max(w, s["node"].get<std::string>().size());
    out += fmt::format("  {:<{}}  {:>6}", "NODE", w, "TOTAL");
    for (const std::string& p : plugins) out += fmt::format("  {}", p);
    out += "\n";
    for (size_t i = 0; i < j["scores"].size() && i < kMost; ++i) {
      const auto& s = j["scores"][i];
      out += fmt::format("  {:<{}}  {:>6}", s["node"].get<std::string>(), w,
                         s["total"].get<int64_t>());
      for (const std::string& p : plugins) {
        out += fmt::format("  {:>{}}", s["plugins"].value(p, int64_t{0}), p.size());
      }
      out += "\n";
    }
    if (j["scores"].size() > kMost) {
      out += fmt::format("  and {} more (-o json lists all)\n", j["scores"].size() - kMost);
    }
  }
  if (j.contains("preemption")) {
    out += fmt::format("\nPreemption: nominated to {}; victims: {}\n",
                       j["preemption"].value("nominatedNode", ""),
                       Some(j["preemption"]["victims"], 50));
  }
  if (!j["waitingFor"].empty()) {
    out += "\nTried again after one of these events (what the rejecting plugins registered):\n";
    for (const auto& w : j["waitingFor"]) {
      out += fmt::format("  {}: {}\n", w.value("plugin", ""), Some(w["events"], 100));
    }
  }
  return out;
}

}  // namespace ksched::cli
