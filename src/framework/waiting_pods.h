// WaitingPods: the pods that Permit plugins hold back from binding, by UID (upstream's
// framework/runtime/waiting_pods_map.go).
//
//   WaitingPods waiting(&clock);  // nullptr: the real clock
//   waiting.Add(pod, {{"Coscheduling", absl::Seconds(30)}});  // a Permit plugin returned Wait
//   waiting.Get(uid)->Allow("Coscheduling");                  // from any thread
//   Status s = waiting.Get(uid)->Wait();                      // the binding cycle blocks here
//   waiting.Remove(uid);
//
// Thread safety: every method of WaitingPods and of WaitingPodImpl may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/handle.h"
#include "ksched/status.h"
#include "src/base/clock.h"

namespace ksched::framework {

// A pod held at Permit until every plugin that asked it to wait allows it, one rejects it, or the
// first of their deadlines passes on `clock`.
class WaitingPodImpl : public WaitingPod {
 public:
  // `timeouts`: the plugins that asked the pod to wait, each with how long it waits from now, on
  // `clock`, which must outlive the pod.
  WaitingPodImpl(const api::Pod& pod, std::map<std::string, absl::Duration> timeouts,
                 const Clock& clock);
  WaitingPodImpl(const WaitingPodImpl&) = delete;
  WaitingPodImpl& operator=(const WaitingPodImpl&) = delete;

  const api::Pod& pod() const override { return pod_; }
  std::vector<std::string> PendingPlugins() const override ABSL_LOCKS_EXCLUDED(mu_);
  void Allow(std::string_view plugin) override ABSL_LOCKS_EXCLUDED(mu_);
  // The first rejection wins; later ones are ignored.
  void Reject(std::string_view plugin, std::string message) override ABSL_LOCKS_EXCLUDED(mu_);

  // Blocks until every plugin allowed the pod (Success), one rejected it (its Unschedulable
  // status, with the plugin's name), or a deadline passed (Unschedulable, upstream's "rejected
  // due to timeout after waiting 10s at plugin <name>"). The clock decides the deadline: on a
  // FakeClock, the wait times out when a test advances the clock past it.
  Status Wait() ABSL_LOCKS_EXCLUDED(mu_);
  // Whether Wait would return at once: allowed by all, rejected, or past a deadline.
  bool Decided() const ABSL_LOCKS_EXCLUDED(mu_);
  // The first deadline of the plugins still to allow it; InfiniteFuture once none is left.
  absl::Time Deadline() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const api::Pod pod_;
  const Clock& clock_;
  const std::map<std::string, absl::Duration> timeouts_;
  mutable absl::Mutex mu_;
  std::map<std::string, absl::Time> deadlines_ ABSL_GUARDED_BY(mu_);  // The pending plugins.
  std::optional<Status> result_ ABSL_GUARDED_BY(mu_);                 // Set by Reject.
};

class WaitingPods {
 public:
  // `clock` (nullptr: the real clock) times the waits and must outlive every waiting pod.
  explicit WaitingPods(const Clock* clock);
  WaitingPods(const WaitingPods&) = delete;
  WaitingPods& operator=(const WaitingPods&) = delete;

  // Makes `pod` a waiting pod, held for each plugin of `timeouts` up to its timeout from the
  // clock's now.
  // Replaces a waiting pod of the same UID.
  void Add(const api::Pod& pod, const std::map<std::string, absl::Duration>& timeouts)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The waiting pod of `uid`, or nullptr. The pod stays valid for as long as the caller holds it,
  // even after Remove.
  std::shared_ptr<WaitingPodImpl> Get(std::string_view uid) const ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(std::string_view uid) ABSL_LOCKS_EXCLUDED(mu_);
  // Calls `fn` for each pod waiting when the call starts. `fn` runs without the lock held, so it
  // may call back into this map (Allow, Reject, Get).
  void Iterate(const std::function<void(WaitingPod&)>& fn) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<WaitingPodImpl>, std::less<>> pods_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::framework
