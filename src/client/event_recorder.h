// EventRecorder: events.k8s.io/v1 Events about pods, written as client-go's event recorder writes
// them for kube-scheduler, without waiting for the API server; a failure is reported to the
// handler, after the tries client-go's recorder makes.
//
//   EventRecorder events(http, {.hostname = "node-1"});
//   events.Record(pod, "Normal", "Scheduled", "Binding", "Successfully assigned ...", absl::Now());
//
// Repeated events form a series, as client-go's events.k8s.io recorder makes them. An event with
// the same type, action, reason, reporting controller and instance and regarding object
// (resourceVersion included) as one still in the recorder's cache is not created again: the
// second one patches the first with series {count: 2, lastObservedTime}, and later ones only
// count. The owner calls FinishSeries every 6 minutes and RefreshSeries every 30, as client-go's
// broadcaster runs them: a series seen last over 6 minutes ago is patched with its final count
// and leaves the cache, as does a single event older than that; RefreshSeries patches every
// series with its count so far. A series patch that finds its event gone (404) creates it anew,
// series included.
//
// Thread safety: all methods may be called from several threads at once.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/api/core.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"

namespace ksched::client {

// Told of a write that failed for good: what it was ("event Scheduled for pod shop/web-1"), and
// why.
using WriteErrorHandler = std::function<void(const std::string& what, const absl::Status&)>;

struct EventRecorderOptions {
  // Events carry reportingController = the pod's schedulerName and reportingInstance =
  // "<schedulerName>-<hostname>", as kube-scheduler's recorder sets them.
  std::string hostname;
  // May be empty.
  WriteErrorHandler on_write_error;
  // While the API server cannot be reached, an event is sent again 11 times, each after this (to
  // 1.25 times it), as client-go's recorder does.
  absl::Duration retry_delay = absl::Seconds(10);
};

class EventRecorder {
 public:
  EventRecorder(HttpClient& http, EventRecorderOptions options)
      : http_(http), options_(std::move(options)) {}

  void Record(const api::Pod& pod, std::string_view type, std::string_view reason,
              std::string_view action, const std::string& message, absl::Time now);
  // Ends the series last seen over 6 minutes before `now` (their final count is sent) and forgets
  // single events older than that.
  void FinishSeries(absl::Time now);
  // Sends every open series' count so far.
  void RefreshSeries();

  // The body of an event, for tests.
  nlohmann::json EventBody(const api::Pod& pod, std::string_view type, std::string_view reason,
                           std::string_view action, const std::string& message,
                           absl::Time now) const;

 private:
  void SendEvent(HttpRequest request, std::string what);

  // An event in the recorder's cache. Every event recorded stays there for 6 to 12 minutes, so
  // it is kept small: its fields packed in one string, the series key (client-go's eventKey:
  // type, action, reason, reporting controller and the regarding pod) first and the note last.
  // Its body, path and name for error reports are made again from them when a series needs
  // them.
  struct Recorded {
    std::string packed;
    size_t key_size = 0;  // packed's first key_size characters are the series key.
    absl::Time event_time;
    // A series' counts change in the set; they are not part of its hash or equality.
    mutable int count = 0;  // 0 for a single event, else the series' count.
    mutable absl::Time last_observed;
    std::string_view key() const { return std::string_view(packed).substr(0, key_size); }
  };
  struct RecordedKey {
    using is_transparent = void;
    static std::string_view Of(const Recorded& r) { return r.key(); }
    static std::string_view Of(std::string_view key) { return key; }
    size_t operator()(const auto& r) const { return absl::HashOf(Of(r)); }
    bool operator()(const auto& a, const auto& b) const { return Of(a) == Of(b); }
  };
  // Patches the event with the series' count and last time; creates it, series included, if it is
  // gone.
  void SendSeries(const Recorded& r);

  HttpClient& http_;
  const EventRecorderOptions options_;
  absl::Mutex mu_;
  absl::flat_hash_set<Recorded, RecordedKey, RecordedKey> recent_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::client
