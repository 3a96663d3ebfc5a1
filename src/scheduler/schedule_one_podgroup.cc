// The pod group cycle (upstream's schedule_one_podgroup.go), with the GenericWorkload gate on: the
// queued pods of one PodGroup are tried together, each on the snapshot with the ones before it
// assumed and reserved, and placed only if the group's minCount can be met (GangScheduling's
// PlacementFeasible); otherwise none is, and each says why.
//
// With TopologyAwareWorkloadScheduling, the group is tried so on each placement (a topology
// domain) and placed on the best (RunGroupPlacements). What is left out, for now: composite
// groups (their gate stays off). The preemption of victims for a group is
// podgroup_preemption.cc's.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "ksched/api/field.h"
#include "src/scheduler/scheduler.h"
#include "src/scheduler/snapshot_overlay.h"
#include "src/sdk/cycle_state_access.h"

namespace ksched::scheduler {
namespace {

constexpr char kPodGroupUnschedulable[] = "pod group is unschedulable";

// The order a group's pods are tried in (upstream's PodGroupMemberPodsOrderingFunc): priority,
// then attempts, high first; then the oldest; then by name.
bool MemberBefore(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  const int32_t pa = api::PodPriority(a.pod()), pb = api::PodPriority(b.pod());
  if (pa != pb) return pa > pb;
  if (a.attempts != b.attempts) return a.attempts > b.attempts;
  if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
  return a.pod().metadata.name < b.pod().metadata.name;
}

std::string PreemptionPolicyOf(const api::Pod& pod) {
  return pod.spec.preemption_policy.value_or("PreemptLowerPriority");
}

using PodList = std::vector<std::shared_ptr<const api::Pod>>;

// The group's preemption policy (PodGroupPreemptionPolicy): its own, PreemptLowerPriority when it
// has none (a PodGroup made with the gate off).
std::string PreemptionPolicyOf(const api::PodGroup& group) {
  return group.preemption_policy.value_or("PreemptLowerPriority");
}

// Upstream's validatePodGroup, on the queued pods and then the group's placed ones: one profile,
// the group's priority, one preemption policy (with `group_policy`, the PodGroupPreemptionPolicy
// gate, the group's). "" when they agree.
std::string Disagreement(const std::vector<QueuedPodInfo>& pods, const api::PodGroup& group,
                         const PodList& placed, bool group_policy) {
  const std::string& scheduler = pods.front().pod().spec.scheduler_name;
  const std::string policy =
      group_policy ? PreemptionPolicyOf(group) : PreemptionPolicyOf(pods.front().pod());
  auto disagreement = [&](const api::Pod& pod) -> std::string {
    if (pod.spec.scheduler_name != scheduler) {
      return fmt::format(
          "all pods in a single pod group should have the same .spec.schedulerName set, got: "
          "\"{}\" and \"{}\"",
          pod.spec.scheduler_name, scheduler);
    }
    if (api::PodPriority(pod) != api::PodGroupPriority(group)) {
      return fmt::format(
          "all pods in a single pod group should have the same priority as the pod group's "
          "priority, got {} and {}",
          api::PodPriority(pod), api::PodGroupPriority(group));
    }
    if (PreemptionPolicyOf(pod) != policy) {
      return fmt::format(
          "all pods in a single pod group should have the same preemption policy{}, got {} and {}",
          group_policy ? " as the pod group's preemption policy" : "", PreemptionPolicyOf(pod),
          policy);
    }
    return "";
  };
  for (const QueuedPodInfo& info : pods) {
    if (std::string why = disagreement(info.pod()); !why.empty()) return why;
  }
  for (const auto& pod : placed) {
    if (std::string why = disagreement(*pod); !why.empty()) return why;
  }
  return "";
}

// The reason of the PodGroupInitiallyScheduled condition a group cycle's status gives.
const char* InitiallyScheduledReason(const Status& status) {
  return status.ok() ? "Scheduled" : status.IsRejected() ? "Unschedulable" : "SchedulerError";
}

}  // namespace

void Scheduler::SetInitiallyScheduled(const api::PodGroup& group, const Status& status) {
  api::Condition c{.type = "PodGroupInitiallyScheduled",
                   .status = status.ok() ? "True" : "False",
                   .reason = InitiallyScheduledReason(status),
                   .message = status.Message()};
  const api::Condition* old = nullptr;
  for (const api::Condition& o : group.conditions) {
    if (o.type == c.type) old = &o;
  }
  // Scheduled once is scheduled for good; and an unchanged condition is not written again.
  if (old != nullptr &&
      (old->status == "True" ||
       (old->status == c.status && old->reason == c.reason && old->message == c.message))) {
    return;
  }
  // Nor while the group has its minCount placed: the True written for it may not be back on the
  // watch yet when the pods it left are tried again, at once.
  if (!status.ok()) {
    std::optional<PodGroupState> state =
        cache_.GetPodGroupState(group.metadata.namespace_, group.metadata.name);
    if (state && state->scheduled >= static_cast<size_t>(group.gang_min_count.value_or(1))) return;
  }
  c.last_transition_time = old != nullptr && old->status == c.status
                               ? old->last_transition_time
                               : api::field::MetaTime(clock_->Now());
  (void)options_.writer->SetPodGroupCondition(group, c, group.generation);
}

Status Scheduler::PodGroupPostFilter(framework::Framework& fw, const api::PodGroup& group,
                                     const std::vector<QueuedPodInfo>& pods, const GroupRun& run,
                                     std::map<std::string, std::string>* nominated) {
  // The plugins upstream runs at PodGroupPostFilter, in its order: those of the profile's
  // PostFilter plugins that have one.
  std::vector<std::string> reasons;
  std::string first_plugin;
  const std::map<std::string, std::vector<std::string>> points = fw.PluginsByExtensionPoint();
  auto post_filter = points.find("postFilter");
  if (post_filter == points.end()) return Status::Unschedulable("");
  std::vector<const api::Pod*> group_pods;
  std::vector<CycleState*> states;
  for (size_t i = 0; i < pods.size(); ++i) {
    group_pods.push_back(&pods[i].pod());
    states.push_back(run.tried[i].state.get());
  }
  for (const std::string& plugin : post_filter->second) {
    Status s;
    if (PodGroupPostFilterPlugin* p = fw.PodGroupPostFilterPluginNamed(plugin)) {
      s = p->PodGroupPostFilter(*run.group_cycle, group, group_pods, states);
      if (s.code() == Code::kError) {
        return Status::Error(
            fmt::format("error in \"{}\" PodGroupPostFilter plugins: {}", plugin, s.Message()));
      }
    } else if (plugin == "DefaultPreemption") {
      const SteadyTime start = std::chrono::steady_clock::now();
      s = PreemptForPodGroup(fw, group, pods, nominated);
      metrics_->pod_groups->preemption_evaluation_duration.With({"podgroup", CodeName(s.code())})
          ->Observe(metrics::SecondsSince(start));
      metrics_->pod_groups->workload_preemption_attempts.With({CodeName(s.code())})->Inc();
      if (!s.Message().empty()) s = Status(s.code(), {"pod group preemption: " + s.Message()});
      if (s.code() == Code::kError) {
        return Status::Error(fmt::format(
            "error in \"DefaultPreemption\" PodGroupPostFilter plugins: {}", s.Message()));
      }
    } else {
      continue;
    }
    // The first success wins, whatever the plugins before it said.
    if (s.ok() || s.code() == Code::kUnschedulableAndUnresolvable) {
      return std::move(s).WithPlugin(plugin);
    }
    if (first_plugin.empty()) first_plugin = plugin;
    reasons.insert(reasons.end(), s.reasons().begin(), s.reasons().end());
  }
  return Status(Code::kUnschedulable, std::move(reasons)).WithPlugin(first_plugin);
}

Scheduler::GroupRun Scheduler::RunGroupAlgorithm(framework::Framework& fw,
                                                 const api::PodGroup& group,
                                                 const std::vector<QueuedPodInfo>& pods,
                                                 SnapshotOverlay* overlay) {
  GroupRun run{.tried = std::vector<GroupTry>(pods.size())};
  const bool observed = overlay == nullptr && !options_.observers.empty();
  std::optional<PodGroupState> known =
      cache_.GetPodGroupState(group.metadata.namespace_, group.metadata.name);
  int scheduled = known ? static_cast<int>(known->scheduled) : 0;
  int remaining = static_cast<int>(pods.size());
  Status& status = run.status;
  status = fw.RunPlacementFeasible(group, scheduled, remaining);
  bool evaluated = false;  // Whether any pod was tried (else the first check failed).
  std::vector<size_t> assumed;
  // The nominations the placed pods had, put back with them (upstream's assume and
  // unreserveAndForget): a placed pod counts on its node, not at its nominated node too.
  std::vector<std::pair<size_t, std::string>> nominations;
  if (status.code() != Code::kUnschedulable) {
    for (size_t i = 0; i < pods.size(); ++i) {
      GroupTry& t = run.tried[i];
      t.tried = true;
      evaluated = true;
      const api::Pod& pod = pods[i].pod();
      ScheduleResult result;
      if (overlay == nullptr) {
        internal::CycleStateAccess::SetExplain(*t.state, options_.explain_rejections);
        cache_.UpdateSnapshot(&snapshot_);
      }
      internal::CycleStateAccess::SetPodGroupCycle(*t.state, run.group_cycle.get());
      t.status = SchedulePod(fw, *t.state, pod, &result, &t.fit_error);
      if (observed) {
        for (const NodeInfo* n : feasible_) t.feasible.push_back(n->name());
        if (result.scored) {
          t.scores = score_table_;
          for (const NodeInfo* n : score_table_.nodes) t.scored.push_back(n->name());
        }
      }
      if (t.status.ok()) {
        auto on_node = std::make_shared<api::Pod>(pod);
        on_node->spec.node_name = result.node;
        t.node = result.node;
        t.placed = PodInfo::Make(std::move(on_node));
        nominations.emplace_back(i, nominator_.NodeOf(pod.metadata.uid));
        nominator_.DeleteNominatedPodIfExists(pod.metadata.uid);
        absl::Status st = absl::OkStatus();
        if (overlay != nullptr) {
          overlay->AddPod(result.node, t.placed);
        } else {
          st = cache_.AssumePod(t.placed, result.node);
        }
        if (st.ok()) {
          t.status = fw.RunReservePluginsReserve(*t.state, pod, result.node);
          assumed.push_back(i);
        } else {
          t.status = Status::Error(std::string(st.message()));
        }
      }
      if (!t.status.ok() && !t.status.IsRejected()) {
        status = Status::Error(
            fmt::format("failed to schedule other pod from a pod group: {}", t.status.Message()));
        break;
      }
      --remaining;
      if (t.status.ok()) ++scheduled;
      status = fw.RunPlacementFeasible(group, scheduled, remaining);
      if (status.code() == Code::kUnschedulable) break;
    }
  }
  // Nothing of the run stays: the placed pods are placed again by the caller.
  for (auto it = assumed.rbegin(); it != assumed.rend(); ++it) {
    GroupTry& t = run.tried[*it];
    fw.RunReservePluginsUnreserve(*t.state, pods[*it].pod(), t.node);
    if (overlay != nullptr) {
      overlay->RemovePod(t.node, pods[*it].pod().metadata.uid);
    } else {
      (void)cache_.ForgetPod(pods[*it].pod().metadata.uid);
    }
  }
  for (const auto& [i, node] : nominations) {
    if (!node.empty()) nominator_.AddNominatedPod(pods[i].pod_info, node);
  }
  const bool any_placed = !assumed.empty() && status.ok();
  if (status.ok() && !any_placed) {
    status = Status::Unschedulable(kPodGroupUnschedulable);
  } else if (status.IsWait() || (status.IsRejected() && !evaluated)) {
    std::vector<std::string> reasons = {kPodGroupUnschedulable};
    reasons.insert(reasons.end(), status.reasons().begin(), status.reasons().end());
    status = Status(Code::kUnschedulable, std::move(reasons));
  }
  // The pods not tried carry the group's status as it stood before PodGroupPostFilter.
  for (GroupTry& t : run.tried) {
    if (!t.tried) t.status = status;
  }
  return run;
}

Scheduler::GroupRun Scheduler::RunGroupPlacements(framework::Framework& fw,
                                                  const api::PodGroup& group,
                                                  const std::vector<QueuedPodInfo>& pods,
                                                  SnapshotOverlay* overlay) {
  if (!options_.topology_aware_workload_scheduling) {
    return RunGroupAlgorithm(fw, group, pods, overlay);
  }
  auto without_trial = [&](Status s) {
    GroupRun run{.tried = std::vector<GroupTry>(pods.size())};
    for (GroupTry& t : run.tried) t.status = s;
    run.status = std::move(s);
    return run;
  };
  if (overlay == nullptr) cache_.UpdateSnapshot(&snapshot_);
  std::vector<Placement> generated;
  if (Status s =
          fw.RunPlacementGeneratePlugins(group, Placement{.nodes = snapshot_.nodes()}, &generated);
      !s.ok()) {
    return without_trial(std::move(s));
  }
  const std::string& profile = fw.profile_name();
  metrics_->placements->generated.With({profile})->Inc(static_cast<double>(generated.size()));
  // By name: the trials change the snapshot's NodeInfos. One that holds every node confines
  // nothing (upstream's AssumePlacement).
  std::vector<std::pair<std::string, std::optional<PlacementScope>>> placements;
  for (const Placement& p : generated) {
    std::optional<PlacementScope>& scope = placements.emplace_back(p.name, std::nullopt).second;
    if (p.nodes.size() == snapshot_.size()) continue;
    scope.emplace();
    for (const NodeInfo* n : p.nodes) {
      scope->names.push_back(n->name());
      scope->set.insert(n->name());
    }
  }
  // One trial of the group, confined to placement i.
  auto trial = [&](size_t i) {
    placement_ = std::move(placements[i].second);
    GroupRun run = RunGroupAlgorithm(fw, group, pods, overlay);
    placements[i].second = std::move(placement_);
    placement_.reset();
    run.placement = placements[i].first;
    return run;
  };
  // The run returned, with its placement's nodes for the observers.
  auto returned = [&](GroupRun run, size_t i) {
    if (!options_.observers.empty()) run.scope = placements[i].second;
    return run;
  };
  // Of each placement where the group fits, where its pods went, for the scoring; whole, only the
  // first such run, and the first placement's when it does not fit (its words, if none does). A
  // group of 1000 tried in 50 domains would hold 50000 pods' cycle states otherwise.
  struct Fitted {
    size_t at;                                           // In `placements`.
    std::vector<std::pair<size_t, std::string>> placed;  // (pod, node).
  };
  std::vector<Fitted> fitted;
  std::optional<GroupRun> first, kept;
  for (size_t i = 0; i < placements.size(); ++i) {
    const SteadyTime begin = std::chrono::steady_clock::now();
    GroupRun run = trial(i);
    if (!run.status.ok() && !run.status.IsRejected()) return returned(std::move(run), i);
    const char* result = run.status.ok() ? "feasible" : "infeasible";
    metrics_->placements->evaluations.With({result, profile})->Inc();
    metrics_->placements->evaluation_duration.With({result, profile})
        ->Observe(metrics::SecondsSince(begin));
    if (run.status.ok()) {
      Fitted& f = fitted.emplace_back(Fitted{.at = i, .placed = {}});
      for (size_t p = 0; p < pods.size(); ++p) {
        const GroupTry& t = run.tried[p];
        if (t.status.ok() && !t.node.empty()) f.placed.emplace_back(p, t.node);
      }
      if (!kept) kept = std::move(run);
    } else if (i == 0) {
      first = std::move(run);
    }
  }
  if (fitted.empty()) {
    // The first placement's run tells why; upstream prints its status as an error: the group's
    // own words alone where the run ended on "pod group is unschedulable".
    GroupRun& run = *first;
    const std::vector<std::string>& why = run.status.reasons();
    const std::string first_status =
        !why.empty() && why.front() == kPodGroupUnschedulable ? why.front() : run.status.Message();
    run.status = Status(Code::kUnschedulable,
                        {kPodGroupUnschedulable,
                         fmt::format("{}/{} placements are available, first placement status: {}",
                                     0, placements.size(), first_status)});
    for (GroupTry& t : run.tried) {
      if (!t.tried) t.status = run.status;
    }
    return returned(std::move(run), 0);
  }
  if (fitted.size() == 1) return returned(std::move(*kept), fitted[0].at);
  // Scored on the snapshot without the trials' pods.
  if (overlay == nullptr) cache_.UpdateSnapshot(&snapshot_);
  std::vector<Placement> scored(fitted.size());
  std::vector<PodGroupAssignments> assignments(fitted.size());
  for (size_t k = 0; k < fitted.size(); ++k) {
    const auto& [name, scope] = placements[fitted[k].at];
    scored[k].name = name;
    if (scope) {
      NodesIn(*scope, &scored[k].nodes);
    } else {
      scored[k].nodes = snapshot_.nodes();
    }
    assignments[k].placement = &scored[k];
    for (const auto& [p, node] : fitted[k].placed) {
      assignments[k].proposed.push_back({&pods[p].pod(), node});
    }
  }
  std::vector<int64_t> totals;
  if (Status s = fw.RunPlacementScorePlugins(group, assignments, &totals); !s.ok()) {
    return without_trial(std::move(s));
  }
  const int64_t best = *std::max_element(totals.begin(), totals.end());
  uint64_t pick = rng_() % static_cast<uint64_t>(std::count(totals.begin(), totals.end(), best));
  size_t k = 0;
  while (totals[k] != best || pick-- != 0) ++k;
  if (k == 0) return returned(std::move(*kept), fitted[0].at);
  // The winner's run was not kept: it is tried again, on the same snapshot (a tie between two
  // nodes may be broken the other way this time, as it may be in upstream's one trial).
  return returned(trial(fitted[k].at), fitted[k].at);
}

void Scheduler::SchedulePodGroup(framework::Framework& fw, QueuedPodInfo first, SteadyTime start) {
  const std::string ns = first.pod().metadata.namespace_;
  const std::string name = *first.pod().spec.pod_group_name;
  std::vector<QueuedPodInfo> pods = queue_->PopPodGroup(ns, name, first.pod().metadata.uid);
  pods.push_back(std::move(first));
  std::stable_sort(pods.begin(), pods.end(), MemberBefore);
  // A deleted pod is skipped, as upstream's skipPodGroupPodSchedule.
  std::erase_if(pods, [&](const QueuedPodInfo& info) {
    const api::Pod& pod = info.pod();
    if (!pod.metadata.deletion_timestamp) return false;
    options_.writer->RecordEvent(pod, "Warning", "FailedScheduling", "Scheduling",
                                 fmt::format("skip schedule deleting pod: {}/{}",
                                             pod.metadata.namespace_, pod.metadata.name));
    queue_->Done(pod.metadata.uid);
    return true;
  });
  if (pods.empty()) return;
  cache_.UpdateSnapshot(&snapshot_);
  fw.set_snapshot(&snapshot_);
  const CycleState no_state;
  const Found nothing_found;
  // Each failed pod goes back after a backoff, whatever happens meanwhile, as upstream requeues a
  // pod group (but for the pods a placed group leaves, activated below). `nominated`: nullopt
  // leaves the pod's nomination, "" clears it.
  auto fail = [&](QueuedPodInfo info, const Status& s, const Diagnosis* diagnosis,
                  const CycleState& state, const Found& found,
                  const std::optional<std::string>& nominated) {
    group_failure_ = true;
    HandleFailure(std::move(info), s, diagnosis, nominated, &found, state, start);
    group_failure_ = false;
  };
  std::shared_ptr<const api::PodGroup> group = listers_.pod_groups.Get(ns, name);
  std::string error;
  if (group == nullptr) {
    error = fmt::format("pod group object not found for pod group podgroup/{}/{}", ns, name);
  } else {
    std::optional<PodGroupState> state = cache_.GetPodGroupState(ns, name);
    error = Disagreement(pods, *group, state ? std::move(state->scheduled_pods) : PodList{},
                         options_.pod_group_preemption_policy);
  }
  // scheduler_podgroup_schedule_attempts_total and the attempt's duration, by its result.
  auto count_attempt = [&](std::string_view result) {
    metrics_->pod_groups->schedule_attempts.With({result, fw.profile_name()})->Inc();
    metrics_->pod_groups->scheduling_attempt_duration.With({result, fw.profile_name()})
        ->Observe(metrics::SecondsSince(start));
  };
  if (!error.empty()) {
    if (group != nullptr) SetInitiallyScheduled(*group, Status::Error(error));
    feasible_.clear();  // None was tried.
    for (QueuedPodInfo& info : pods) {
      fail(std::move(info), Status::Error(error), nullptr, no_state, nothing_found, "");
    }
    count_attempt("error");
    return;
  }

  GroupRun run = RunGroupPlacements(fw, *group, pods, nullptr);
  metrics_->pod_groups->scheduling_algorithm_duration.With({})->Observe(
      metrics::SecondsSince(start));
  Status group_status = run.status;
  std::map<std::string, std::string> nominated;  // By pod UID: where a preemption puts it.
  bool waiting_on_preemption = false;
  if (group_status.code() == Code::kUnschedulable) {
    cache_.UpdateSnapshot(&snapshot_);  // Without the run's placements.
    const Status post = PodGroupPostFilter(fw, *group, pods, run, &nominated);
    if (post.code() == Code::kError) {
      group_status = post;
    } else if (!post.Message().empty()) {
      waiting_on_preemption = post.ok();
      std::vector<std::string> reasons = group_status.reasons();
      reasons.push_back(post.Message());
      group_status = Status(group_status.code(), std::move(reasons));
    }
  }

  SetInitiallyScheduled(*group, group_status);
  count_attempt(group_status.ok()            ? "scheduled"
                : !group_status.IsRejected() ? "error"
                : waiting_on_preemption      ? "waiting_on_preemption"
                                             : "unschedulable");

  // What a pod's try found (nothing for one not tried), on the snapshot as it is now (a node gone
  // from it meanwhile is left out, and the scores with it).
  const bool observed = !options_.observers.empty();
  auto found_by = [&](const GroupTry& t) {
    feasible_.clear();
    for (const std::string& name : t.feasible) {
      if (const NodeInfo* n = snapshot_.Get(name)) feasible_.push_back(n);
    }
    Found found{.filtered = &t.fit_error.diagnosis};
    if (t.scores) {
      score_table_ = *t.scores;
      score_table_.nodes.clear();
      for (const std::string& name : t.scored) {
        if (const NodeInfo* n = snapshot_.Get(name)) score_table_.nodes.push_back(n);
      }
      if (score_table_.nodes.size() == t.scored.size()) found.scores = &score_table_;
    }
    return found;
  };
  auto nomination = [&](const QueuedPodInfo& info) -> std::optional<std::string> {
    auto it = nominated.find(info.pod().metadata.uid);
    if (it == nominated.end()) return std::nullopt;
    return it->second;
  };

  // What the cycle decided for the group, which each pod's attempt also tells.
  const std::string group_key = group->metadata.namespace_ + "/" + group->metadata.name;
  const char* const group_reason = InitiallyScheduledReason(group_status);
  const std::string group_message = group_status.Message();

  // The outcome, pod by pod, in the group's order.
  std::vector<BindingCycle> bindings;
  for (size_t i = 0; i < pods.size(); ++i) {
    GroupTry& t = run.tried[i];
    QueuedPodInfo& info = pods[i];
    Found found = observed ? found_by(t) : nothing_found;
    if (observed) {
      found.pod_group = group_key;
      found.group_reason = group_reason;
      found.group_message = group_message;
      found.placement = run.placement;
      if (run.scope) found.placement_nodes = &run.scope->set;
    }
    if (!group_status.ok() && !group_status.IsRejected()) {
      fail(std::move(info), t.status.ok() || t.status.IsRejected() ? group_status : t.status,
           nullptr, *t.state, found, "");
      continue;
    }
    if (!t.status.ok()) {
      const bool fit_error = t.fit_error.num_all_nodes > 0;
      Status s = t.status;
      // The filters' message, without preemption's: PostFilter does not run for a group's pod.
      if (fit_error) s = Status(t.status.code(), {t.fit_error.Error()});
      std::optional<std::string> nominated_node = nomination(info);
      if (!nominated_node && s.Message() == kNoNodesAvailableMsg) nominated_node = "";
      const std::string uid = info.pod().metadata.uid;
      fail(std::move(info), s, fit_error ? &t.fit_error.diagnosis : nullptr, *t.state, found,
           nominated_node);
      // The pods a placed group leaves are tried again at once, without a backoff (upstream's
      // AddAttemptedPodGroupIfNeeded after a success): on their own, they may preempt.
      if (group_status.ok()) queue_->Activate({uid});
      continue;
    }
    if (!group_status.ok()) {
      // It fitted, but the group did not: it says the group's status, and waits for the
      // preemption's victims to go where one runs for the group.
      if (waiting_on_preemption) {
        fail(std::move(info), group_status, nullptr, *t.state, found, nomination(info));
        continue;
      }
      std::vector<std::string> reasons = {kPodGroupUnschedulable};
      reasons.insert(reasons.end(), group_status.reasons().begin(), group_status.reasons().end());
      fail(std::move(info), Status(Code::kUnschedulable, std::move(reasons)), nullptr, *t.state,
           found, "");
      continue;
    }
    if (std::optional<BindingCycle> b = Place(fw, std::move(info), t.state, t.node, start, &found,
                                              &t.fit_error.diagnosis, "")) {
      bindings.push_back(std::move(*b));
    }
  }
  // Started once each has been through Permit, so that a gang's pods waiting there for the rest
  // are allowed before any binding cycle waits for them.
  for (BindingCycle& b : bindings) StartBindingCycle(std::move(b));
}

}  // namespace ksched::scheduler
