#include "src/scheduler/schedule_one.h"

#include <algorithm>
#include <array>
#include <atomic>

#include "absl/cleanup/cleanup.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/api/field.h"
#include "ksched/extender.h"
#include "src/base/log.h"
#include "src/scheduler/scheduler.h"
#include "src/sdk/cycle_state_access.h"

namespace ksched::scheduler {
namespace {

// klog.KObj: "<namespace>/<name>".
std::string PodKey(const api::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

// Every plugin's weighted score and every node's total, at -v 10, in kube-scheduler's words (the
// differential test compares them with upstream's).
void LogScores(const api::Pod& pod, const framework::ScoreTable& scores) {
  if (!log::Enabled(10)) return;
  const std::string key = PodKey(pod);
  for (size_t i = 0; i < scores.nodes.size(); ++i) {
    for (size_t j = 0; j < scores.plugins.size(); ++j) {
      KLOG(10, "Plugin scored node for pod", {"pod", key}, {"plugin", scores.plugins[j]},
           {"node", scores.nodes[i]->name()}, {"score", scores.Weighted(j, i)});
    }
  }
  for (size_t i = 0; i < scores.nodes.size(); ++i) {
    KLOG(10, "Calculated node's final score for pod", {"pod", key},
         {"node", scores.nodes[i]->name()}, {"score", scores.totals[i]});
  }
}

}  // namespace

int32_t NumFeasibleNodesToFind(int32_t percentage, int32_t num_all_nodes) {
  constexpr int32_t kMinFeasibleNodesToFind = 100;
  constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage == 0) {
    percentage = std::max(50 - num_all_nodes / 125, kMinFeasibleNodesPercentageToFind);
  }
  int32_t n = static_cast<int32_t>(int64_t{num_all_nodes} * percentage / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

bool Scheduler::ScheduleOne(absl::Duration wait) {
  if (options_.throttle) options_.throttle();
  RunDecidedBindingCycles();
  std::optional<QueuedPodInfo> popped =
      wait > absl::ZeroDuration() ? queue_->PopWait(wait) : queue_->Pop();
  if (!popped) return false;
  ++cycle_;
  const SteadyTime start = std::chrono::steady_clock::now();
  QueuedPodInfo info = std::move(*popped);
  const api::Pod& pod = info.pod();
  auto fw_it = frameworks_.find(pod.spec.scheduler_name);
  if (fw_it == frameworks_.end()) {
    queue_->Done(pod.metadata.uid);
    return true;
  }
  if (pod.metadata.deletion_timestamp) {
    options_.writer->RecordEvent(pod, "Warning", "FailedScheduling", "Scheduling",
                                 fmt::format("skip schedule deleting pod: {}/{}",
                                             pod.metadata.namespace_, pod.metadata.name));
    queue_->Done(pod.metadata.uid);
    return true;
  }
  if (options_.generic_workload && pod.spec.pod_group_name) {
    SchedulePodGroup(*fw_it->second, std::move(info), start);
    return true;
  }
  if (std::optional<BindingCycle> binding =
          SchedulingCycle(*fw_it->second, std::move(info), start)) {
    StartBindingCycle(std::move(*binding));
  }
  RunDecidedBindingCycles();
  return true;
}

void Scheduler::RunDecidedBindingCycles() {
  // A cycle run here may decide others' waits (Unreserve rejects a gang's siblings): again until
  // none is left to run.
  for (bool ran = true; ran && !parked_.empty();) {
    ran = false;
    for (size_t i = 0; i < parked_.size(); ++i) {
      std::shared_ptr<framework::WaitingPodImpl> wp =
          parked_[i].fw->WaitingPodOf(parked_[i].assumed->metadata.uid);
      if (wp != nullptr && !wp->Decided()) continue;
      BindingCycle cycle = std::move(parked_[i]);
      parked_.erase(parked_.begin() + static_cast<std::ptrdiff_t>(i));
      StartBindingCycle(std::move(cycle));
      ran = true;
      break;
    }
  }
}

absl::Time Scheduler::NextPermitDeadline() const {
  absl::Time first = absl::InfiniteFuture();
  for (const BindingCycle& c : parked_) {
    if (auto wp = c.fw->WaitingPodOf(c.assumed->metadata.uid))
      first = std::min(first, wp->Deadline());
  }
  return first;
}

std::optional<Scheduler::BindingCycle> Scheduler::SchedulingCycle(framework::Framework& fw,
                                                                  QueuedPodInfo info,
                                                                  SteadyTime start) {
  std::shared_ptr<const api::Pod> pod = info.pod_info->pod;
  cache_.UpdateSnapshot(&snapshot_);
  fw.set_snapshot(&snapshot_);
  auto state = std::make_shared<CycleState>();
  internal::CycleStateAccess::SetRecordPluginMetrics(
      *state, sample_rng_() % 100 < metrics::FrameworkMetrics::kPluginSamplePercent);
  internal::CycleStateAccess::SetExplain(*state, options_.explain_rejections);
  if (options_.simulator_annotations) {
    state->Write(framework::kSimulatorTraceKey, std::make_unique<framework::SimulatorTrace>());
  }
  ScheduleResult result;
  FitError fit_error;
  Status s = SchedulePod(fw, *state, *pod, &result, &fit_error);
  Found found{.filtered = &fit_error.diagnosis, .scores = result.scored ? &score_table_ : nullptr};
  if (!s.ok()) {
    std::optional<std::string> nominated;
    if (fit_error.num_all_nodes > 0 && fw.HasPostFilterPlugins()) {
      PostFilterResult pf;
      Status ps = fw.RunPostFilterPlugins(*state, *pod, fit_error.diagnosis.node_to_status, &pf);
      nominated = pf.nominated_node_name;
      found.victims = std::move(pf.victims);
      // As upstream, whatever PostFilter said, a success or an error too, ends the message.
      if (!ps.Message().empty()) fit_error.diagnosis.post_filter_msg = ps.Message();
      s = Status(s.code(), {fit_error.Error()});
    }
    HandleFailure(std::move(info), s, fit_error.num_all_nodes > 0 ? &fit_error.diagnosis : nullptr,
                  nominated, &found, *state, start);
    return std::nullopt;
  }
  metrics_->scheduling_algorithm_duration.With({})->Observe(metrics::SecondsSince(start));
  return Place(fw, std::move(info), std::move(state), std::move(result.node), start, &found,
               &fit_error.diagnosis, result.batched_after);
}

std::optional<Scheduler::BindingCycle> Scheduler::Place(
    framework::Framework& fw, QueuedPodInfo info, std::shared_ptr<CycleState> state,
    std::string node, SteadyTime start, const Found* found, const Diagnosis* diagnosis,
    const std::string& batched_after) {
  std::shared_ptr<const api::Pod> pod = info.pod_info->pod;
  // Assume the pod on the node, so the next cycles see it there before the bind completes.
  auto assumed_pod = std::make_shared<api::Pod>(*pod);
  assumed_pod->spec.node_name = node;
  std::shared_ptr<const api::Pod> assumed = assumed_pod;
  if (absl::Status st = cache_.AssumePod(PodInfo::Make(assumed), node); !st.ok()) {
    HandleFailure(std::move(info), Status::Error(std::string(st.message())), nullptr, std::nullopt,
                  found, *state, start);
    return std::nullopt;
  }
  nominator_.DeleteNominatedPodIfExists(pod->metadata.uid);  // It holds its node for real now.
  auto fail_after_assume = [&](const Status& why) {
    fw.RunReservePluginsUnreserve(*state, *assumed, node);
    (void)cache_.ForgetPod(pod->metadata.uid);
    HandleFailureOnNode(std::move(info), why, node, found, *state, start);
    return std::nullopt;
  };
  if (const framework::SimulatorTrace* trace = Trace(*state)) trace->SelectedNode(node);
  if (Status rs = fw.RunReservePluginsReserve(*state, *assumed, node); !rs.ok()) {
    return fail_after_assume(rs);
  }
  const Status permit = fw.RunPermitPlugins(*state, *assumed, node);
  if (!permit.ok() && !permit.IsWait()) return fail_after_assume(permit);
  framework::Framework::PreBindWork pre_bind_work;
  const Status pre_flight = fw.RunPreBindPreFlights(*state, *assumed, node, &pre_bind_work);
  if (!pre_flight.ok() && !pre_flight.IsSkip()) return fail_after_assume(pre_flight);
  Observe(
      {.result = "Scheduled", .node = node, .batched_after = batched_after, .diagnosis = diagnosis},
      info, found);
  // Filter's and Score's data is not held while the pod waits on its bind.
  internal::CycleStateAccess::EndSchedulingCycle(*state);

  BindingCycle binding{.fw = &fw,
                       .state = std::move(state),
                       .info = std::move(info),
                       .assumed = std::move(assumed),
                       .node = node,
                       .start = start,
                       .async = !permit.IsWait() && fw.CanBindAsync(pre_flight, pre_bind_work),
                       .pre_bind_work = std::move(pre_bind_work)};
  // As upstream with NominatedNodeNameForExpectation (beta, on since 1.35): when PreBind has work
  // to do or Permit holds the pod, its nominatedNodeName tells other components (the cluster
  // autoscaler) where it is going meanwhile. The API server clears it on bind.
  binding.nominated =
      options_.nominated_node_name_for_expectation && (pre_flight.ok() || permit.IsWait());
  if (binding.nominated) {
    (void)options_.writer->UpdatePodStatus(*binding.assumed, {}, &binding.node);
  }
  return binding;
}

Status Scheduler::SchedulePod(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                              ScheduleResult* result, FitError* fit_error) {
  std::vector<const NodeInfo*>& feasible = feasible_;
  feasible.clear();
  extender_nodes_.clear();
  const std::vector<const NodeInfo*>& candidates = CandidateNodes();
  if (candidates.empty()) return Status::UnschedulableAndUnresolvable(kNoNodesAvailableMsg);
  const bool batching = options_.opportunistic_batching;
  const std::optional<std::string> signature = batching ? fw.SignPod(pod) : std::nullopt;
  std::string hint;
  // A success's rejections stay there too, for the attempt's observers.
  Diagnosis& diagnosis = fit_error->diagnosis;
  Status s =
      FindNodesThatFitPod(fw, state, pod, candidates, signature, &hint, &feasible, &diagnosis);
  if (!s.ok()) return s;
  result->evaluated = static_cast<int>(feasible.size() + diagnosis.node_to_status.statuses.size());
  result->feasible = static_cast<int>(feasible.size());
  if (feasible.empty()) {
    fit_error->num_all_nodes = static_cast<int>(candidates.size());
    return Status(Code::kUnschedulable, {fit_error->Error()});
  }
  if (feasible.size() == 1) {  // Upstream skips scoring when one node fits.
    result->node = feasible[0]->name();
    if (batching) {
      if (!hint.empty() && hint == result->node) {
        result->batched_after = std::string(fw.batch().source());
      }
      fw.batch().StoreScheduleResults(signature, hint, result->node, nullptr, 0, cycle_, pod);
    }
    return Status();
  }
  if (Status ps = PrioritizeNodes(fw, state, pod, feasible); !ps.ok()) return ps;
  result->scored = true;
  const size_t chosen = SelectHost(score_table_);
  result->node = score_table_.nodes[chosen]->name();
  if (batching) {
    fw.batch().StoreScheduleResults(signature, hint, result->node, &score_table_, chosen, cycle_,
                                    pod);
  }
  return Status();
}

Status Scheduler::PrioritizeNodes(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                                  const std::vector<const NodeInfo*>& feasible) {
  if (Status ps = fw.RunPreScorePlugins(state, pod, feasible); !ps.ok()) return ps;
  framework::ScoreTable& scores = score_table_;
  if (fw.HasScorePlugins()) {
    if (Status ss = fw.RunScorePlugins(state, pod, feasible, &scores); !ss.ok()) return ss;
    LogScores(pod, scores);
    // The weighted scores are the framework's, not a plugin's: the trace takes them from here.
    if (const framework::SimulatorTrace* trace = Trace(state)) {
      for (size_t j = 0; j < scores.plugins.size(); ++j) {
        for (size_t i = 0; i < scores.nodes.size(); ++i) {
          trace->FinalScore(scores.nodes[i]->name(), scores.plugins[j], scores.Weighted(j, i));
        }
      }
    }
  } else {  // Upstream: every node scores 1 without score plugins, or 0 with extenders.
    scores.plugins.clear();
    scores.nodes = feasible;
    scores.raw.clear();
    scores.weighted.clear();
    scores.totals.assign(feasible.size(), extenders_.list.empty() ? 1 : 0);
  }
  AddExtenderScores(fw, pod, feasible);
  return Status();
}

void Scheduler::AddExtenderScores(const framework::Framework& fw, const api::Pod& pod,
                                  const std::vector<const NodeInfo*>& feasible) {
  std::vector<Extender*> asked;
  for (Extender* e : extenders_.list) {
    if (e->IsPrioritizer() && e->IsInterested(pod)) asked.push_back(e);
  }
  if (asked.empty()) return;
  // Called at once, as upstream's goroutines, on the framework's workers (the first here).
  std::vector<std::vector<HostPriority>> answers(asked.size());
  std::vector<absl::Status> errors(asked.size());
  auto ask = [&](size_t i) {
    prioritizing_goroutines_->Add(1);
    errors[i] = asked[i]->Prioritize(pod, feasible, &answers[i]);
    prioritizing_goroutines_->Add(-1);
  };
  if (asked.size() == 1) {
    ask(0);
  } else {
    fw.ParallelFor(0, asked.size(), 1, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) ask(i);
    });
  }
  framework::ScoreTable& scores = score_table_;
  const size_t n = scores.nodes.size();
  absl::flat_hash_map<std::string_view, size_t> place;
  for (size_t i = 0; i < n; ++i) place.emplace(scores.nodes[i]->name(), i);
  for (size_t k = 0; k < asked.size(); ++k) {
    if (!errors[k].ok()) {
      // Upstream goes on without its scores, whether it is ignorable or not.
      KLOG(5, "Failed to run extender's priority function. No score given by this extender.",
           {"error", std::string(errors[k].message())}, {"pod", PodKey(pod)},
           {"extender", asked[k]->Name()});
      continue;
    }
    const size_t column = scores.plugins.size();
    scores.plugins.push_back(asked[k]->Name());
    scores.raw.resize((column + 1) * n, 0);
    scores.weighted.resize((column + 1) * n, 0);
    for (const HostPriority& h : answers[k]) {
      auto it = place.find(h.host);
      if (it == place.end()) continue;
      // Scaled from the extenders' range to the plugins' (MaxNodeScore / MaxExtenderPriority);
      // a score out of range is taken as it is, as upstream takes it.
      const int64_t weighted = h.score * asked[k]->weight() * (100 / kMaxExtenderPriority);
      scores.raw[column * n + it->second] += h.score;
      scores.weighted[column * n + it->second] += weighted;
      scores.totals[it->second] += weighted;
    }
  }
}

bool Scheduler::ExtendersFilterOrScore() const {
  return std::any_of(extenders_.list.begin(), extenders_.list.end(),
                     [](const Extender* e) { return e->IsFilter() || e->IsPrioritizer(); });
}

Status Scheduler::FindNodesThatPassExtenders(const api::Pod& pod,
                                             std::vector<const NodeInfo*>* feasible,
                                             Diagnosis* diagnosis) {
  for (Extender* e : extenders_.list) {
    if (feasible->empty()) break;
    if (!e->IsInterested(pod)) continue;
    ExtenderFilterResult r;
    if (absl::Status s = e->Filter(pod, *feasible, &r); !s.ok()) {
      if (e->IsIgnorable()) {
        KLOG(0, "Skipping extender as it returned error and has ignorable flag set",
             {"extender", e->Name()}, {"err", std::string(s.message())});
        continue;
      }
      return Status::Error(std::string(s.message()));
    }
    // The unresolvable first: preemption does not try those nodes.
    // Named by the extender, for the explanations (the pod's message names no plugin).
    for (auto& [node, why] : r.failed_and_unresolvable) {
      diagnosis->node_to_status.statuses[node] =
          Status::UnschedulableAndUnresolvable(why).WithPlugin(e->Name());
    }
    for (auto& [node, why] : r.failed) {
      if (r.failed_and_unresolvable.contains(node)) continue;
      diagnosis->node_to_status.statuses[node] = Status::Unschedulable(why).WithPlugin(e->Name());
    }
    for (auto& made : r.made) extender_nodes_.push_back(std::move(made));
    *feasible = std::move(r.nodes);
  }
  return Status();
}

const std::vector<const NodeInfo*>& Scheduler::CandidateNodes() {
  if (!placement_) return snapshot_.nodes();
  NodesIn(*placement_, &placement_nodes_);
  return placement_nodes_;
}

void Scheduler::NodesIn(const PlacementScope& scope, std::vector<const NodeInfo*>* nodes) const {
  nodes->clear();
  for (const std::string& name : scope.names) {
    if (const NodeInfo* n = snapshot_.Get(name)) nodes->push_back(n);
  }
}

Status Scheduler::FindNodesThatFitPod(framework::Framework& fw, CycleState& state,
                                      const api::Pod& pod, const std::vector<const NodeInfo*>& all,
                                      const std::optional<std::string>& signature,
                                      std::string* hint, std::vector<const NodeInfo*>* feasible,
                                      Diagnosis* diagnosis) {
  PreFilterResult pre;
  std::set<std::string, std::less<>> narrowing;
  // The plugins see every node, a placement's or not (upstream's List is the whole snapshot).
  Status s = fw.RunPreFilterPlugins(state, pod, snapshot_.nodes(), &pre, &narrowing);
  diagnosis->unschedulable_plugins = narrowing;
  if (!s.ok()) {
    if (!s.IsRejected()) return s;
    diagnosis->node_to_status.absent = s;
    diagnosis->pre_filter_msg = s.Message();
    diagnosis->AddPluginStatus(s);
    return Status();
  }
  if (options_.opportunistic_batching) {
    *hint = fw.batch().GetNodeHint(state, pod, signature, cycle_);
  }
  if (EvaluateNominatedNode(fw, state, pod, *hint, feasible, diagnosis)) return Status();
  std::vector<const NodeInfo*> subset;
  const std::vector<const NodeInfo*>* nodes = &all;
  if (!pre.AllNodes()) {
    for (const NodeInfo* ni : all) {
      if (pre.node_names->contains(ni->name())) subset.push_back(ni);
    }
    nodes = &subset;
    diagnosis->node_to_status.absent = Status::UnschedulableAndUnresolvable(
        fmt::format("node(s) didn't satisfy plugin(s) [{}]", fmt::join(narrowing, " ")));
  }
  s = FindNodesThatPassFilters(fw, state, pod, *nodes, all.size(), feasible, diagnosis);
  if (!s.ok() || extenders_.list.empty()) return s;
  const size_t passed = feasible->size();
  s = FindNodesThatPassExtenders(pod, feasible, diagnosis);
  // A pod they rejected nodes for is tried again on any event (upstream's "Extender").
  if (s.ok() && feasible->size() != passed) diagnosis->unschedulable_plugins.insert(kExtenderName);
  return s;
}

bool Scheduler::EvaluateNominatedNode(framework::Framework& fw, CycleState& state,
                                      const api::Pod& pod, std::string_view hint,
                                      std::vector<const NodeInfo*>* feasible,
                                      Diagnosis* diagnosis) {
  // As upstream's pod with its pending nomination patch applied: the scheduler's nomination counts
  // before the API echoes it.
  std::string nominated = fw.NominatedNodeOf(pod);
  if (nominated.empty()) nominated = hint;
  if (nominated.empty()) return false;
  const NodeInfo* ni = snapshot_.Get(nominated);
  // A node outside the placement a group's trial is confined to is not tried first either.
  if (ni == nullptr || (placement_ && !placement_->set.contains(nominated))) return false;
  Status st = fw.RunFilterPluginsWithNominatedPods(state, pod, *ni);
  if (st.ok()) {
    std::vector<const NodeInfo*> passed = {ni};
    if (Status es = FindNodesThatPassExtenders(pod, &passed, diagnosis); !es.ok()) {
      KLOG_ERROR("Evaluation failed on nominated node", {"pod", PodKey(pod)}, {"node", nominated},
                 {"err", es.Message()});
      return false;
    }
    feasible->insert(feasible->end(), passed.begin(), passed.end());
    return !passed.empty();
  }
  if (st.IsRejected()) {
    diagnosis->AddPluginStatus(st);
    diagnosis->node_to_status.statuses[ni->name()] = std::move(st);
  }
  return false;
}

Status Scheduler::FindNodesThatPassFilters(framework::Framework& fw, CycleState& state,
                                           const api::Pod& pod,
                                           const std::vector<const NodeInfo*>& nodes,
                                           size_t all_nodes, std::vector<const NodeInfo*>* feasible,
                                           Diagnosis* diagnosis) {
  const size_t n = nodes.size();
  if (n == 0) return Status();
  size_t need = NumFeasibleNodesToFind(fw.percentage_of_nodes_to_score(), static_cast<int32_t>(n));
  if (!fw.HasScorePlugins() && !ExtendersFilterOrScore()) need = 1;

  // Check nodes from the round-robin start; stop once enough are feasible.
  enum : uint8_t { kUnchecked, kFeasible, kFailed };
  // Scratch buffers kept across cycles: a fresh 5000-entry vector per pod costs more than the
  // filters themselves. Only failed entries are set, and they are moved out below.
  std::vector<uint8_t>& verdict = verdict_scratch_;
  verdict.assign(n, kUnchecked);
  std::vector<Status>& statuses = status_scratch_;
  if (statuses.size() < n) statuses.resize(n);
  std::atomic<size_t> found{0};
  const size_t start = next_start_node_index_ % n;
  framework::FilterRun filters(fw, state);
  const bool any_nominated = !nominator_.empty();
  // Checks nodes [lo, hi) of the rotation. Feasible ones are claimed from `found` once per run of
  // up to kClaim nodes: one shared counter bumped per node bounces between the cores.
  constexpr size_t kClaim = 32;
  constexpr size_t kAheadInfo = 4, kAheadNode = 2;
  auto check = [&](size_t lo, size_t hi) {
    std::array<size_t, kClaim> fit;
    framework::FilterRun::Tally tally;
    size_t k = 0;
    auto claim = [&] {
      const size_t base = found.fetch_add(k);
      for (size_t j = 0; j < k && base + j < need; ++j) verdict[fit[j]] = kFeasible;
      k = 0;
    };
    // The nodes ahead are fetched while this one is filtered, since the filters' first reads of
    // a node miss the cache: kAheadInfo ahead, the first cache lines of its NodeInfo (the node,
    // the pods, the resources); kAheadNode ahead, the api::Node, whose NodeInfo is in by then.
    auto at = [&](size_t i) { return nodes[start + i < n ? start + i : start + i - n]; };
    for (size_t i = lo; i < hi; ++i) {
      if (found.load(std::memory_order_relaxed) + k >= need) break;  // Enough, counting ours.
      if (i + kAheadInfo < hi) {
        const char* p = reinterpret_cast<const char*>(at(i + kAheadInfo));
        for (size_t line = 0; line < 4; ++line) __builtin_prefetch(p + 64 * line);
      }
      if (i + kAheadNode < hi) {
        if (const api::Node* node = at(i + kAheadNode)->node()) {
          __builtin_prefetch(node);
          __builtin_prefetch(&node->spec);
        }
      }
      const NodeInfo& ni = *at(i);
      std::shared_ptr<const framework::Nominator::PodList> nominated =
          any_nominated ? fw.PodsNominatedTo(ni.name()) : nullptr;
      Status st = nominated != nullptr
                      ? fw.RunFilterPluginsWithNominatedPods(state, pod, ni, *nominated)
                      : filters.Filter(pod, ni, tally);
      if (st.ok()) {
        fit[k++] = i;
        if (k == kClaim) claim();
      } else {
        verdict[i] = kFailed;
        statuses[i] = std::move(st);
      }
    }
    if (k > 0) claim();
    filters.Merge(tally);
  };
  // Check in waves a little larger than what is still needed, each wave in parallel, so that
  // little work is wasted past the point where enough nodes were found.
  // A wave goes to the workers only when it holds enough work (ParallelCutoff).
  size_t begin = 0;  // Nodes [0, begin) of the rotation were checked.
  framework::ParallelCutoff::Busy busy;
  auto timed_check = [&](size_t lo, size_t hi) { busy.Run(check, lo, hi); };
  while (begin < n && found.load() < need) {
    size_t wave = std::min(n - begin, std::max<size_t>(64, (need - found.load()) * 9 / 8));
    if (wave <= kClaim || !filter_cutoff_.Parallel(wave)) {
      timed_check(begin, begin + wave);
    } else {
      fw.ParallelFor(begin, begin + wave, kClaim, timed_check);
    }
    begin += wave;
  }
  size_t processed = 0;
  // The map of rejections grows once, not by doubling (in a full cluster, nearly every node's).
  diagnosis->node_to_status.statuses.reserve(
      diagnosis->node_to_status.statuses.size() +
      std::count(verdict.begin(), verdict.begin() + begin, uint8_t{kFailed}));
  for (size_t i = 0; i < begin; ++i) {
    const NodeInfo* ni = nodes[start + i < n ? start + i : start + i - n];
    if (verdict[i] == kFeasible) {
      feasible->push_back(ni);
    } else if (verdict[i] == kFailed) {
      Status failed = std::move(statuses[i]);
      if (failed.code() == Code::kError) return failed;
      diagnosis->AddPluginStatus(failed);
      diagnosis->node_to_status.statuses[ni->name()] = std::move(failed);
      ++processed;
      continue;
    } else {
      continue;
    }
    ++processed;
  }
  filter_cutoff_.Record(processed, busy.total());
  next_start_node_index_ = (next_start_node_index_ + processed) % all_nodes;
  return Status();
}

size_t Scheduler::SelectHost(const framework::ScoreTable& scores) {
  // Uniform among the best, as upstream's selectHost, with one draw instead of one per tie.
  const std::vector<int64_t>& totals = scores.totals;
  const int64_t max = *std::max_element(totals.begin(), totals.end());
  uint64_t pick = rng_() % static_cast<uint64_t>(std::count(totals.begin(), totals.end(), max));
  size_t i = 0;
  for (;; ++i) {
    if (totals[i] == max && pick-- == 0) break;
  }
  return i;
}

void Scheduler::HandleFailureOnNode(QueuedPodInfo info, const Status& status,
                                    const std::string& node, const Found* found,
                                    const CycleState& state, SteadyTime start) {
  const std::optional<std::string> clear_nominated = "";
  if (!status.IsRejected()) {
    HandleFailure(std::move(info), status, nullptr, clear_nominated, found, state, start);
    return;
  }
  // As upstream: a rejection after the node was chosen reads as a one-node FitError.
  FitError fe{.num_all_nodes = 1};
  fe.diagnosis.node_to_status.statuses[node] = status;
  fe.diagnosis.AddPluginStatus(status);
  HandleFailure(std::move(info), Status(status.code(), {fe.Error()}), &fe.diagnosis,
                clear_nominated, found, state, start);
}

void Scheduler::HandleFailure(QueuedPodInfo info, const Status& status, const Diagnosis* diagnosis,
                              const std::optional<std::string>& nominated, const Found* found,
                              const CycleState& state, SteadyTime start) {
  std::shared_ptr<const api::Pod> pod = info.pod_info->pod;
  RecordAttempt(*pod, status.IsRejected() ? "unschedulable" : "error", start);
  const std::string reason = status.IsRejected() ? "Unschedulable" : "SchedulerError";
  const std::string message = status.Message();
  info.unschedulable_plugins.clear();
  info.pending_plugins.clear();
  if (diagnosis != nullptr) {
    info.unschedulable_plugins = diagnosis->unschedulable_plugins;
    info.pending_plugins = diagnosis->pending_plugins;
  }
  if (status.IsRejected()) {
    KLOG(2, "Unable to schedule pod; no fit; waiting", {"pod", PodKey(*pod)}, {"err", message});
  } else {
    KLOG_ERROR("Error scheduling pod; retrying", {"pod", PodKey(*pod)}, {"err", message});
  }
  Observe({.result = reason, .message = message, .diagnosis = diagnosis, .nominated = nominated},
          info, found);
  // Preemption's nomination (or its clearing) holds the room on the node for this pod.
  if (nominated) nominator_.AddNominatedPod(info.pod_info, *nominated);
  if (group_failure_) {
    // After a backoff, whatever the cluster does meanwhile, as upstream requeues a pod group.
    info.unschedulable_plugins.clear();
    info.pending_plugins.clear();
  }
  queue_->AddUnschedulableIfNotPresent(std::move(info));
  options_.writer->RecordEvent(*pod, "Warning", "FailedScheduling", "Scheduling",
                               TruncateEventMessage(message));
  api::PodCondition cond{.type = "PodScheduled",
                         .status = "False",
                         .reason = reason,
                         .message = message,
                         .last_transition_time = api::field::MetaTime(clock_->Now())};
  const bool set_nominated =
      nominated && (!nominated->empty() || !pod->status.nominated_node_name.empty());
  (void)options_.writer->UpdatePodStatus(*pod, cond, set_nominated ? &*nominated : nullptr);
  WriteSimulatorAnnotations(state, *pod);
}

const framework::SimulatorTrace* Scheduler::Trace(const CycleState& state) const {
  return options_.simulator_annotations ? state.Read(framework::kSimulatorTraceKey) : nullptr;
}

void Scheduler::WriteSimulatorAnnotations(const CycleState& state, const api::Pod& pod) {
  const framework::SimulatorTrace* trace = Trace(state);
  if (trace == nullptr) return;
  std::map<std::string, std::string> annotations = trace->Annotations();
  auto history = pod.metadata.annotations.find(framework::kSimulatorResultHistory);
  annotations[framework::kSimulatorResultHistory] = framework::AppendResultHistory(
      history == pod.metadata.annotations.end() ? "" : history->second, annotations);
  if (absl::Status st = options_.writer->PatchPodAnnotations(pod, annotations); !st.ok()) {
    KLOG_ERROR("Writing the simulator's annotations failed", {"pod", PodKey(pod)},
               {"err", std::string(st.message())});
  }
}

void Scheduler::Observe(Attempt a, const QueuedPodInfo& info, const Found* found) {
  if (options_.observers.empty()) return;
  a.pod = info.pod_info->pod;
  a.time = clock_->Now();
  a.attempts = info.attempts;
  if (found != nullptr) {
    // The snapshot is the scheduling thread's; the binding cycle considers one node.
    a.cluster_nodes = static_cast<int>(snapshot_.size());
    a.filtered = found->filtered;
    a.feasible = feasible_;
    a.scores = found->scores;
    a.victims = found->victims;
    a.pod_group = found->pod_group;
    a.group_reason = found->group_reason;
    a.group_message = found->group_message;
    a.placement = found->placement;
    a.placement_nodes = found->placement_nodes;
  } else {
    a.in_binding = true;
  }
  const framework::Framework* fw = FrameworkFor(a.pod->spec.scheduler_name);
  if (a.diagnosis != nullptr && fw != nullptr && !a.Scheduled()) {
    std::set<std::string, std::less<>> plugins = a.diagnosis->unschedulable_plugins;
    plugins.insert(a.diagnosis->pending_plugins.begin(), a.diagnosis->pending_plugins.end());
    for (const std::string& p : plugins) a.waiting_for.emplace_back(p, fw->RegisteredEvents(p));
  }
  for (AttemptObserver* o : options_.observers) o->Observe(a);
}

void Scheduler::StartBindingCycle(BindingCycle cycle) {
  // One chain of plugins either way (Framework::RunBindingPlugins): waited for on a binding thread
  // when Permit holds the pod or a plugin of the cycle blocks, otherwise started here and carried
  // on by each answer where it arrives.
  if (!cycle.async) {
    if (options_.binding_threads == 0) {
      std::shared_ptr<framework::WaitingPodImpl> wp =
          cycle.fw->WaitingPodOf(cycle.assumed->metadata.uid);
      if (wp != nullptr && !wp->Decided()) {
        parked_.push_back(std::move(cycle));
        return;
      }
    }
    // std::function needs a copyable callable: BindingCycle holds the state by shared_ptr.
    binding_.Run([this, cycle = std::move(cycle)]() mutable {
      binding_goroutines_->Add(1);
      framework::Framework& fw = *cycle.fw;
      Status s = fw.WaitOnPermit(*cycle.assumed);
      if (s.ok()) {
        s = fw.RunBindingPlugins(*cycle.state, *cycle.assumed, cycle.node,
                                 std::move(cycle.pre_bind_work));
      }
      FinishBindingCycle(std::move(cycle), std::move(s));
    });
    return;
  }
  binding_goroutines_->Add(1);
  binding_.Begin();  // WaitForBindings waits for the answer too.
  framework::Framework& fw = *cycle.fw;
  CycleState& state = *cycle.state;
  const api::Pod& pod = *cycle.assumed;
  const std::string node = cycle.node;
  framework::Framework::PreBindWork pre_bind_work = std::move(cycle.pre_bind_work);
  fw.RunBindingPluginsAsync(
      state, pod, node, std::move(pre_bind_work),
      [this, cycle = std::move(cycle)](Status s) mutable {
        {  // What the cycle holds goes before End: the scheduler may go once it is called.
          BindingCycle finishing = std::move(cycle);
          if (s.ok() && !finishing.fw->HasPostBindPlugins()) {
            FinishBindingCycle(std::move(finishing), std::move(s));
          } else {
            // PostBind plugins, and a failure's Unreserve plugins, may block: a binding thread.
            binding_.Run([this, finishing = std::move(finishing), s = std::move(s)]() mutable {
              FinishBindingCycle(std::move(finishing), std::move(s));
            });
          }
        }
        binding_.End();
      });
}

void Scheduler::FinishBindingCycle(BindingCycle cycle, Status s) {
  absl::Cleanup done = [this] { binding_goroutines_->Add(-1); };
  framework::Framework& fw = *cycle.fw;
  const api::Pod& assumed = *cycle.assumed;
  const std::string& node = cycle.node;
  const std::string uid = assumed.metadata.uid;
  if (s.IsSkip()) s = Status::Error("no bind plugin bound the pod");
  if (!s.ok()) {
    if (cycle.nominated) {
      // The pod as the API server has it now, so that the failure clears the nomination.
      auto pod = std::make_shared<api::Pod>(cycle.info.pod());
      pod->status.nominated_node_name = node;
      cycle.info.pod_info = PodInfo::Make(std::move(pod));
    }
    fw.RunReservePluginsUnreserve(*cycle.state, assumed, node);
    (void)cache_.ForgetPod(uid);
    MoveAll({EventResource::kAssignedPod, kDelete, "AssignedPodDelete"}, cycle.assumed, nullptr,
            nullptr, nullptr);
    HandleFailureOnNode(std::move(cycle.info), s, node, nullptr, *cycle.state, cycle.start);
    return;
  }
  WriteSimulatorAnnotations(*cycle.state, assumed);
  cache_.FinishBinding(uid, clock_->Now());
  RecordAttempt(assumed, "scheduled", cycle.start);
  const QueuedPodInfo& info = cycle.info;
  metrics_->pod_scheduling_attempts.With({})->Observe(info.attempts);
  metrics_->pod_scheduling_sli_duration
      .With({info.attempts >= 15 ? std::string("15+") : std::to_string(info.attempts)})
      ->Observe(absl::ToDoubleSeconds(clock_->Now() - info.initial_attempt_timestamp));
  KLOG(2, "Successfully bound pod to node", {"pod", PodKey(assumed)}, {"node", node});
  options_.writer->RecordEvent(
      assumed, "Normal", "Scheduled", "Binding",
      fmt::format("Successfully assigned {}/{} to {}", assumed.metadata.namespace_,
                  assumed.metadata.name, node));
  fw.RunPostBindPlugins(*cycle.state, assumed, node);
  queue_->Done(uid);
}

}  // namespace ksched::scheduler
