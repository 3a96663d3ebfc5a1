// HttpExtender: kube-scheduler's HTTP extender client (pkg/scheduler/extender.go) on ksched's own
// HTTP client: one per configured extender, each with its own connection (kept alive) and I/O
// thread, so that a slow extender never stalls the one that watches the cluster. Each verb is a
// POST of wire.h's JSON to urlPrefix/verb, given httpTimeout (5 s by default) to answer.
//
//   extender::ExtenderMetrics metrics(registry);
//   absl::StatusOr<extender::Extenders> all = extender::BuildExtenders(cfg.extenders, &metrics);
//   // all->list: the non-ignorable first, as kube-scheduler orders them.
//
// The errors are upstream's words where they are its own ("failed filter with extender at URL
// http://x/filter, code 500"), and, where Go's HTTP client speaks, ours after its prefix
// (`Post "http://x/filter": ...`).
//
// Thread safety: as ksched/extender.h.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ksched/extender.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/metrics/metrics.h"

namespace ksched::extender {

// The v1 Extender configuration, decoded and checked by src/config.
struct ExtenderConfig {
  std::string url_prefix;
  std::string filter_verb, preempt_verb, prioritize_verb, bind_verb;
  int64_t weight = 0;
  bool enable_https = false;
  // tlsConfig: files, or PEM data (base64 in the configuration, decoded here).
  bool insecure = false;
  std::string server_name, cert_file, key_file, ca_file, cert_data, key_data, ca_data;
  absl::Duration http_timeout = absl::Seconds(5);  // 0 in the configuration: 5 s.
  bool node_cache_capable = false;
  std::set<std::string> managed_resources;
  std::vector<std::string> ignored_by_scheduler;
  bool ignorable = false;
};
// One `extenders` item of a decoded configuration.
absl::StatusOr<ExtenderConfig> ParseExtenderConfig(const nlohmann::json& j);

// ksched's own metrics of the calls (upstream has none but a goroutine gauge):
// scheduler_extender_requests_total and scheduler_extender_request_duration_seconds, by extender
// (its urlPrefix), verb (filter, prioritize, preempt, bind) and result (success, error,
// ignored: an error of an ignorable extender, which the scheduling went on without).
class ExtenderMetrics {
 public:
  explicit ExtenderMetrics(metrics::Registry& registry);
  void Observe(const std::string& extender, std::string_view verb, std::string_view result,
               double seconds);

 private:
  metrics::CounterFamily& requests_;
  metrics::HistogramFamily& duration_;
};

class HttpExtender final : public Extender {
 public:
  // Fails where the TLS files cannot be read or the URL is not http(s)://host[:port][/path].
  static absl::StatusOr<std::unique_ptr<HttpExtender>> Create(ExtenderConfig config,
                                                              ExtenderMetrics* metrics);

  const std::string& Name() const override { return config_.url_prefix; }
  bool IsIgnorable() const override { return config_.ignorable; }
  bool IsFilter() const override { return !config_.filter_verb.empty(); }
  bool IsPrioritizer() const override { return !config_.prioritize_verb.empty(); }
  bool IsBinder() const override { return !config_.bind_verb.empty(); }
  bool SupportsPreemption() const override { return !config_.preempt_verb.empty(); }
  int64_t weight() const override { return config_.weight; }
  bool IsInterested(const api::Pod& pod) const override;

  absl::Status Filter(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                      ExtenderFilterResult* out) override;
  absl::Status Prioritize(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                          std::vector<HostPriority>* out) override;
  absl::Status ProcessPreemption(const api::Pod& pod,
                                 std::map<std::string, preemption::Victims>* victims,
                                 const Snapshot& snapshot) override;
  void Bind(const api::Pod& pod, const std::string& node,
            std::function<void(absl::Status)> done) override;

 private:
  HttpExtender(ExtenderConfig config, ExtenderMetrics* metrics, std::string path,
               std::unique_ptr<client::HttpClient> http);
  // POSTs `body` to the verb and waits: the answer's body, or why there is none.
  absl::StatusOr<std::string> Send(const std::string& verb, std::string body);
  client::HttpRequest Request(const std::string& verb, std::string body) const;
  // The error of an answer that is not a 200 (or did not come) to a request sent at `start`.
  absl::Status Failed(const std::string& verb, const client::HttpResponse& r,
                      absl::Time start) const;
  void Observe(std::string_view verb, const absl::Status& s, absl::Time start) const;
  // `call`, observed as a call of `verb`.
  absl::Status Timed(std::string_view verb, const std::function<absl::Status()>& call) const;

  const ExtenderConfig config_;
  ExtenderMetrics* metrics_;
  const std::string path_;  // The URL's path, without its trailing '/'.
  std::unique_ptr<client::HttpClient> http_;
};

// The configured extenders, in kube-scheduler's order (the ignorable ones last), and the
// resources they manage that NodeResourcesFit leaves to them (ignoredByScheduler).
struct Extenders {
  std::vector<std::unique_ptr<Extender>> owned;
  std::vector<Extender*> list;
  std::vector<std::string> ignored_resources;
};
absl::StatusOr<Extenders> BuildExtenders(const std::vector<nlohmann::json>& configs,
                                         ExtenderMetrics* metrics);

}  // namespace ksched::extender
