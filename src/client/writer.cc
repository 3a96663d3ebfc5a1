#include "src/client/writer.h"

#include <optional>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "src/base/strings.h"

namespace ksched::client {
namespace {

using nlohmann::json;

std::string PodPath(const api::Pod& pod, std::string_view sub) {
  return fmt::format("/api/v1/namespaces/{}/pods/{}/{}", pod.metadata.namespace_, pod.metadata.name,
                     sub);
}

// client-go's recorder tries an event 12 times while the API server cannot be reached. Unlike
// it, ksched also tries again after a 5xx answer (etcd unavailable): the chaos soak lost a
// Scheduled event so when etcd was killed. A create whose first try did land then finds it (409).
constexpr int kEventRetries = 11;

// metav1.MicroTime's text.
std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

// Sends the request without waiting, and reports its failure. The callback may run after the
// writer is gone: it holds its own copy of the error handler.
void SendReporting(HttpClient& http, HttpRequest request, const WriteErrorHandler& report,
                   std::string what) {
  // A create sent again after its answer was lost may find what its first try made (409), as
  // client-go's recorder also takes it: not a failure.
  const bool retried_create = request.method == "POST" && request.retries > 0;
  http.Send(std::move(request),
            [report, retried_create, what = std::move(what)](const HttpResponse& r) {
              if (r.ok() || (retried_create && r.status == 409) || !report) return;
              report(what, r.ToStatus());
            });
}

}  // namespace

json ApiWriter::BindingBody(const api::Pod& pod, std::string_view node_name) {
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata",
           {{"name", pod.metadata.name},
            {"namespace", pod.metadata.namespace_},
            {"uid", pod.metadata.uid}}},
          {"target", {{"kind", "Node"}, {"name", node_name}}}};
}

absl::Status ApiWriter::Bind(const api::Pod& pod, std::string_view node_name) {
  HttpResponse r = http_.Call({.method = "POST",
                               .path = PodPath(pod, "binding"),
                               .body = BindingBody(pod, node_name).dump(),
                               .guard = options_.may_write});
  return r.ToStatus();
}

json ApiWriter::DeleteBody(const api::Pod& pod) {
  return {{"apiVersion", "v1"},
          {"kind", "DeleteOptions"},
          {"preconditions", {{"uid", pod.metadata.uid}}}};
}

absl::Status ApiWriter::DeletePod(const api::Pod& pod) {
  HttpResponse r = http_.Call({.method = "DELETE",
                               .path = fmt::format("/api/v1/namespaces/{}/pods/{}",
                                                   pod.metadata.namespace_, pod.metadata.name),
                               .body = DeleteBody(pod).dump(),
                               .guard = options_.may_write});
  return r.ToStatus();
}

json ApiWriter::EventBody(const api::Pod& pod, std::string_view type, std::string_view reason,
                          std::string_view action, const std::string& message,
                          absl::Time now) const {
  const std::string& controller = pod.spec.scheduler_name;
  std::string ns = pod.metadata.namespace_.empty() ? "default" : pod.metadata.namespace_;
  return {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      // client-go names an event "<object>.<unix nanoseconds in hex>".
      {"metadata",
       {{"name", fmt::format("{}.{:x}", pod.metadata.name, absl::ToUnixNanos(now))},
        {"namespace", ns}}},
      {"eventTime", MicroTime(now)},
      {"reportingController", controller},
      {"reportingInstance", fmt::format("{}-{}", controller, options_.hostname)},
      {"action", action},
      {"reason", reason},
      {"regarding",
       {{"kind", "Pod"},
        {"namespace", ns},
        {"name", pod.metadata.name},
        {"uid", pod.metadata.uid},
        {"apiVersion", "v1"},
        {"resourceVersion", pod.metadata.resource_version}}},
      {"note", message},
      {"type", type},
  };
}

void ApiWriter::RecordEventAt(const api::Pod& pod, std::string_view type, std::string_view reason,
                              std::string_view action, const std::string& message, absl::Time now) {
  json body = EventBody(pod, type, reason, action, message, now);
  const std::string& ns = body["metadata"]["namespace"].get_ref<const std::string&>();
  // client-go's eventKey: everything but the note and the time.
  std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", type, action, reason,
                                body["reportingInstance"].get_ref<const std::string&>(),
                                body["reportingController"].get_ref<const std::string&>(),
                                body["regarding"].dump());
  std::string events = fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events", ns);
  std::string what = fmt::format("event {} for pod {}/{}", reason, ns, pod.metadata.name);
  std::string text = body.dump();
  std::optional<Recorded> series;
  {
    absl::MutexLock lock(&mu_);
    auto [it, added] = recent_.try_emplace(key);
    Recorded& r = it->second;
    if (added) {
      r = {.event = text,
           .path =
               fmt::format("{}/{}", events, body["metadata"]["name"].get_ref<const std::string&>()),
           .what = what,
           .event_time = now};
    } else {
      r.last_observed = now;
      r.count = r.count == 0 ? 2 : r.count + 1;
      if (r.count > 2) return;  // Counted; sent on the next refresh or when the series ends.
      series = r;
    }
  }
  if (series) {
    SendSeries(*series);
    return;
  }
  SendEvent({.method = "POST",
             .path = std::move(events),
             .body = std::move(text),
             .retries = kEventRetries,
             .retry_delay = options_.event_retry_delay,
             .retry_server_errors = true},
            std::move(what));
}

void ApiWriter::FinishSeries(absl::Time now) {
  constexpr absl::Duration kFinishTime = absl::Minutes(6);  // client-go's finishTime.
  std::vector<Recorded> finished;
  {
    absl::MutexLock lock(&mu_);
    absl::erase_if(recent_, [&](const auto& kv) {
      const Recorded& r = kv.second;
      if (r.count == 0) return now - r.event_time > kFinishTime;
      if (now - r.last_observed <= kFinishTime) return false;
      finished.push_back(r);
      return true;
    });
  }
  for (const Recorded& r : finished) SendSeries(r);
  absl::MutexLock lock(&patches_->mu);
  absl::erase_if(patches_->pods, [&](const auto& kv) {
    return !kv.second.in_flight && now - kv.second.at > absl::Minutes(1);
  });
}

void ApiWriter::RefreshSeries() {
  std::vector<Recorded> open;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, r] : recent_) {
      if (r.count > 0) open.push_back(r);
    }
  }
  for (const Recorded& r : open) SendSeries(r);
}

void ApiWriter::SendSeries(const Recorded& r) {
  json series = {{"count", r.count}, {"lastObservedTime", MicroTime(r.last_observed)}};
  // As client-go: the event may have been removed meanwhile (its TTL, or by hand); then the
  // series is created as a new event.
  HttpClient& http = events_http();
  http.Send({.method = "PATCH",
             .path = r.path,
             .body = json{{"series", series}}.dump(),
             .content_type = "application/strategic-merge-patch+json",
             .retries = kEventRetries,
             .retry_delay = options_.event_retry_delay,
             .retry_server_errors = true},
            [http = &http, report = options_.on_write_error, delay = options_.event_retry_delay,
             series, r](const HttpResponse& resp) {
              if (resp.status == 404) {
                json created = json::parse(r.event);
                created["series"] = series;
                SendReporting(*http,
                              {.method = "POST",
                               .path = r.path.substr(0, r.path.rfind('/')),
                               .body = created.dump(),
                               .retries = kEventRetries,
                               .retry_delay = delay,
                               .retry_server_errors = true},
                              report, r.what);
              } else if (!resp.ok() && report) {
                report(r.what, resp.ToStatus());
              }
            });
}

json ApiWriter::StatusPatch(const api::PodCondition& c, const std::string* nominated_node) {
  json cond = {{"type", c.type},
               {"status", c.status},
               {"lastProbeTime", nullptr},
               {"reason", c.reason},
               {"message", c.message},
               {"lastTransitionTime",
                c.last_transition_time.empty() ? json(nullptr) : json(c.last_transition_time)}};
  json status = {{"conditions", json::array({cond})}};
  if (nominated_node != nullptr) {
    status["nominatedNodeName"] = nominated_node->empty() ? json(nullptr) : json(*nominated_node);
  }
  return {{"status", status}};
}

namespace {

// Whether the pod carries the condition (status, reason, message) and nominated node already.
bool HasStatus(const api::Pod& pod, const api::PodCondition& condition,
               const std::string* nominated_node) {
  bool same_nominated =
      nominated_node == nullptr || *nominated_node == pod.status.nominated_node_name;
  return same_nominated &&
         std::any_of(pod.status.conditions.begin(), pod.status.conditions.end(),
                     [&](const api::PodCondition& c) {
                       return c.type == condition.type && c.status == condition.status &&
                              c.reason == condition.reason && c.message == condition.message;
                     });
}

HttpRequest StatusPatchRequest(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) {
  return {.method = "PATCH",
          .path = PodPath(pod, "status"),
          .body = ApiWriter::StatusPatch(condition, nominated_node).dump(),
          .content_type = "application/strategic-merge-patch+json"};
}

}  // namespace

absl::Status ApiWriter::UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                                        const std::string* nominated_node) {
  if (HasStatus(pod, condition, nominated_node)) return absl::OkStatus();
  HttpRequest request = StatusPatchRequest(pod, condition, nominated_node);
  request.retries = 5;
  request.retry_delay = options_.status_retry_delay;
  std::string what = fmt::format("status of pod {}/{}", pod.metadata.namespace_, pod.metadata.name);
  {
    absl::MutexLock lock(&patches_->mu);
    StatusPatches::OfPod& p = patches_->pods[pod.metadata.uid];
    const absl::Time now = absl::Now();
    if (p.body == request.body && (p.in_flight || now - p.at < absl::Minutes(1))) {
      p.next.reset();  // What waited is older than what the server has, or is about to.
      return absl::OkStatus();
    }
    if (p.in_flight) {
      p.next = std::move(request);
      p.next_what = std::move(what);
      return absl::OkStatus();
    }
    p = {.in_flight = true, .body = request.body, .at = now};
  }
  SendStatusPatch(patches_, http_, std::move(request), options_.on_write_error, std::move(what),
                  pod.metadata.uid);
  return absl::OkStatus();
}

void ApiWriter::SendStatusPatch(std::shared_ptr<StatusPatches> patches, HttpClient& http,
                                HttpRequest request, WriteErrorHandler report, std::string what,
                                std::string uid) {
  http.Send(std::move(request), [patches, &http, report, what = std::move(what),
                                 uid = std::move(uid)](const HttpResponse& r) mutable {
    if (!r.ok() && report) report(what, r.ToStatus());
    HttpRequest next;
    std::string next_what;
    {
      absl::MutexLock lock(&patches->mu);
      auto it = patches->pods.find(uid);
      if (it == patches->pods.end()) return;
      StatusPatches::OfPod& p = it->second;
      if (r.status == 404) {  // The pod is gone: so is what waited.
        patches->pods.erase(it);
        return;
      }
      if (!r.ok()) p.body.clear();  // Not taken: an equal patch may go again.
      if (!p.next) {
        p.in_flight = false;
        return;
      }
      next = std::move(*p.next);
      next_what = std::move(p.next_what);
      p.next.reset();
      p.body = next.body;
      p.at = absl::Now();
    }
    SendStatusPatch(std::move(patches), http, std::move(next), std::move(report),
                    std::move(next_what), std::move(uid));
  });
}

absl::Status ApiWriter::UpdatePodStatusAndWait(const api::Pod& pod,
                                               const api::PodCondition& condition) {
  if (HasStatus(pod, condition, nullptr)) return absl::OkStatus();
  return http_.Call(StatusPatchRequest(pod, condition, nullptr)).ToStatus();
}

void ApiWriter::SendEvent(HttpRequest request, std::string what) {
  SendReporting(events_http(), std::move(request), options_.on_write_error, std::move(what));
}

}  // namespace ksched::client
