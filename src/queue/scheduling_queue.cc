#include "src/queue/scheduling_queue.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "ksched/strings.h"

namespace ksched::queue {

using framework::QueueingStrategy;

SchedulingQueue::SchedulingQueue(QueueOptions options, const Clock* clock,
                                 FrameworkFor framework_for)
    : options_(std::move(options)), clock_(clock), framework_for_(std::move(framework_for)) {}

bool SchedulingQueue::ActiveLess::operator()(const Entry* a, const Entry* b) const {
  if (const framework::Framework* fw = a->fw; fw != nullptr) {
    if (fw->Less(a->info, b->info)) return true;
    if (fw->Less(b->info, a->info)) return false;
  }
  return a->seq < b->seq;
}

bool SchedulingQueue::BackoffLess::operator()(const Entry* a, const Entry* b) const {
  if (a->backoff_expiry != b->backoff_expiry) return a->backoff_expiry < b->backoff_expiry;
  return ActiveLess{}(a, b);
}

absl::Duration SchedulingQueue::BackoffDuration(const QueuedPodInfo& info) const {
  int count =
      info.consecutive_errors_count > 0 ? info.consecutive_errors_count : info.unschedulable_count;
  if (count <= 0 || options_.max_backoff <= absl::ZeroDuration()) return absl::ZeroDuration();
  absl::Duration d = options_.initial_backoff;
  for (int i = 1; i < count && d < options_.max_backoff; ++i) d *= 2;
  return std::min(d, options_.max_backoff);
}

absl::Time SchedulingQueue::BackoffExpiry(const QueuedPodInfo& info) const {
  absl::Duration d = BackoffDuration(info);
  if (d <= absl::ZeroDuration()) return absl::InfinitePast();
  return TruncateToSecond(info.timestamp + d);
}

bool SchedulingQueue::IsBackingOff(const Entry& e) const {
  // Until a second after the one the backoff ends in begins (upstream's isPodBackingoff).
  return BackoffExpiry(e.info) >= TruncateToSecond(clock_->Now());
}

void SchedulingQueue::Unlink(Entry* e) {
  if (e->where == Where::kActive) active_.erase(e->active_pos);
  if (e->where == Where::kBackoff) BackoffSet(*e).erase(e->backoff_pos);
  if (e->where == Where::kUnschedulable) {
    unschedulable_.erase(e);
    if (options_.on_unschedulable) options_.on_unschedulable(e->info, -1);
  }
  e->where = Where::kNew;
}

void SchedulingQueue::Incoming(std::string_view queue, std::string_view event,
                               std::string_view hinted) const {
  if (options_.on_incoming) options_.on_incoming(queue, event, hinted != queue);
}

namespace {
// The queue a queueing hint sends a pod to (upstream's strategyToQueueLabel).
std::string_view HintedQueue(QueueingStrategy strategy) {
  switch (strategy) {
    case QueueingStrategy::kImmediately:
      return "active";
    case QueueingStrategy::kAfterBackoff:
      return "backoff";
    default:
      return "unschedulable";
  }
}
}  // namespace

bool SchedulingQueue::PassesPreEnqueue(Entry* e, std::string_view event, std::string_view hinted) {
  Status s = e->fw ? e->fw->RunPreEnqueuePlugins(e->info.pod()) : Status();
  if (s.ok()) {
    e->gated = false;
    e->info.gating_plugin.clear();
    return true;
  }
  // Turned down again where it waits: it stays in place, counted as incoming again as upstream's
  // delete and addOrUpdate count it (an event moving every waiting preemptor turns most down).
  if (e->where == Where::kUnschedulable && e->gated && e->info.gating_plugin == s.plugin()) {
    Incoming("unschedulable", event, hinted);
    return false;
  }
  Unlink(e);  // Under the plugins it was counted under.
  e->gated = true;
  e->info.gating_plugin = std::string(s.plugin());
  // Among the plugins that rejected it before (a preemptor waiting for its evictions was
  // rejected by the filters that the evictions make pass), as upstream's runPreEnqueuePlugin.
  e->info.unschedulable_plugins.insert(e->info.gating_plugin);
  ToUnschedulable(e, event, hinted);
  return false;
}

void SchedulingQueue::ToActive(Entry* e, std::string_view event, std::string_view hinted) {
  if (!PassesPreEnqueue(e, event, hinted)) return;
  Unlink(e);
  e->where = Where::kActive;
  // Set on first entering the active queue, before the sort plugin sees it (upstream's
  // moveToActiveQ): Coscheduling's Less orders pods by it.
  if (e->info.initial_attempt_timestamp == absl::InfinitePast()) {
    e->info.initial_attempt_timestamp = clock_->Now();
  }
  e->active_pos = active_.insert(e);
  Incoming("active", event, hinted);
}

void SchedulingQueue::ToBackoff(Entry* e, std::string_view event, std::string_view hinted) {
  // Pop may take it early, so PreEnqueue runs now, as upstream's with SchedulerPopFromBackoffQ.
  if (!PassesPreEnqueue(e, event, hinted)) return;
  Unlink(e);
  e->backoff_expiry = BackoffExpiry(e->info);
  e->where = Where::kBackoff;
  e->backoff_pos = BackoffSet(*e).insert(e);
  Incoming("backoff", event, hinted);
}

void SchedulingQueue::ToUnschedulable(Entry* e, std::string_view event, std::string_view hinted) {
  Unlink(e);
  e->where = Where::kUnschedulable;
  unschedulable_.insert(e);
  if (options_.on_unschedulable) options_.on_unschedulable(e->info, +1);
  // Gated or not, as upstream's unschedulablePods counts it.
  Incoming("unschedulable", event, hinted);
}

void SchedulingQueue::Add(std::shared_ptr<const PodInfo> pod) {
  absl::MutexLock lock(&mu_);
  AddLocked(std::move(pod));
}

void SchedulingQueue::AddLocked(std::shared_ptr<const PodInfo> pod) {
  const std::string& uid = pod->pod->metadata.uid;
  auto& slot = entries_[uid];
  if (slot) return;  // Already queued: Update handles changes.
  slot = std::make_unique<Entry>();
  slot->seq = next_seq_++;
  slot->fw = framework_for_(pod->pod->spec.scheduler_name);
  slot->info.pod_info = std::move(pod);
  slot->info.timestamp = clock_->Now();
  slot->info.initial_attempt_timestamp = absl::InfinitePast();
  ToActive(slot.get(), "UnscheduledPodAdd");
}

void SchedulingQueue::Update(std::shared_ptr<const PodInfo> pod) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(pod->pod->metadata.uid);
  if (it == entries_.end()) {
    AddLocked(std::move(pod));
    return;
  }
  Entry* e = it->second.get();
  std::shared_ptr<const PodInfo> old = e->info.pod_info;
  switch (e->where) {
    case Where::kActive:
    case Where::kBackoff: {
      Where where = e->where;
      Unlink(e);
      e->where = where;
      e->info.pod_info = std::move(pod);
      if (where == Where::kActive) {
        e->active_pos = active_.insert(e);
      } else {
        e->backoff_pos = BackoffSet(*e).insert(e);
      }
      return;
    }
    case Where::kInFlight:
    case Where::kNew:
      e->info.pod_info = std::move(pod);
      return;
    case Where::kUnschedulable:
      break;
  }
  e->info.pod_info = std::move(pod);
  const api::Pod& o = *old->pod;
  const api::Pod& n = e->info.pod();
  const framework::Framework* fw = e->fw;
  if (fw == nullptr) return;
  // The pod's own changes, as upstream's PodSchedulingPropertiesChange.
  uint32_t actions = 0;
  if (!o.spec.scheduling_gates.empty() && n.spec.scheduling_gates.empty()) {
    actions |= kUpdatePodSchedulingGatesEliminated;
  }
  if (o.metadata.labels != n.metadata.labels) actions |= kUpdatePodLabel;
  if (o.spec.tolerations.size() != n.spec.tolerations.size()) actions |= kUpdatePodToleration;
  if (!std::equal(o.status.resource_claim_statuses.begin(), o.status.resource_claim_statuses.end(),
                  n.status.resource_claim_statuses.begin(), n.status.resource_claim_statuses.end(),
                  [](const api::PodResourceClaimStatus& a, const api::PodResourceClaimStatus& b) {
                    return a.name == b.name && a.resource_claim_name == b.resource_claim_name;
                  }) ||
      o.status.extended_resource_claim_status != n.status.extended_resource_claim_status) {
    actions |= kUpdatePodGeneratedResourceClaim;
  }
  if (actions == 0) actions = kUpdatePodOther;
  // Upstream sends one event per change, labelled "TargetPod<action>"; the label is the first's.
  std::string_view label = "TargetPodUpdate";
  for (const auto& [bit, name] :
       {std::pair<uint32_t, std::string_view>{kUpdatePodLabel, "TargetPodUpdatePodLabel"},
        {kUpdatePodSchedulingGatesEliminated, "TargetPodUpdatePodSchedulingGatesEliminated"},
        {kUpdatePodToleration, "TargetPodUpdatePodToleration"},
        {kUpdatePodGeneratedResourceClaim, "TargetPodUpdatePodGeneratedResourceClaim"}}) {
    if ((actions & bit) != 0) {
      label = name;
      break;
    }
  }
  ClusterEventData data{.event = {EventResource::kTargetPod, actions, std::string(label)},
                        .old_pod = &o,
                        .new_pod = &n};
  QueueingStrategy strategy = fw->IsPodWorthRequeuing(e->info, data);
  if (strategy != QueueingStrategy::kSkip) {
    Requeue(e, strategy, data.event.label);
  } else {
    // It stays, counted as incoming there again, as upstream's requeue counts it.
    Incoming("unschedulable", data.event.label, HintedQueue(strategy));
  }
}

void SchedulingQueue::Delete(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(uid);
  if (it == entries_.end()) return;
  Unlink(it->second.get());
  entries_.erase(it);
  Land(std::string(uid));
}

std::optional<QueuedPodInfo> SchedulingQueue::PopLocked() {
  Entry* e = nullptr;
  if (!active_.empty()) {
    e = *active_.begin();
  } else if (!backoff_.empty()) {
    // SchedulerPopFromBackoffQ: rather than idle, take a pod still backing off, unless it failed
    // with an error.
    e = *backoff_.begin();
  }
  if (e == nullptr) return std::nullopt;
  if (e->where == Where::kBackoff) Incoming("active", "PopFromBackoffQ", "");
  return TakeLocked(e);
}

QueuedPodInfo SchedulingQueue::TakeLocked(Entry* e) {
  Unlink(e);
  e->where = Where::kInFlight;
  e->info.attempts++;
  if (e->info.initial_attempt_timestamp == absl::InfinitePast()) {
    e->info.initial_attempt_timestamp = clock_->Now();
  }
  popped_at_[e->info.pod().metadata.uid] = event_seq_;
  return e->info;
}

std::vector<QueuedPodInfo> SchedulingQueue::PopPodGroup(std::string_view ns, std::string_view name,
                                                        std::string_view except) {
  absl::MutexLock lock(&mu_);
  std::vector<QueuedPodInfo> out;
  for (const auto& [uid, entry] : entries_) {
    Entry* e = entry.get();
    const api::Pod& pod = e->info.pod();
    if (uid == except || !pod.spec.pod_group_name || *pod.spec.pod_group_name != name ||
        pod.metadata.namespace_ != ns) {
      continue;
    }
    if (e->where == Where::kInFlight || e->where == Where::kNew) continue;
    if (e->gated && (e->fw == nullptr || !e->fw->RunPreEnqueuePlugins(pod).ok())) continue;
    e->gated = false;
    e->info.gating_plugin.clear();
    out.push_back(TakeLocked(e));
  }
  return out;
}

std::optional<QueuedPodInfo> SchedulingQueue::Pop() {
  absl::MutexLock lock(&mu_);
  if (closed_) return std::nullopt;
  return PopLocked();
}

std::optional<QueuedPodInfo> SchedulingQueue::PopWait(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return closed_ || !active_.empty() || !backoff_.empty();
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (closed_) return std::nullopt;
  return PopLocked();
}

void SchedulingQueue::AddUnschedulableIfNotPresent(QueuedPodInfo info) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(info.pod().metadata.uid);
  if (it == entries_.end() || it->second->where != Where::kInFlight) return;  // Deleted meanwhile.
  Entry* e = it->second.get();
  // Keep the newest pod object (an update may have arrived while in flight).
  info.pod_info = e->info.pod_info;
  const bool error = info.unschedulable_plugins.empty() && info.pending_plugins.empty();
  if (error) {
    info.consecutive_errors_count++;
  } else {
    info.unschedulable_count++;
    info.consecutive_errors_count = 0;
  }
  info.timestamp = clock_->Now();
  e->info = std::move(info);
  e->error_backoff = error;
  const std::string uid = e->info.pod().metadata.uid;
  auto popped = popped_at_.find(uid);
  const QueueingStrategy hint =
      HintForInFlightPod(*e, popped == popped_at_.end() ? event_seq_ : popped->second);
  Land(uid);
  constexpr std::string_view kFailure = "ScheduleAttemptFailure";
  if (error) {
    ToBackoff(e, kFailure, HintedQueue(QueueingStrategy::kAfterBackoff));
  } else if (hint == QueueingStrategy::kSkip) {
    ToUnschedulable(e, kFailure, HintedQueue(hint));
  } else {
    Requeue(e, hint, kFailure);
  }
}

QueueingStrategy SchedulingQueue::HintForInFlightPod(const Entry& e, uint64_t popped_at) const {
  const framework::Framework* fw = e.fw;
  if (fw == nullptr) return QueueingStrategy::kSkip;
  QueueingStrategy best = QueueingStrategy::kSkip;
  for (auto it = in_flight_events_.upper_bound(popped_at); it != in_flight_events_.end(); ++it) {
    best = std::max(best, fw->IsPodWorthRequeuing(e.info, it->second.Data()));
    if (best == QueueingStrategy::kImmediately) break;  // Nothing ranks higher.
  }
  return best;
}

void SchedulingQueue::Land(const std::string& uid) {
  popped_at_.erase(uid);
  uint64_t oldest = event_seq_;
  for (const auto& [pod, seq] : popped_at_) oldest = std::min(oldest, seq);
  in_flight_events_.erase(in_flight_events_.begin(), in_flight_events_.upper_bound(oldest));
}

void SchedulingQueue::Done(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(uid);
  if (it != entries_.end() && it->second->where == Where::kInFlight) entries_.erase(it);
  Land(std::string(uid));
}

void SchedulingQueue::Requeue(Entry* e, QueueingStrategy strategy, std::string_view event) {
  if (strategy == QueueingStrategy::kAfterBackoff && IsBackingOff(*e)) {
    ToBackoff(e, event, HintedQueue(strategy));
  } else {
    ToActive(e, event, HintedQueue(strategy));
  }
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(QueuedEvent event) {
  absl::MutexLock lock(&mu_);
  const ClusterEventData data = event.Data();
  // The pods to move first: a requeued pod leaves unschedulable_, and most pods stay.
  std::vector<std::pair<Entry*, QueueingStrategy>> moving;
  for (Entry* e : unschedulable_) {
    if (e->fw == nullptr) continue;
    QueueingStrategy s = e->fw->IsPodWorthRequeuing(e->info, data);
    if (s != QueueingStrategy::kSkip) moving.emplace_back(e, s);
  }
  for (const auto& [e, s] : moving) Requeue(e, s, event.event.label);
  ++event_seq_;
  if (!popped_at_.empty()) in_flight_events_.emplace(event_seq_, std::move(event));
}

void SchedulingQueue::Activate(const std::vector<std::string>& uids) {
  absl::MutexLock lock(&mu_);
  for (const std::string& uid : uids) {
    auto it = entries_.find(uid);
    if (it == entries_.end()) continue;
    Entry* e = it->second.get();
    if (e->where == Where::kUnschedulable || e->where == Where::kBackoff) {
      ToActive(e, "ForceActivate");
    }
  }
}

void SchedulingQueue::RecheckGatedPodGroup(std::string_view ns, std::string_view name,
                                           std::string_view plugin) {
  absl::MutexLock lock(&mu_);
  std::vector<Entry*> gated;
  for (Entry* e : unschedulable_) {
    const api::Pod& pod = e->info.pod();
    if (e->gated && e->info.gating_plugin == plugin && pod.spec.pod_group_name &&
        *pod.spec.pod_group_name == name && pod.metadata.namespace_ == ns) {
      gated.push_back(e);
    }
  }
  // The plugin decides by the group alone (its PodGroup, how many of its pods exist), alike for all
  // of them: once one is held back by it again, the others are counted as turned down again without
  // asking the plugins, which made a gang of n pods arriving one by one cost n^2 PreEnqueue calls.
  bool held = false;
  for (Entry* e : gated) {
    if (held) {
      Incoming("unschedulable", "UnscheduledPodAdd", "active");
      continue;
    }
    ToActive(e, "UnscheduledPodAdd", "active");
    held = e->where == Where::kUnschedulable && e->gated && e->info.gating_plugin == plugin;
  }
}

void SchedulingQueue::FlushBackoffQCompleted() {
  absl::MutexLock lock(&mu_);
  for (auto* q : {&backoff_, &error_backoff_}) {
    while (!q->empty() && !IsBackingOff(**q->begin())) ToActive(*q->begin(), "BackoffComplete");
  }
}

void SchedulingQueue::FlushUnschedulablePodsLeftover() {
  absl::MutexLock lock(&mu_);
  absl::Time now = clock_->Now();
  const std::vector<Entry*> unschedulable(unschedulable_.begin(), unschedulable_.end());
  for (Entry* e : unschedulable) {
    if (e->gated) continue;
    if (now - e->info.timestamp > options_.max_in_unschedulable) {
      Requeue(e, QueueingStrategy::kAfterBackoff, "UnschedulableTimeout");
    }
  }
}

absl::Time SchedulingQueue::NextBackoffExpiry() const {
  absl::MutexLock lock(&mu_);
  absl::Time next = absl::InfiniteFuture();
  for (const auto* q : {&backoff_, &error_backoff_}) {
    if (!q->empty()) next = std::min(next, (*q->begin())->backoff_expiry + absl::Seconds(1));
  }
  return next;
}

QueueCounts SchedulingQueue::Counts() const {
  absl::MutexLock lock(&mu_);
  QueueCounts c;
  for (const auto& [uid, e] : entries_) {
    switch (e->where) {
      case Where::kActive:
        c.active++;
        break;
      case Where::kBackoff:
        c.backoff++;
        break;
      case Where::kUnschedulable:
        (e->gated ? c.gated : c.unschedulable)++;
        break;
      case Where::kInFlight:
        c.in_flight++;
        break;
      case Where::kNew:  // Only between two steps under the lock.
        break;
    }
  }
  return c;
}

bool SchedulingQueue::Contains(std::string_view uid) const {
  absl::MutexLock lock(&mu_);
  return entries_.contains(uid);
}

void SchedulingQueue::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

bool SchedulingQueue::Closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

}  // namespace ksched::queue
