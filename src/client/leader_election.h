// LeaderElector: leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection
// package does it for kube-scheduler, so that of several replicas exactly one schedules.
//
// A candidate takes the Lease when nobody holds it or when the holder has not renewed it for
// leaseDuration, measured on the candidate's own clock from when it last saw the Lease change.
// The leader renews every retryPeriod; if it cannot renew within renewDeadline it has lost the
// Lease, and must stop at once (kube-scheduler exits). Updates use the Lease's resourceVersion, so
// two candidates can never both win one round. On a clean shutdown the leader releases the Lease
// (holderIdentity "" and leaseDurationSeconds 1), so a standby takes over without waiting.
//
//   LeaderElector elector(http, {.name = "kube-scheduler", .identity = id, ...});
//   if (elector.Acquire(stop)) { run(); }         // blocks until leader, or `stop`
//   elector.KeepRenewing(on_lost);                // renews on its own thread
//   ...
//   elector.Release();
//
// Thread safety: Acquire, KeepRenewing and Release from one thread; IsLeader from any.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"

namespace ksched::client {

struct LeaderElectionOptions {
  std::string namespace_ = "kube-system";
  std::string name = "kube-scheduler";
  std::string identity;  // Unique per replica: "<hostname>_<random>".
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
};

class LeaderElector {
 public:
  LeaderElector(HttpClient& http, LeaderElectionOptions options);
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;
  ~LeaderElector();  // Stops renewing (without releasing).

  // Tries every retryPeriod (with jitter) until this replica holds the Lease, or until `stop`
  // returns true. Returns whether it became the leader.
  bool Acquire(const std::function<bool()>& stop);
  // Renews on a thread of its own; calls `on_lost` (on that thread) once it could not renew
  // within renewDeadline.
  void KeepRenewing(std::function<void()> on_lost);
  // Stops renewing and, if still the leader, gives the Lease up.
  void Release();
  bool IsLeader() const { return leader_.load(); }
  // The fence of every write that only the leader may make (binds, evictions): OK while this
  // replica leads and its last successful renewal began less than renewDeadline ago, on its own
  // clock. As renewDeadline is shorter than the lease, a standby cannot have taken over then,
  // however long a renewal waited or the process was stopped.
  absl::Status Leading() const;
  // The leaderElection health check (client-go's HealthzAdaptor): fails while this replica
  // leads but has not renewed for longer than the lease duration plus `tolerance`.
  absl::Status Check(absl::Duration tolerance) const;

  // One attempt, as client-go's tryAcquireOrRenew. `now` is the local clock.
  absl::Status TryAcquireOrRenew(absl::Time now);

 private:
  std::string LeasePath() const;
  nlohmann::json LeaseSpec(absl::Time now, bool new_holder, int transitions) const;

  HttpClient& http_;
  LeaderElectionOptions options_;
  std::atomic<bool> leader_{false};
  // What this replica last saw of the Lease, and when (local clock).
  std::string observed_spec_;
  // When (local clock, Unix nanoseconds): atomic, as Check reads it from other threads.
  std::atomic<int64_t> observed_unix_nanos_{0};
  // When the last successful acquire or renewal began (the renewTime it wrote), local clock.
  std::atomic<int64_t> renewed_unix_nanos_{0};
  absl::Time ObservedTime() const { return absl::FromUnixNanos(observed_unix_nanos_.load()); }
  nlohmann::json observed_;  // The whole object, for updates.
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread renewer_;
};

}  // namespace ksched::client
