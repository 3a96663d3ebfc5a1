#include "src/client/writer.h"

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
                               .body = BindingBody(pod, node_name).dump()});
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
      {"eventTime",
       absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", now, absl::UTCTimeZone())},  // MicroTime.
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
  constexpr absl::Duration kSeriesWindow = absl::Minutes(6);  // client-go's finishTime.
  json body = EventBody(pod, type, reason, action, message, now);
  std::string ns = body["metadata"]["namespace"];
  std::string key =
      fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", action, reason, pod.spec.scheduler_name,
                  ns, pod.metadata.name, pod.metadata.uid, pod.metadata.resource_version);
  std::string what = fmt::format("event {} for pod {}/{}", reason, ns, pod.metadata.name);
  std::string patch_name;
  {
    absl::MutexLock lock(&mu_);
    if (now - pruned_ >= absl::Minutes(1)) {
      absl::erase_if(recent_,
                     [&](const auto& kv) { return now - kv.second.last >= kSeriesWindow; });
      pruned_ = now;
    }
    auto it = recent_.find(key);
    if (it != recent_.end() && now - it->second.last < kSeriesWindow) {
      Recorded& r = it->second;
      r.last = now;
      if (++r.count > 2) return;  // Counted; client-go sends these on its 30-minute refresh.
      patch_name = r.name;
    } else {
      recent_[key] = {.name = body["metadata"]["name"], .namespace_ = ns, .last = now};
    }
  }
  if (!patch_name.empty()) {
    json series = {{"series", {{"count", 2}, {"lastObservedTime", body["eventTime"]}}}};
    SendAsync(
        {.method = "PATCH",
         .path = fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events/{}", ns, patch_name),
         .body = series.dump(),
         .content_type = "application/strategic-merge-patch+json"},
        std::move(what));
    return;
  }
  SendAsync({.method = "POST",
             .path = fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events", ns),
             .body = body.dump()},
            std::move(what));
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

absl::Status ApiWriter::UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                                        const std::string* nominated_node) {
  bool same_nominated =
      nominated_node == nullptr || *nominated_node == pod.status.nominated_node_name;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == condition.type && c.status == condition.status && c.reason == condition.reason &&
        c.message == condition.message && same_nominated) {
      return absl::OkStatus();
    }
  }
  SendAsync({.method = "PATCH",
             .path = PodPath(pod, "status"),
             .body = StatusPatch(condition, nominated_node).dump(),
             .content_type = "application/strategic-merge-patch+json"},
            fmt::format("status of pod {}/{}", pod.metadata.namespace_, pod.metadata.name));
  return absl::OkStatus();
}

void ApiWriter::SendAsync(HttpRequest request, std::string what) {
  // The callback may run after the writer is gone: it holds its own copy of the error handler.
  http_.Send(std::move(request),
             [report = options_.on_write_error, what = std::move(what)](const HttpResponse& r) {
               if (!r.ok() && report) report(what, r.ToStatus());
             });
}

}  // namespace ksched::client
