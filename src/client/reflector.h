// Reflector: keeps a local copy of one kind of API object (pods, nodes, ...) in step with the API
// server, as client-go's reflector and informer do, and tells handlers of every change. The copy is
// an ObjectStore (src/api/listers.h): its own, or one the scheduler's plugins read (a lister).
//
// It lists, then watches from the list's resourceVersion with bookmarks. When the watch ends it
// watches again from the last resourceVersion it saw; when that version has expired (410 Gone) it
// lists again and hands on only the differences from its copy, so that no change is lost and none
// is applied twice; Resync does the same on demand. Errors are retried with exponential backoff and
// jitter (0.8 s to 30 s).
//
//   Reflector<api::Pod> pods(http, {.path = "/api/v1/pods"}, handlers);
//   pods.Start();
//   Reflector<api::Service> services(http, {.path = "/api/v1/services"}, {}, &listers.services);
//   pods.WaitForSync(absl::Seconds(30));
//
// Thread safety: handlers run on the reflector's own thread, one at a time, in the server's order,
// after the change is in the store. Only that thread writes the store, and its handlers may: an
// object they remove is, to the reflector, no longer there.
// Start/Stop/WaitForSync may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "src/api/listers.h"
#include "src/client/http.h"

namespace ksched::client {

struct ReflectorOptions {
  std::string path;            // The collection: "/api/v1/pods".
  std::string field_selector;  // Optional, e.g. "status.phase!=Succeeded,status.phase!=Failed".
  absl::Duration min_watch_timeout = absl::Minutes(5);  // Each watch lasts 1x to 2x of this.
  // A watch that sends nothing for this long, not even the bookmark kube-apiserver sends about
  // once a minute, is ended and opened again from the last resourceVersion seen: its server or
  // the path to it hangs.
  absl::Duration watch_idle_timeout = absl::Seconds(150);
  // Whether the objects are optional: a list the server forbids (403) or does not serve (404, an
  // API group it does not enable) then counts as synced with no objects, and is retried with
  // backoff as any failure; once allowed and served, the objects arrive.
  bool optional = false;
  // Whether the watch's events are decoded and handed to the handlers on the HTTP client's I/O
  // thread, as they arrive, rather than on the reflector's own thread: one thread fewer to wake
  // for each event. The handlers must then not block, nor wait for what the client carries (a
  // Call() on it, or a lock held across one); the reflector's list is still handled on its own
  // thread, never at the same time.
  bool handle_on_io_thread = false;
  // The wait after a failed list or watch, as client-go's reflector: `initial`, doubled after
  // each failure up to `max`, each time with up to 100% more at random; and back to `initial`
  // once `reset` has passed since the doubling began, so that faults minutes apart do not each
  // cost the longest wait.
  struct Backoff {
    absl::Duration initial = absl::Milliseconds(800);
    absl::Duration max = absl::Seconds(30);
    absl::Duration reset = absl::Minutes(2);
  } backoff;
};

template <typename T>
struct ReflectorHandlers {
  std::function<void(std::shared_ptr<const T>)> on_add;
  std::function<void(std::shared_ptr<const T> old_obj, std::shared_ptr<const T> obj)> on_update;
  std::function<void(std::shared_ptr<const T>)> on_delete;
  // An object the decoder rejected: what could be read of it (the metadata first) and why. The
  // object is left out of the copy; the reflector goes on.
  std::function<void(const T& partial, const absl::Status&)> on_decode_error;
};

template <typename T>
class Reflector {
 public:
  // `store`: the copy to keep, which must outlive the reflector; nullptr: one of its own.
  Reflector(HttpClient& http, ReflectorOptions options, ReflectorHandlers<T> handlers,
            ObjectStore<T>* store = nullptr);
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;
  ~Reflector();  // Stops.

  void Start();
  // Ends the watch and joins the thread; no handler runs after it returns.
  void Stop();
  // Whether the first list has been handed to the handlers; waits up to `timeout` for it.
  bool WaitForSync(absl::Duration timeout);
  bool HasSynced();
  // Lists again now, with a consistent read (from etcd, not the API server's watch cache), ends
  // any watch or backoff under way, hands on the differences from the copy and watches on from
  // there; returns once that list is handed on, or false after `timeout` or on Stop. A new leader
  // calls it so that it schedules from what its predecessor did, not from a watch that may lag
  // (the chaos soak found one that did, and a node overcommitted).
  bool Resync(absl::Duration timeout);
  // The number of lists (the first included), of watches opened and of bookmarks handled so far,
  // for tests.
  int lists();
  int watches();
  int bookmarks();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksched::client
