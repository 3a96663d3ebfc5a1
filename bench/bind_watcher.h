// BindWatcher: counts the pods of a namespace seen bound, for the side-by-side bench, on ksched's
// own Reflector (src/client/reflector.h): a watch of the namespace's bound pods (field selector
// spec.nodeName!=), opened again from the last resourceVersion when the API server ends it, and
// listed again on 410 Gone, as ksched's scheduler watches. So the bench proves the reflector on
// every run, and has no watch code of its own. It lists before it watches: a watch opened without
// a resourceVersion brings the pods there in the order of their names, each at its own version,
// so going on from the last one seen after the API server ends it part way loses binds (issue 58).
//
// A watch that lost an event must not pass for a slow scheduler: when WaitFor's count stalls, it
// lists the namespace's pods from etcd, and a pod bound there that the watch still does not bring
// within a grace period is an error of its own (DataLoss), naming the pods.
//
//   BindWatcher binds(http, "sched-1");
//   absl::Status st = binds.WaitFor(5000, absl::Seconds(500));  // DeadlineExceeded, DataLoss
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/client/http.h"
#include "src/client/reflector.h"

namespace ksched::bench {

struct BindWatcherOptions {
  // How long the count may stand still before WaitFor lists to confirm, and how long a pod the
  // list shows bound may then take to come on the watch.
  absl::Duration stall = absl::Seconds(30);
  absl::Duration grace = absl::Seconds(10);
  // The reflector's: how long each watch lasts at least (the API server ends it after 1x to 2x).
  absl::Duration min_watch_timeout = absl::Minutes(5);
};

class BindWatcher {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // Starts watching; `http` must outlive the watcher.
  BindWatcher(client::HttpClient& http, std::string ns, BindWatcherOptions options = {});
  BindWatcher(const BindWatcher&) = delete;
  BindWatcher& operator=(const BindWatcher&) = delete;
  ~BindWatcher();  // Stops the watch; no handler runs after it.

  // Waits until `pods` pods were seen bound, or `timeout` passes (DeadlineExceeded: "4998 of
  // 5000 pods bound in sched-1"). A pod that a list of the API server shows bound and that the
  // watch does not bring within the grace period fails it with DataLoss. With `alive`, asked
  // each second the count stands still: once it says the scheduler is gone, Aborted.
  absl::Status WaitFor(size_t pods, absl::Duration timeout,
                       const std::function<bool()>& alive = nullptr);

  size_t Count();
  // Whether `name` was seen bound.
  bool Seen(const std::string& name);
  // When the last pod was first seen bound.
  SteadyTime last();
  // The second (Unix time) at which each pod was first seen bound.
  std::vector<int64_t> seen_seconds();
  // How many times the watch was opened, and the namespace listed (the first list included).
  int watches() { return reflector_->watches(); }
  int lists() { return reflector_->lists(); }

 private:
  void Note(const std::string& name);
  // The names of the namespace's bound pods that the watch has not brought, from a list of etcd.
  absl::StatusOr<std::vector<std::string>> Unseen();
  // Those of `names` not seen bound.
  std::vector<std::string> NotSeen(std::vector<std::string> names)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  client::HttpClient& http_;
  const std::string ns_;
  const BindWatcherOptions options_;
  absl::Mutex mu_;
  std::set<std::string, std::less<>> bound_ ABSL_GUARDED_BY(mu_);
  SteadyTime last_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> seen_seconds_ ABSL_GUARDED_BY(mu_);
  // Last: stopped first, before what its handlers use.
  std::unique_ptr<client::Reflector<api::Pod>> reflector_;
};

}  // namespace ksched::bench
