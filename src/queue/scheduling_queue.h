// SchedulingQueue: pods waiting to be scheduled, in three parts, as upstream's PriorityQueue.
//
// - activeQ: pods ready to be tried, ordered by the profile's QueueSort plugin.
// - backoffQ: pods that failed recently, waiting out an exponential backoff (1s doubling to 10s by
//   default). When activeQ is empty, Pop takes the head of backoffQ early
//   (SchedulerPopFromBackoffQ, on by default since 1.33), except for pods that failed with an
//   error, which wait apart. As upstream's with that gate (KEP-5142), a backoff ends at a whole
//   second: the end is truncated to its second, and the pod backs off until a later second
//   begins; pods whose backoffs end in one second are ordered as in activeQ, so that those that
//   failed together come back by priority, and FlushBackoffQCompleted should run at each whole
//   second.
// - unschedulable: pods rejected by plugins, waiting for a cluster event that those plugins say
//   may help (their QueueingHints), or for 5 minutes to pass. Pods held back by a PreEnqueue
//   plugin (scheduling gates) wait here too, marked gated.
//
//   queue.Add(pod_info);
//   while (auto p = queue.Pop()) { ...schedule...; queue.AddUnschedulableIfNotPresent(*p); }
//   queue.MoveAllToActiveOrBackoffQueue(node_added_event);
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/plugin.h"
#include "src/base/clock.h"
#include "src/framework/framework.h"

namespace ksched::queue {

struct QueueOptions {
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(10);
  absl::Duration max_in_unschedulable = absl::Minutes(5);
  // Observers for the metrics, called under the queue's lock (keep them short):
  // a pod entered `queue` ("active", "backoff" or "unschedulable") because of `event`; `moved`
  // when it was new, or went elsewhere than the queueing hint that moved it said (upstream's
  // scheduler_queue_incoming_entities_total counts those);
  std::function<void(std::string_view queue, std::string_view event, bool moved)> on_incoming;
  // a pod entered (+1) or left (-1) the unschedulable pods, with its rejecting plugins.
  std::function<void(const QueuedPodInfo& pod, int delta)> on_unschedulable;
};

// A cluster event that owns its objects, so that the queue can replay it later to the pods that
// were in flight (being scheduled) when it arrived.
struct QueuedEvent {
  ClusterEvent event;
  std::shared_ptr<const api::Pod> old_pod, new_pod;
  std::shared_ptr<const api::Node> old_node, new_node;
  // A storage event's objects: `storage` points into old_object and new_object, which own them.
  StorageChange storage;
  std::shared_ptr<const void> old_object, new_object;

  ClusterEventData Data() const {
    return {event, old_pod.get(), new_pod.get(), old_node.get(), new_node.get(), storage};
  }
};

struct QueueCounts {
  size_t active = 0;
  size_t backoff = 0;
  size_t unschedulable = 0;
  size_t gated = 0;
  size_t in_flight = 0;
};

class SchedulingQueue {
 public:
  // Finds the framework of a pod's profile by schedulerName; pods of unknown profiles are ignored.
  using FrameworkFor = std::function<const framework::Framework*(std::string_view scheduler_name)>;

  SchedulingQueue(QueueOptions options, const Clock* clock, FrameworkFor framework_for);
  SchedulingQueue(const SchedulingQueue&) = delete;
  SchedulingQueue& operator=(const SchedulingQueue&) = delete;

  // A new pending pod: to activeQ, or to the unschedulable pods as gated if PreEnqueue says no.
  void Add(std::shared_ptr<const PodInfo> pod);
  // The pod changed; an unschedulable pod moves if the change may help (gates removed, ...).
  void Update(std::shared_ptr<const PodInfo> pod);
  void Delete(std::string_view uid);

  // The next pod to schedule, or nullopt if none is ready. The pod is in flight until it comes
  // back through AddUnschedulableIfNotPresent or Done.
  std::optional<QueuedPodInfo> Pop();
  // As Pop, waiting up to `timeout` for a pod.
  std::optional<QueuedPodInfo> PopWait(absl::Duration timeout);
  // Returns a pod that failed its cycle. The events that arrived while it was in flight are
  // replayed through its rejecting plugins' hints, as upstream's in-flight events: if one may
  // help, the pod goes to backoffQ or activeQ; if none does, to the unschedulable pods. A pod
  // that failed with an error goes to backoffQ.
  void AddUnschedulableIfNotPresent(QueuedPodInfo pod);
  // The pod's cycle ended (scheduled); it leaves the in-flight set.
  void Done(std::string_view uid);
  // The pods of pod group `ns`/`name` waiting here, other than `except` (in flight already): in
  // activeQ, backoffQ, or among the unschedulable pods (the gated ones if PreEnqueue now lets
  // them go), popped at once to be scheduled with it, as upstream pops a pod group's queued pods
  // together (GenericWorkload).
  std::vector<QueuedPodInfo> PopPodGroup(std::string_view ns, std::string_view name,
                                         std::string_view except);
  // A pod of pod group `ns`/`name` arrived: the group's pods that `plugin` holds back at PreEnqueue
  // go through it again (what upstream's UnscheduledPodAdd event does for GangScheduling).
  void RecheckGatedPodGroup(std::string_view ns, std::string_view name, std::string_view plugin);

  // Moves the unschedulable pods whose rejecting plugins' hints say the event may help.
  // The event is also kept for the pods in flight, until they all come back.
  void MoveAllToActiveOrBackoffQueue(QueuedEvent event);
  // Moves these pods to activeQ (through PreEnqueue) if they are unschedulable, gated or backing
  // off (upstream's Activate); others are left alone.
  void Activate(const std::vector<std::string>& uids);
  // Moves backoffQ pods whose backoff expired to activeQ, the error ones last.
  void FlushBackoffQCompleted();
  // Moves pods unschedulable for longer than max_in_unschedulable (the 5 minute flush).
  void FlushUnschedulablePodsLeftover();

  // When the next backoff ends (the whole second after the truncated end), or InfiniteFuture if
  // backoffQ is empty.
  absl::Time NextBackoffExpiry() const;
  QueueCounts Counts() const;
  // Whether the pod is known to the queue (in any part, or in flight).
  bool Contains(std::string_view uid) const;
  // Ends PopWait calls; Pop returns nullopt from now on.
  void Close();
  bool Closed() const;

 private:
  enum class Where { kNew, kActive, kBackoff, kUnschedulable, kInFlight };
  struct Entry;
  struct ActiveLess {
    bool operator()(const Entry* a, const Entry* b) const;
  };
  struct BackoffLess {
    bool operator()(const Entry* a, const Entry* b) const;
  };
  // The queues are ordered by the profile's QueueSort plugin, whose answers may change while a pod
  // waits (Coscheduling orders a group by its last failure): a pod leaves its queue by the position
  // it was inserted at, never by a search that the changed order would mislead.
  using ActiveQueue = std::multiset<Entry*, ActiveLess>;
  using BackoffQueue = std::multiset<Entry*, BackoffLess>;
  struct Entry {
    QueuedPodInfo info;
    Where where = Where::kNew;
    bool gated = false;
    uint64_t seq = 0;  // Insertion order, the last tie-break.
    // The pod's profile, found when the pod arrives (spec.schedulerName is immutable): the
    // orderings ask for it at every comparison.
    const framework::Framework* fw = nullptr;
    absl::Time backoff_expiry;   // The end of the backoff, truncated to its second.
    bool error_backoff = false;  // Which of the two backoff queues it is in, when it is.
    // Where it is in active_ or in its backoff queue, while it is in one.
    ActiveQueue::iterator active_pos;
    BackoffQueue::iterator backoff_pos;
  };
  struct SeqLess {
    bool operator()(const Entry* a, const Entry* b) const { return a->seq < b->seq; }
  };

  void AddLocked(std::shared_ptr<const PodInfo> pod) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unlink(Entry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs PreEnqueue: true if the pod may go on; if not, puts it among the unschedulable pods,
  // gated by the plugin that said no.
  // `hinted`: the queue the queueing hint that moves the pod names ("" when no hint does).
  bool PassesPreEnqueue(Entry* e, std::string_view event, std::string_view hinted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs PreEnqueue and puts the pod in activeQ, or in the unschedulable pods as gated.
  // `event` names why, for scheduler_queue_incoming_pods_total; `hinted`, as above.
  void ToActive(Entry* e, std::string_view event, std::string_view hinted = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The same for backoffQ.
  void ToBackoff(Entry* e, std::string_view event, std::string_view hinted = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ToUnschedulable(Entry* e, std::string_view event, std::string_view hinted = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Incoming(std::string_view queue, std::string_view event, std::string_view hinted) const;
  absl::Duration BackoffDuration(const QueuedPodInfo& info) const;
  // The end of the pod's backoff truncated to its second (upstream's getBackoffTime), or
  // InfinitePast if it has none.
  absl::Time BackoffExpiry(const QueuedPodInfo& info) const;
  bool IsBackingOff(const Entry& e) const;
  BackoffQueue& BackoffSet(const Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return e.error_backoff ? error_backoff_ : backoff_;
  }
  void Requeue(Entry* e, framework::QueueingStrategy strategy, std::string_view event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What the events since the pod was popped say about it (upstream's
  // determineSchedulingHintForInFlightPod).
  framework::QueueingStrategy HintForInFlightPod(const Entry& e, uint64_t popped_at) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends a pod's flight and drops the events no pod in flight still needs.
  void Land(const std::string& uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<QueuedPodInfo> PopLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes `e` out of its queue into flight.
  QueuedPodInfo TakeLocked(Entry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const QueueOptions options_;
  const Clock* clock_;
  FrameworkFor framework_for_;

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_ ABSL_GUARDED_BY(mu_);
  ActiveQueue active_ ABSL_GUARDED_BY(mu_);
  // Pods rejected by plugins, which Pop may take early; and those that failed with an error.
  BackoffQueue backoff_ ABSL_GUARDED_BY(mu_);
  BackoffQueue error_backoff_ ABSL_GUARDED_BY(mu_);
  // The unschedulable (and gated) pods, so that an event looks at them only, not at every pod;
  // in arrival order, which the orderings above end ties with anyway. A B-tree: every cluster
  // event walks it.
  absl::btree_set<Entry*, SeqLess> unschedulable_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  // The events received while pods are in flight, numbered; and each in-flight pod's number of
  // the last event before it was popped.
  std::map<uint64_t, QueuedEvent> in_flight_events_ ABSL_GUARDED_BY(mu_);
  uint64_t event_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, uint64_t, std::less<>> popped_at_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ksched::queue
