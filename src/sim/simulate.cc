#include "src/sim/simulate.h"

#include <algorithm>
#include <map>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"
#include "src/base/clock.h"
#include "src/sim/cluster.h"

namespace ksched::sim {
namespace {

// How many times simulated time may jump to the next backoff expiry without any pod being
// placed or evicted, before the queue counts as settled (pods failing with errors back off, and
// are tried again, forever).
constexpr int kMaxIdleTimeJumps = 5;

// "Plugin: reason (explanation)" for a filter verdict, or "passed".
std::string Verdict(const Status& s) {
  if (s.ok()) return "passed";
  std::string out =
      s.plugin().empty() ? s.Message() : fmt::format("{}: {}", s.plugin(), s.Message());
  if (!s.explanation().empty()) out += fmt::format(" ({})", s.explanation());
  return out;
}

// What the scheduling cycle's filters and scores found, kept for the table and the JSON.
Explanation Explain(const scheduler::Attempt& a) {
  Explanation e;
  if (const Diagnosis* d = a.filtered) {
    for (const auto& [node, status] : d->node_to_status.statuses)
      e.verdicts[node] = Verdict(status);
    const Status& absent = d->node_to_status.absent;
    if (!absent.plugin().empty() || !absent.reasons().empty()) e.absent = Verdict(absent);
  }
  for (const NodeInfo* ni : a.feasible) e.verdicts[ni->name()] = "passed";
  const std::string& nominated = a.pod->status.nominated_node_name;
  e.nominated_fit = !nominated.empty() && e.verdicts.size() == 1 && a.feasible.size() == 1 &&
                    a.feasible[0]->name() == nominated;
  e.batched_after = a.batched_after;
  e.group_reason = a.group_reason;
  e.group_message = a.group_message;
  e.placement = a.placement;
  if (a.placement_nodes != nullptr) {
    e.placement_nodes.emplace(a.placement_nodes->begin(), a.placement_nodes->end());
  }
  if (const framework::ScoreTable* s = a.scores) {
    for (size_t i = 0; i < s->nodes.size(); ++i) {
      Explanation::NodeScores out{.node = s->nodes[i]->name(), .total = s->totals[i]};
      for (size_t j = 0; j < s->plugins.size(); ++j) {
        out.plugins.emplace_back(std::string(s->plugins[j]), s->Weighted(j, i));
      }
      e.scores.push_back(std::move(out));
    }
    std::stable_sort(e.scores.begin(), e.scores.end(),
                     [](const auto& x, const auto& y) { return x.total > y.total; });
  }
  return e;
}

// The scheduling cycles: how many, how many chose a node, and with explain each pod's last. A
// binding cycle's failure leaves its pod's explanation as its scheduling cycle found it (the
// pod's condition says why the bind failed).
class Cycles : public scheduler::AttemptObserver {
 public:
  explicit Cycles(bool explain) : explain_(explain) {}
  void Observe(const scheduler::Attempt& a) override {
    if (a.in_binding) return;
    ++cycles;
    if (!a.node.empty()) ++placed;
    if (explain_) last[a.pod->metadata.uid] = Explain(a);
  }

  int cycles = 0;
  int placed = 0;
  std::map<std::string, Explanation> last;  // uid → the last cycle's

 private:
  const bool explain_;
};

// Each node's filter verdict in the last attempt, by node name. Nodes the attempt did not
// filter: those outside the placement its group's cycle tried it in, those PreFilter ruled out,
// those left out because the pod's nominated node fit (only it is tried first, as upstream), or
// those percentageOfNodesToScore left out.
std::map<std::string, std::string> FilterVerdicts(const Explanation& e,
                                                  const std::vector<std::string>& nodes) {
  std::map<std::string, std::string> out = e.verdicts;
  for (const std::string& node : nodes) {
    if (out.contains(node)) continue;
    if (e.placement_nodes && !e.placement_nodes->contains(node)) {
      out[node] = fmt::format("not evaluated (outside the pod group's placement {})", e.placement);
      continue;
    }
    out[node] = e.absent          ? *e.absent
                : e.nominated_fit ? "not evaluated (the pod's nominated node fit)"
                : !e.batched_after.empty()
                    ? fmt::format(
                          "not evaluated (OpportunisticBatching: the next node of {}'s "
                          "scoring fit)",
                          e.batched_after)
                    : "not evaluated (percentageOfNodesToScore)";
  }
  return out;
}

// The nodes of each verdict, as `ksched explain` groups them: the largest group first, then by
// verdict; nodes by name.
std::vector<std::pair<std::string, std::vector<std::string>>> VerdictGroups(
    const std::map<std::string, std::string>& verdicts) {
  std::map<std::string, std::vector<std::string>> by_verdict;
  for (const auto& [node, verdict] : verdicts) by_verdict[verdict].push_back(node);
  std::vector<std::pair<std::string, std::vector<std::string>>> out(by_verdict.begin(),
                                                                    by_verdict.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  return out;
}

// Where a pod the scheduler serves stands at the end: on its node, or why not.
PodOutcome Outcome(const api::Pod& pod, scheduler::Scheduler& s) {
  PodOutcome o{.namespace_ = pod.metadata.namespace_, .name = pod.metadata.name};
  if (!pod.spec.node_name.empty()) {
    o.node = pod.spec.node_name;
    o.status = "Scheduled";
    return o;
  }
  o.status = "Pending";
  o.nominated_node = pod.status.nominated_node_name;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") {
      o.status = c.reason;  // SchedulingGated from the API server, or the scheduler's reason.
      o.message = c.message;
    }
  }
  // Held by another PreEnqueue plugin: nothing writes a condition; its reason tells why.
  if (o.status == "Pending") {
    Status gate = s.FrameworkFor(pod.spec.scheduler_name)->RunPreEnqueuePlugins(pod);
    if (!gate.ok()) {
      o.status = "SchedulingGated";
      o.message = gate.Message();
    }
  }
  return o;
}

// The preemptor of each evicted pod, "namespace/name" → "namespace/name" (or "podgroup
// namespace/name"), from the Preempted events ("Preempted by pod <uid> on node <node>", or by
// podgroup, upstream's words; a PodGroup's uid here is "podgroup/<namespace>/<name>").
std::map<std::string, std::string> Preemptors(
    const Cluster& cluster, const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  std::map<std::string, std::string> by_uid;
  for (const auto& p : pods)
    by_uid[p->metadata.uid] = p->metadata.namespace_ + "/" + p->metadata.name;
  std::map<std::string, std::string> out;
  constexpr std::string_view kPrefix = "Preempted by pod ";
  constexpr std::string_view kGroupPrefix = "Preempted by podgroup podgroup/";
  for (const RecordedEvent& e : cluster.Events()) {
    if (e.reason != "Preempted") continue;
    const bool group = e.message.starts_with(kGroupPrefix);
    if (!group && !e.message.starts_with(kPrefix)) continue;
    std::string uid = e.message.substr(group ? kGroupPrefix.size() : kPrefix.size());
    uid = uid.substr(0, uid.find(' '));
    auto it = by_uid.find(uid);
    out[e.namespace_ + "/" + e.pod] = group                ? "podgroup " + uid
                                      : it == by_uid.end() ? uid
                                                           : it->second;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<CustomResource>> WatchedCustomResources(const config::Configuration& cfg,
                                                                   const Registry& registry) {
  Cluster none({});
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> s =
      scheduler::Scheduler::Create({.config = cfg, .writer = &none}, registry);
  if (!s.ok()) return s.status();
  std::vector<CustomResource> out;
  for (CustomObjects::Store* store : (*s)->listers().custom.All()) {
    if (!store->resource().kind.empty()) out.push_back(store->resource());
  }
  return out;
}

absl::StatusOr<SimulationResult> Simulate(std::vector<api::Object> objects,
                                          const Registry& registry,
                                          const SimulationOptions& options) {
  Cluster cluster(std::move(objects));
  FakeClock clock(absl::FromUnixSeconds(1767225600));  // 2026-01-01T00:00:00Z
  Cycles cycles(options.explain);
  scheduler::SchedulerOptions so{
      .config = options.config,
      .writer = &cluster,
      .clock = &clock,
      .seed = options.seed,
      .binding_threads = 0,
      .observers = {&cycles},
      .explain_rejections = options.explain,
      .nominated_node_name_for_expectation = options.nominated_node_name_for_expectation,
      .opportunistic_batching = options.opportunistic_batching,
      .generic_workload = options.generic_workload,
      .topology_aware_workload_scheduling = options.topology_aware_workload_scheduling,
      .extenders_bind = false,
      .pod_group_preemption_policy = options.pod_group_preemption_policy};
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> created =
      scheduler::Scheduler::Create(std::move(so), registry);
  if (!created.ok()) return created.status();
  scheduler::Scheduler& s = **created;
  for (const CustomManifestObject& c : options.custom_objects) {
    if (CustomObjects::Store* store = s.listers().custom.Find(c.resource)) {
      store->objects().Set(c.object);
    }
  }

  std::vector<std::shared_ptr<const api::Pod>> initial = cluster.Pods();
  cluster.Start(s, options.one_at_a_time);
  do {
    for (int idle = 0; idle <= kMaxIdleTimeJumps;) {
      const int placed_before = cycles.placed;
      const size_t evicted_before = cluster.Evicted().size();
      while (s.ScheduleOne()) cluster.Deliver(s);
      cluster.Deliver(s);
      // The next backoff to end, or wait at Permit to time out.
      absl::Time next = std::min(s.queue().NextBackoffExpiry(), s.NextPermitDeadline());
      if (next == absl::InfiniteFuture()) break;
      const bool progressed =
          cycles.placed != placed_before || cluster.Evicted().size() != evicted_before;
      idle = progressed ? 0 : idle + 1;
      clock.Set(std::max(next, clock.Now()));
      s.queue().FlushBackoffQCompleted();
      s.RunDecidedBindingCycles();
    }
  } while (cluster.AddNextPod(s));

  SimulationResult result;
  result.cycles = cycles.cycles;
  result.final_pods = cluster.Pods();
  result.final_nodes = cluster.Nodes();
  for (const auto& n : cluster.Nodes()) result.node_names.push_back(n->metadata.name);
  std::map<std::string, std::shared_ptr<const api::Pod>> now;
  for (const auto& p : cluster.Pods()) now[p->metadata.uid] = p;
  const std::map<std::string, std::string> preemptors = Preemptors(cluster, initial);
  for (const auto& e : cluster.Evicted()) {
    const std::string key = e->metadata.namespace_ + "/" + e->metadata.name;
    auto by = preemptors.find(key);
    result.evicted.push_back({e->metadata.namespace_, e->metadata.name, e->spec.node_name,
                              by == preemptors.end() ? "" : by->second});
  }
  std::string profiles;
  for (const config::Profile& p : options.config.profiles) {
    profiles += fmt::format("{}\"{}\"", profiles.empty() ? "" : ", ", p.scheduler_name);
  }
  for (const auto& start : initial) {
    if (!start->spec.node_name.empty()) continue;
    PodOutcome o{.namespace_ = start->metadata.namespace_, .name = start->metadata.name};
    auto current = now.find(start->metadata.uid);
    if (!s.IsResponsibleFor(*start)) {
      o.status = "NotOurs";
      o.message = fmt::format("no profile serves schedulerName \"{}\" (profiles: {})",
                              start->spec.scheduler_name, profiles);
    } else if (current == now.end()) {  // Placed, then preempted.
      auto evicted = std::find_if(result.evicted.begin(), result.evicted.end(), [&](const auto& e) {
        return e.namespace_ == o.namespace_ && e.name == o.name;
      });
      o.status = "Preempted";
      if (evicted != result.evicted.end()) {
        o.message = fmt::format("preempted by {} on node {}", evicted->preemptor, evicted->node);
      }
    } else {
      o = Outcome(*current->second, s);
    }
    if (auto it = cycles.last.find(start->metadata.uid); it != cycles.last.end()) {
      o.last_cycle = std::move(it->second);
    }
    if (start->spec.pod_group_name) {
      o.pod_group = start->metadata.namespace_ + "/" + *start->spec.pod_group_name;
    }
    result.pods.push_back(std::move(o));
  }
  return result;
}

std::string FormatJson(const SimulationResult& result, bool explain) {
  nlohmann::ordered_json pods = nlohmann::ordered_json::array();
  for (const PodOutcome& o : result.pods) {
    nlohmann::ordered_json p;
    p["namespace"] = o.namespace_;
    p["name"] = o.name;
    p["node"] = o.node ? nlohmann::ordered_json(*o.node) : nlohmann::ordered_json(nullptr);
    p["status"] = o.status;
    if (!o.message.empty()) p["message"] = o.message;
    if (!o.nominated_node.empty()) p["nominatedNode"] = o.nominated_node;
    if (!o.pod_group.empty()) p["podGroup"] = o.pod_group;
    if (explain && o.last_cycle) {
      nlohmann::ordered_json filter = nlohmann::ordered_json::object();
      for (const auto& [node, verdict] : FilterVerdicts(*o.last_cycle, result.node_names)) {
        filter[node] = verdict;
      }
      p["filter"] = std::move(filter);
      nlohmann::ordered_json scores = nlohmann::ordered_json::object();
      for (const auto& ns : o.last_cycle->scores) {
        nlohmann::ordered_json s;
        for (const auto& [plugin, score] : ns.plugins) s[plugin] = score;
        s["total"] = ns.total;
        scores[ns.node] = std::move(s);
      }
      p["scores"] = std::move(scores);
      if (!o.last_cycle->batched_after.empty()) p["batchedAfter"] = o.last_cycle->batched_after;
      if (!o.last_cycle->group_reason.empty()) {
        p["groupCycle"] = {{"reason", o.last_cycle->group_reason}};
        if (!o.last_cycle->group_message.empty()) {
          p["groupCycle"]["message"] = o.last_cycle->group_message;
        }
        if (!o.last_cycle->placement.empty()) {
          p["groupCycle"]["placement"] = o.last_cycle->placement;
        }
      }
    }
    pods.push_back(std::move(p));
  }
  nlohmann::ordered_json out;
  out["pods"] = std::move(pods);
  out["evicted"] = nlohmann::ordered_json::array();
  for (const EvictedPod& e : result.evicted) {
    nlohmann::ordered_json j = {{"namespace", e.namespace_}, {"name", e.name}, {"node", e.node}};
    if (!e.preemptor.empty()) j["preemptor"] = e.preemptor;
    out["evicted"].push_back(std::move(j));
  }
  return out.dump(2) + "\n";
}

std::string FormatTable(const SimulationResult& result, bool explain) {
  size_t wn = 9, wp = 4, ws = 6, wnode = 4;
  for (const PodOutcome& o : result.pods) {
    wn = std::max(wn, o.namespace_.size());
    wp = std::max(wp, o.name.size());
    ws = std::max(ws, o.status.size());
    wnode = std::max(wnode, o.node.value_or("<none>").size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", "NAMESPACE", wn, "NAME", wp,
                                "STATUS", ws, "NODE", wnode, "MESSAGE");
  for (const PodOutcome& o : result.pods) {
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", o.namespace_, wn, o.name, wp,
                       o.status, ws, o.node.value_or("<none>"), wnode, o.message);
  }
  for (const EvictedPod& e : result.evicted) {
    out += fmt::format("evicted: {}/{} from {} (preempted{})\n", e.namespace_, e.name, e.node,
                       e.preemptor.empty() ? "" : " by " + e.preemptor);
  }
  if (!explain) return out;
  for (const PodOutcome& o : result.pods) {
    std::string where = o.node ? " on " + *o.node : "";
    if (!o.nominated_node.empty()) where = ", nominated to " + o.nominated_node;
    out += fmt::format("\n{}/{}: {}{}\n", o.namespace_, o.name, o.status, where);
    if (!o.last_cycle) {
      out += "  never attempted\n";
      continue;
    }
    if (!o.last_cycle->group_reason.empty()) {
      const Explanation& c = *o.last_cycle;
      out += fmt::format("  group {}: {}{}{}\n", o.pod_group, c.group_reason,
                         c.placement.empty() ? "" : " (placement " + c.placement + ")",
                         c.group_message.empty() ? "" : ": " + c.group_message);
    }
    out += "  filter:\n";
    for (const auto& [verdict, nodes] :
         VerdictGroups(FilterVerdicts(*o.last_cycle, result.node_names))) {
      out += fmt::format("    {} node(s): {}\n      {}\n", nodes.size(), verdict,
                         fmt::join(nodes, ", "));
    }
    if (!o.last_cycle->batched_after.empty()) {
      out +=
          fmt::format("  not scored: OpportunisticBatching gave it the next node of {}'s scoring\n",
                      o.last_cycle->batched_after);
    }
    if (o.last_cycle->scores.empty()) continue;
    out += "  scores (weighted, best first):\n";
    for (const auto& ns : o.last_cycle->scores) {
      std::string parts;
      for (const auto& [plugin, score] : ns.plugins) parts += fmt::format("{}={} ", plugin, score);
      out += fmt::format("    {:<{}}  total={}  {}\n", ns.node, wnode, ns.total, parts);
    }
  }
  return out;
}

}  // namespace ksched::sim
