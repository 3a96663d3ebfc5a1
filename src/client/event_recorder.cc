#include "src/client/event_recorder.h"

#include <array>
#include <optional>
#include <vector>

#include "fmt/format.h"
#include "src/client/json_text.h"

namespace ksched::client {
namespace {

// client-go's recorder tries an event 12 times while the API server cannot be reached. Unlike
// it, ksched also tries again after a 5xx answer (etcd unavailable): the chaos soak lost a
// Scheduled event so when etcd was killed. A create whose first try did land then finds it (409).
constexpr int kEventRetries = 11;

// metav1.MicroTime's text.
std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

// Sends the request without waiting, and reports its failure. The callback may run after the
// recorder is gone: it holds its own copy of the error handler.
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

// The fields of an event in the recorder's cache, packed in this order, each but the note ended by
// kEnd. Everything before the note is the series key.
enum EventField { kType, kAction, kReason, kController, kNamespace, kName, kUid, kVersion, kNote };
constexpr int kEventFields = kNote + 1;
constexpr char kEnd = '\x1f';
using EventFields = std::array<std::string_view, kEventFields>;

// Packs the event's fields; `key_size` gets the length of its series key.
std::string Pack(const api::Pod& pod, std::string_view type, std::string_view reason,
                 std::string_view action, std::string_view note, size_t* key_size) {
  std::string_view ns = pod.metadata.namespace_;
  if (ns.empty()) ns = "default";
  std::string packed = fmt::format("{1}{0}{2}{0}{3}{0}{4}{0}{5}{0}{6}{0}{7}{0}{8}{0}", kEnd, type,
                                   action, reason, pod.spec.scheduler_name, ns, pod.metadata.name,
                                   pod.metadata.uid, pod.metadata.resource_version);
  *key_size = packed.size();
  packed.append(note);
  return packed;
}

EventFields Unpack(std::string_view packed) {
  EventFields f;
  for (int i = 0; i < kNote; ++i) {
    size_t end = packed.find(kEnd);
    f[i] = packed.substr(0, end);
    packed.remove_prefix(end + 1);
  }
  f[kNote] = packed;
  return f;
}

std::string EventsPath(std::string_view ns) {
  return fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events", ns);
}

// client-go names an event "<object>.<unix nanoseconds in hex>".
std::string EventName(const EventFields& f, absl::Time at) {
  return fmt::format("{}.{:x}", f[kName], absl::ToUnixNanos(at));
}

// How a failed write of the event is named in the error reports.
std::string EventWhat(const EventFields& f) {
  return fmt::format("event {} for pod {}/{}", f[kReason], f[kNamespace], f[kName]);
}

// The event's JSON text, as client-go's recorder writes it; with `series` (JSON) when not empty.
std::string EventText(const EventFields& f, absl::Time at, std::string_view hostname,
                      std::string_view series = {}) {
  std::string out;
  out.reserve(512 + f[kNote].size());
  auto field = [&](std::string_view before, std::string_view value) {
    AppendJsonField(&out, before, value);
  };
  field(R"({"apiVersion":)", "events.k8s.io/v1");
  field(R"(,"kind":)", "Event");
  field(R"(,"metadata":{"name":)", EventName(f, at));
  field(R"(,"namespace":)", f[kNamespace]);
  field(R"(},"eventTime":)", MicroTime(at));
  field(R"(,"reportingController":)", f[kController]);
  field(R"(,"reportingInstance":)", fmt::format("{}-{}", f[kController], hostname));
  field(R"(,"action":)", f[kAction]);
  field(R"(,"reason":)", f[kReason]);
  field(R"(,"regarding":{"kind":)", "Pod");
  field(R"(,"namespace":)", f[kNamespace]);
  field(R"(,"name":)", f[kName]);
  field(R"(,"uid":)", f[kUid]);
  field(R"(,"apiVersion":)", "v1");
  field(R"(,"resourceVersion":)", f[kVersion]);
  field(R"(},"note":)", f[kNote]);
  field(R"(,"type":)", f[kType]);
  if (!series.empty()) {
    out.append(R"(,"series":)");
    out.append(series);
  }
  out.push_back('}');
  return out;
}

}  // namespace

nlohmann::json EventRecorder::EventBody(const api::Pod& pod, std::string_view type,
                                        std::string_view reason, std::string_view action,
                                        const std::string& message, absl::Time now) const {
  size_t key_size = 0;
  return nlohmann::json::parse(EventText(
      Unpack(Pack(pod, type, reason, action, message, &key_size)), now, options_.hostname));
}

void EventRecorder::Record(const api::Pod& pod, std::string_view type, std::string_view reason,
                           std::string_view action, const std::string& message, absl::Time now) {
  Recorded event{.event_time = now};
  event.packed = Pack(pod, type, reason, action, message, &event.key_size);
  std::optional<Recorded> series;
  {
    absl::MutexLock lock(&mu_);
    auto it = recent_.find(event.key());
    if (it == recent_.end()) {
      recent_.insert(event);
    } else {
      it->last_observed = now;
      it->count = it->count == 0 ? 2 : it->count + 1;
      if (it->count > 2) return;  // Counted; sent on the next refresh or when the series ends.
      series = *it;
    }
  }
  if (series) {
    SendSeries(*series);
    return;
  }
  const EventFields f = Unpack(event.packed);
  SendEvent({.method = "POST",
             .path = EventsPath(f[kNamespace]),
             .body = EventText(f, now, options_.hostname),
             .retries = kEventRetries,
             .retry_delay = options_.retry_delay,
             .retry_server_errors = true},
            EventWhat(f));
}

void EventRecorder::FinishSeries(absl::Time now) {
  constexpr absl::Duration kFinishTime = absl::Minutes(6);  // client-go's finishTime.
  std::vector<Recorded> finished;
  {
    absl::MutexLock lock(&mu_);
    absl::erase_if(recent_, [&](const Recorded& r) {
      if (r.count == 0) return now - r.event_time > kFinishTime;
      if (now - r.last_observed <= kFinishTime) return false;
      finished.push_back(r);
      return true;
    });
  }
  for (const Recorded& r : finished) SendSeries(r);
}

void EventRecorder::RefreshSeries() {
  std::vector<Recorded> open;
  {
    absl::MutexLock lock(&mu_);
    for (const Recorded& r : recent_) {
      if (r.count > 0) open.push_back(r);
    }
  }
  for (const Recorded& r : open) SendSeries(r);
}

void EventRecorder::SendSeries(const Recorded& r) {
  std::string series =
      fmt::format(R"({{"count":{},"lastObservedTime":"{}"}})", r.count, MicroTime(r.last_observed));
  const EventFields f = Unpack(r.packed);
  std::string events = EventsPath(f[kNamespace]);
  std::string path = fmt::format("{}/{}", events, EventName(f, r.event_time));
  // As client-go: the event may have been removed meanwhile (its TTL, or by hand); then the
  // series is created as a new event.
  HttpClient& http = http_;
  http.Send({.method = "PATCH",
             .path = std::move(path),
             .body = fmt::format(R"({{"series":{}}})", series),
             .content_type = "application/strategic-merge-patch+json",
             .retries = kEventRetries,
             .retry_delay = options_.retry_delay,
             .retry_server_errors = true},
            [http = &http, report = options_.on_write_error, delay = options_.retry_delay,
             events = std::move(events), what = EventWhat(f), hostname = options_.hostname, series,
             r](const HttpResponse& resp) {
              if (resp.status == 404) {
                SendReporting(*http,
                              {.method = "POST",
                               .path = events,
                               .body = EventText(Unpack(r.packed), r.event_time, hostname, series),
                               .retries = kEventRetries,
                               .retry_delay = delay,
                               .retry_server_errors = true},
                              report, what);
              } else if (!resp.ok() && report) {
                report(what, resp.ToStatus());
              }
            });
}

void EventRecorder::SendEvent(HttpRequest request, std::string what) {
  SendReporting(http_, std::move(request), options_.on_write_error, std::move(what));
}

}  // namespace ksched::client
