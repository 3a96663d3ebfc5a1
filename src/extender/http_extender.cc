#include "src/extender/http_extender.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/log.h"
#include "ksched/status_macros.h"
#include "src/extender/wire.h"

namespace ksched::extender {
namespace {

std::string StringOf(const nlohmann::json& j, const char* key) {
  return j.value(key, std::string());
}

// A []byte field: base64 in the configuration (src/config checked it).
std::string BytesOf(const nlohmann::json& j, const char* key) {
  std::string bytes;
  (void)absl::Base64Unescape(j.value(key, std::string()), &bytes);
  return bytes;
}

bool ManagesAny(const std::set<std::string>& managed, const std::vector<api::Container>& list) {
  for (const api::Container& c : list) {
    for (const api::ResourceList* resources : {&c.resources.requests, &c.resources.limits}) {
      for (const auto& [name, quantity] : *resources) {
        if (managed.contains(name)) return true;
      }
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<ExtenderConfig> ParseExtenderConfig(const nlohmann::json& j) {
  ExtenderConfig c;
  c.url_prefix = StringOf(j, "urlPrefix");
  c.filter_verb = StringOf(j, "filterVerb");
  c.preempt_verb = StringOf(j, "preemptVerb");
  c.prioritize_verb = StringOf(j, "prioritizeVerb");
  c.bind_verb = StringOf(j, "bindVerb");
  c.weight = j.value("weight", int64_t{0});
  c.enable_https = j.value("enableHTTPS", false);
  c.node_cache_capable = j.value("nodeCacheCapable", false);
  c.ignorable = j.value("ignorable", false);
  if (const auto it = j.find("httpTimeout"); it != j.end()) {
    KSCHED_ASSIGN_OR_RETURN(absl::Duration d,
                            api::field::DecodeDuration(*it, "extenders.httpTimeout"));
    if (d != absl::ZeroDuration()) c.http_timeout = d;
  }
  if (const auto it = j.find("tlsConfig"); it != j.end() && it->is_object()) {
    const nlohmann::json& t = *it;
    c.insecure = t.value("insecure", false);
    c.server_name = StringOf(t, "serverName");
    c.cert_file = StringOf(t, "certFile");
    c.key_file = StringOf(t, "keyFile");
    c.ca_file = StringOf(t, "caFile");
    c.cert_data = BytesOf(t, "certData");
    c.key_data = BytesOf(t, "keyData");
    c.ca_data = BytesOf(t, "caData");
  }
  for (const nlohmann::json& r : j.value("managedResources", nlohmann::json::array())) {
    const std::string name = StringOf(r, "name");
    c.managed_resources.insert(name);
    if (r.value("ignoredByScheduler", false)) c.ignored_by_scheduler.push_back(name);
  }
  return c;
}

ExtenderMetrics::ExtenderMetrics(metrics::Registry& registry)
    : requests_(registry.AddCounter("scheduler_extender_requests_total",
                                    "Number of requests to scheduler extenders, by extender, verb "
                                    "and result (success, error, ignored).",
                                    metrics::Stability::kAlpha, {"extender", "verb", "result"})),
      duration_(registry.AddHistogram("scheduler_extender_request_duration_seconds",
                                      "Duration of requests to scheduler extenders, by extender, "
                                      "verb and result.",
                                      metrics::Stability::kAlpha,
                                      metrics::ExponentialBuckets(0.0001, 2, 16),
                                      {"extender", "verb", "result"})) {}

void ExtenderMetrics::Observe(const std::string& extender, std::string_view verb,
                              std::string_view result, double seconds) {
  requests_.With({extender, verb, result})->Inc();
  duration_.With({extender, verb, result})->Observe(seconds);
}

absl::StatusOr<std::unique_ptr<HttpExtender>> HttpExtender::Create(ExtenderConfig config,
                                                                   ExtenderMetrics* metrics) {
  std::string_view url = config.url_prefix;
  const bool https = url.starts_with("https://");
  if (!https && !url.starts_with("http://")) {
    return absl::InvalidArgumentError(
        fmt::format("extender {}: urlPrefix must start with http:// or https://", url));
  }
  std::string_view rest = url.substr(https ? 8 : 7);
  const size_t slash = rest.find('/');
  const std::string_view host = rest.substr(0, slash);
  if (host.empty()) {
    return absl::InvalidArgumentError(fmt::format("extender {}: urlPrefix has no host", url));
  }
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (path.ends_with('/')) path.remove_suffix(1);
  client::RestConfig rest_config{
      .server = fmt::format("{}://{}", https ? "https" : "http", host),
      .ca_data = config.ca_data,
      .ca_file = config.ca_file,
      .tls_server_name = config.server_name,
      // As upstream's makeTransport: enableHTTPS without a CA trusts any certificate.
      .insecure_skip_tls_verify =
          config.insecure ||
          (config.enable_https && config.ca_file.empty() && config.ca_data.empty()),
      .cert_data = config.cert_data,
      .cert_file = config.cert_file,
      .key_data = config.key_data,
      .key_file = config.key_file,
      .qps = -1,  // No client-side rate limit.
      .user_agent = "ksched",
  };
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http =
      client::HttpClient::Create(rest_config, {.thread_name = "ksched-extender"});
  if (!http.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("extender {}: {}", config.url_prefix, std::string(http.status().message())));
  }
  return std::unique_ptr<HttpExtender>(
      new HttpExtender(std::move(config), metrics, std::string(path), *std::move(http)));
}

HttpExtender::HttpExtender(ExtenderConfig config, ExtenderMetrics* metrics, std::string path,
                           std::unique_ptr<client::HttpClient> http)
    : config_(std::move(config)),
      metrics_(metrics),
      path_(std::move(path)),
      http_(std::move(http)) {}

bool HttpExtender::IsInterested(const api::Pod& pod) const {
  if (config_.managed_resources.empty()) return true;
  return ManagesAny(config_.managed_resources, pod.spec.containers) ||
         ManagesAny(config_.managed_resources, pod.spec.init_containers);
}

client::HttpRequest HttpExtender::Request(const std::string& verb, std::string body) const {
  return {.method = "POST",
          .path = path_ + "/" + verb,
          .body = std::move(body),
          .timeout = config_.http_timeout};
}

absl::Status HttpExtender::Failed(const std::string& verb, const client::HttpResponse& r,
                                  absl::Time start) const {
  const std::string url = http_->config().server + path_ + "/" + verb;
  if (r.status == 0) {
    // The transport's words are Go's (`Post "URL": dial tcp ...`); so are these, where the
    // client gave up at httpTimeout.
    if (absl::Now() - start < config_.http_timeout)
      return absl::UnavailableError(r.transport_error);
    return absl::UnavailableError(fmt::format(
        "Post \"{}\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
        url));
  }
  return absl::UnavailableError(
      fmt::format("failed {} with extender at URL {}, code {}", verb, url, r.status));
}

void HttpExtender::Observe(std::string_view verb, const absl::Status& s, absl::Time start) const {
  if (metrics_ == nullptr) return;
  metrics_->Observe(config_.url_prefix, verb,
                    s.ok()              ? "success"
                    : config_.ignorable ? "ignored"
                                        : "error",
                    absl::ToDoubleSeconds(absl::Now() - start));
}

absl::Status HttpExtender::Timed(std::string_view verb,
                                 const std::function<absl::Status()>& call) const {
  const absl::Time start = absl::Now();
  absl::Status s = call();
  Observe(verb, s, start);
  return s;
}

absl::StatusOr<std::string> HttpExtender::Send(const std::string& verb, std::string body) {
  const absl::Time start = absl::Now();
  client::HttpResponse r = http_->Call(Request(verb, std::move(body)));
  if (r.status != 200) return Failed(verb, r, start);
  return std::move(r.body);
}

absl::Status HttpExtender::Filter(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                                  ExtenderFilterResult* out) {
  if (!IsFilter()) {
    out->nodes = nodes;
    return absl::OkStatus();
  }
  return Timed("filter", [&]() -> absl::Status {
    KSCHED_ASSIGN_OR_RETURN(
        std::string body,
        Send(config_.filter_verb, wire::ExtenderArgs(pod, nodes, config_.node_cache_capable)));
    wire::FilterAnswer answer;
    KSCHED_RETURN_IF_ERROR(wire::DecodeFilterResult(body, &answer));
    if (!answer.error.empty()) return absl::UnknownError(answer.error);
    std::map<std::string_view, const NodeInfo*> asked;
    for (const NodeInfo* n : nodes) asked.emplace(n->name(), n);
    // A node it was not asked about is an error, whole or by name (upstream checks names only:
    // a node sent back whole that the scheduler does not have would be bound to).
    auto find = [&](const std::string& name) -> absl::StatusOr<const NodeInfo*> {
      auto it = asked.find(name);
      if (it == asked.end()) {
        return absl::InvalidArgumentError(fmt::format(
            "extender \"{}\" claims a filtered node \"{}\" which is not found in the input node "
            "list",
            config_.url_prefix, name));
      }
      return it->second;
    };
    if (config_.node_cache_capable && answer.node_names) {
      for (const std::string& name : *answer.node_names) {
        KSCHED_ASSIGN_OR_RETURN(const NodeInfo* n, find(name));
        out->nodes.push_back(n);
      }
    } else if (answer.nodes) {
      // As upstream's: each node as sent, in a NodeInfo of its own without pods, and without the
      // images the scheduler's cache counts (upstream's NodeInfo.SetNode sets no ImageStates:
      // ImageLocality scores such a node 0).
      for (api::Node& node : *answer.nodes) {
        KSCHED_RETURN_IF_ERROR(find(node.metadata.name).status());
        node.status.images.clear();
        auto made = std::make_shared<NodeInfo>();
        made->SetNode(std::make_shared<const api::Node>(std::move(node)));
        out->nodes.push_back(made.get());
        out->made.push_back(std::move(made));
      }
    }
    out->failed = std::move(answer.failed);
    out->failed_and_unresolvable = std::move(answer.failed_and_unresolvable);
    return absl::OkStatus();
  });
}

absl::Status HttpExtender::Prioritize(const api::Pod& pod,
                                      const std::vector<const NodeInfo*>& nodes,
                                      std::vector<HostPriority>* out) {
  if (!IsPrioritizer()) {
    for (const NodeInfo* n : nodes) out->push_back({.host = n->name(), .score = 0});
    return absl::OkStatus();
  }
  return Timed("prioritize", [&]() -> absl::Status {
    KSCHED_ASSIGN_OR_RETURN(
        std::string body,
        Send(config_.prioritize_verb, wire::ExtenderArgs(pod, nodes, config_.node_cache_capable)));
    return wire::DecodeHostPriorityList(body, out);
  });
}

absl::Status HttpExtender::ProcessPreemption(const api::Pod& pod,
                                             std::map<std::string, preemption::Victims>* victims,
                                             const Snapshot& snapshot) {
  if (!SupportsPreemption()) {
    return absl::InternalError(
        fmt::format("preempt verb is not defined for extender {} but run into ProcessPreemption",
                    config_.url_prefix));
  }
  return Timed("preempt", [&]() -> absl::Status {
    KSCHED_ASSIGN_OR_RETURN(std::string body,
                            Send(config_.preempt_verb,
                                 wire::PreemptionArgs(pod, *victims, config_.node_cache_capable)));
    std::map<std::string, wire::MetaVictims> answer;
    KSCHED_RETURN_IF_ERROR(wire::DecodePreemptionResult(body, &answer));
    std::map<std::string, preemption::Victims> chosen;
    for (const auto& [node, meta] : answer) {
      const NodeInfo* ni = snapshot.Get(node);
      if (ni == nullptr || ni->node() == nullptr) {
        return absl::NotFoundError(fmt::format("nodeinfo not found for node name \"{}\"", node));
      }
      preemption::Victims& v = chosen[node];
      v.num_pdb_violations = meta.num_pdb_violations;
      for (const std::string& uid : meta.uids) {
        const PodInfo* found = nullptr;
        for (const auto& pi : ni->pods()) {
          if (pi->pod->metadata.uid == uid) {
            v.pods.push_back(pi);
            found = pi.get();
            break;
          }
        }
        if (found == nullptr) {
          return absl::NotFoundError(fmt::format(
              "extender: {} claims to preempt pod (UID: &{{{}}}) on node: {}, but the pod is not "
              "found on that node",
              config_.url_prefix, uid, node));
        }
      }
    }
    *victims = std::move(chosen);
    return absl::OkStatus();
  });
}

void HttpExtender::Bind(const api::Pod& pod, const std::string& node,
                        std::function<void(absl::Status)> done) {
  const absl::Time start = absl::Now();
  http_->Send(Request(config_.bind_verb, wire::BindingArgs(pod, node)),
              [this, start, done = std::move(done)](const client::HttpResponse& r) {
                absl::Status s = [&]() -> absl::Status {
                  if (r.status != 200) return Failed(config_.bind_verb, r, start);
                  std::string error;
                  KSCHED_RETURN_IF_ERROR(wire::DecodeBindingResult(r.body, &error));
                  return error.empty() ? absl::OkStatus() : absl::UnknownError(error);
                }();
                Observe("bind", s, start);
                done(std::move(s));
              });
}

absl::StatusOr<Extenders> BuildExtenders(const std::vector<nlohmann::json>& configs,
                                         ExtenderMetrics* metrics) {
  Extenders out;
  std::vector<Extender*> ignorable;
  for (const nlohmann::json& j : configs) {
    KSCHED_ASSIGN_OR_RETURN(ExtenderConfig c, ParseExtenderConfig(j));
    for (const std::string& r : c.ignored_by_scheduler) out.ignored_resources.push_back(r);
    KSCHED_ASSIGN_OR_RETURN(std::unique_ptr<HttpExtender> e,
                            HttpExtender::Create(std::move(c), metrics));
    KLOG(2, "Creating extender", {"extender", e->Name()});
    (e->IsIgnorable() ? ignorable : out.list).push_back(e.get());
    out.owned.push_back(std::move(e));
  }
  out.list.insert(out.list.end(), ignorable.begin(), ignorable.end());
  return out;
}

}  // namespace ksched::extender
