// Preemption as upstream's framework/preemption: an Evaluator runs the whole preemption of a
// PostFilter plugin (who may preempt, the search for candidate nodes, the choice among them, and
// the evictions off the scheduling thread), and asks an Interface, the plugin, for its own
// decisions. DefaultPreemption is one such plugin; an out-of-tree PostFilter that preempts by other
// rules implements the Interface and reuses the Evaluator.
//
//   class MyPreemption final : public PreEnqueuePlugin, public PostFilterPlugin,
//                              public EnqueueExtensions, public preemption::Interface {
//    public:
//     explicit MyPreemption(Handle& h) : handle_(h), evaluator_("MyPreemption", h, *this) {}
//     Status PreEnqueue(const api::Pod& pod) override { return evaluator_.PreEnqueue(pod); }
//     std::vector<ClusterEventWithHint> EventsToRegister() const override {
//       return evaluator_.EventsToRegister();
//     }
//     Status PostFilter(CycleState& s, const api::Pod& pod, const NodeToStatus& filtered,
//                       PostFilterResult* result) override {
//       handle_.metrics().PreemptionAttempted();
//       return evaluator_.Preempt(s, pod, filtered, result);
//     }
//     // Interface: GetOffsetAndNumCandidates, PodEligibleToPreemptOthers, SelectVictimsOnNode,
//     // and, to choose among candidates by its own criteria, OrderedScoreFuncs.
//    private:
//     Handle& handle_;
//     preemption::Evaluator evaluator_;
//   };
//
// The choice among candidates is upstream's pickOneNodeForPreemption (PickOneNodeForPreemption),
// by the Interface's OrderedScoreFuncs or, where it gives none, upstream's criteria.
// The evictions are upstream's, with SchedulerAsyncPreemption on: the pod is nominated at once and
// its victims are evicted through Handle::RunAsync, each one getting the condition
// DisruptionTarget (reason PreemptionByScheduler), a deletion with its UID as a precondition and a
// Preempted event, or, when it waits at Permit, a rejection there. Lower-priority pods nominated
// to the node lose their nomination. Until the evictions are done, Evaluator::PreEnqueue holds the
// pod back with kWaitingForPreemption.
//
// Thread safety: the Evaluator's methods run on the scheduling thread, as the plugin's PreEnqueue
// and PostFilter do; its evictions run where Handle::RunAsync runs them. The Interface's methods
// are called on the scheduling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "ksched/api/objects.h"
#include "ksched/cycle_state.h"
#include "ksched/handle.h"
#include "ksched/node_info.h"
#include "ksched/plugin.h"
#include "ksched/pod_groups.h"
#include "ksched/status.h"

namespace ksched::preemption {

// Upstream's messages, after "preemption: " in the pod's condition.
inline constexpr char kNoVictimsFound[] = "No preemption victims found for incoming pod";
inline constexpr char kNotHelpful[] = "Preemption is not helpful for scheduling";
inline constexpr char kWaitingForPreemption[] =
    "waiting for the preemption for this pod to be finished";
inline constexpr char kWaitingForPodGroupPreemption[] =
    "waiting for the preemption for this pod group to be finished";

using PodDisruptionBudgets = std::vector<std::shared_ptr<const api::PodDisruptionBudget>>;

// The victims of one candidate node, most important first, and how many of them a
// PodDisruptionBudget protects.
struct Victims {
  std::vector<std::shared_ptr<const PodInfo>> pods;
  int64_t num_pdb_violations = 0;
};

struct Candidate {
  std::string node;
  Victims victims;
};

// How much a candidate is preferred: the higher, the more.
using CandidateScore = std::function<int64_t(const Candidate&)>;

// A preemption plugin's own decisions (upstream's preemption.Interface).
class Interface {
 public:
  // Where among `num_potential` potential nodes the search starts (in [0, num_potential)), and how
  // many candidates it looks for before choosing.
  virtual std::pair<int32_t, int32_t> GetOffsetAndNumCandidates(int32_t num_potential) = 0;
  // Whether `pod` may preempt; when not, `*reason` says why ("not eligible due to ...").
  // `filtered` is the scheduling cycle's verdict for every node.
  virtual bool PodEligibleToPreemptOthers(const api::Pod& pod, const NodeToStatus& filtered,
                                          std::string* reason) const = 0;
  // The victims on `node` whose eviction makes `pod` fit. `node` and `state` are copies, which the
  // plugin changes as it tries evictions: remove a pod with NodeInfo::RemovePod and
  // Handle::RunPreFilterExtensionRemovePod, test with Handle::RunFilterPluginsWithNominatedPods.
  // Success with no victims, or any rejection, makes the node no candidate; its status is kept
  // for the message.
  virtual Status SelectVictimsOnNode(CycleState& state, const api::Pod& pod, NodeInfo& node,
                                     const PodDisruptionBudgets& pdbs, Victims* victims) const = 0;
  // The scores that choose among two or more `candidates`, in order (upstream's
  // OrderedScoreFuncs): each keeps the candidates it scores highest, the next one breaks their
  // tie, and the first candidate left wins. None, as by default: upstream's criteria
  // (PickOneNodeForPreemption's). The Evaluator calls the scores at once, on these candidates.
  virtual std::vector<CandidateScore> OrderedScoreFuncs(
      const std::vector<Candidate>& candidates) const {
    (void)candidates;
    return {};
  }

 protected:
  ~Interface() = default;
};

class Evaluator {
 public:
  // `plugin` names the rejections of victims waiting at Permit. `handle` and `policy` outlive
  // the Evaluator.
  Evaluator(std::string_view plugin, Handle& handle, Interface& policy);
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // The PostFilter of a preemption plugin (upstream's Evaluator.Preempt). Success with
  // result->nominated_node_name set when victims are being evicted; Unschedulable with
  // "preemption: ..." otherwise: nominated_node_name "" when no candidate was found, which clears
  // an earlier nomination, and left unset when the pod may not preempt at all.
  Status Preempt(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                 PostFilterResult* result);

  // The PreEnqueue of a preemption plugin: UnschedulableAndUnresolvable kWaitingForPreemption
  // while the pod's evictions run, and after they are answered until the scheduler sees the last
  // victim terminating or gone (upstream's IsPodRunningPreemption, which reads its informer; on a
  // busy API server the watch may show the deletion later, and a pod tried meanwhile would find
  // its victims still there and preempt again). A pod held back is activated when its evictions
  // end if the victims are gone by then, as no event is left to move it; a pod whose eviction
  // failed is activated to try again.
  Status PreEnqueue(const api::Pod& pod);

  // The events of a preemption plugin: Pod/Delete, with a hint that queues a pod held back by
  // PreEnqueue when the deleted pod is the last victim of its own preemption, and skips otherwise
  // (the plugins that rejected the pod decide whether other deletions help it). Upstream's hint
  // always skips: there, a pod held back while the deletions of the victims that were in its way
  // were watched, its last victim's deletion helping none of the plugins that rejected it, waits
  // until something else moves it (kubernetes/kubernetes#141694).
  std::vector<ClusterEventWithHint> EventsToRegister() const;

  // Evicts `victims` for a PodGroup whose pending `pods` the scheduler's pod group cycle placed
  // with them gone (upstream's actuatePodGroupPreemption): as Preempt evicts, but the victims'
  // events name the PodGroup ("Preempted by podgroup <uid> on node cluster"), and PreEnqueue holds
  // back the group's pods with kWaitingForPodGroupPreemption while they go.
  void PreemptForPodGroup(const api::PodGroup& group,
                          std::vector<std::shared_ptr<const api::Pod>> pods,
                          const Victims& victims);

  // The candidates among the `potential` nodes, those free of PDB violations first, and the
  // status of every potential node that is none (upstream's DryRunPreemption).
  std::vector<Candidate> FindCandidates(const CycleState& state, const api::Pod& pod,
                                        const std::vector<const NodeInfo*>& potential,
                                        NodeToStatus* statuses);

 private:
  // The extenders that support preemption, in turn, keep the candidates they agree with, with
  // the victims they name (upstream's callExtenders); an error of one that is not ignorable is
  // the preemption's.
  Status AskExtenders(const api::Pod& pod, std::vector<Candidate>* candidates);
  // A pod whose evictions run, or were answered while the scheduler still had its last victim:
  // the UID of the last victim once its eviction starts (upstream's lastVictimsPendingPreemption),
  // whether PreEnqueue held the pod back meanwhile, and whether the evictions were answered.
  struct Preempting {
    std::string last_victim;
    bool held = false;
    bool answered = false;
  };
  // Who preempts (upstream's ExecutorPreemptor): a pod, or a PodGroup for its pods.
  struct Preemptor {
    std::string type;  // "pod" or "podgroup", in the victims' events and conditions.
    std::string key;   // preempting_'s: the pod's UID, or the PodGroup's (KeyOf).
    std::string uid;   // The pod's or the PodGroup's, in the victims' events.
    std::string name;  // namespace/name, for the log.
    std::string scheduler_name;
    int32_t priority = 0;
    std::vector<std::shared_ptr<const api::Pod>> pods;  // Activated when the evictions fail.
  };
  // preempting_'s key for `pod`, and what PreEnqueue says while it is there: its PodGroup's when
  // it names one the scheduler knows (upstream with GenericWorkload), else its own UID.
  std::pair<std::string, const char*> KeyOf(const api::Pod& pod) const;
  // Clears the nominations of lower-priority pods nominated to the node, then evicts the victims,
  // the last one once the preemptor is marked as finishing (upstream's prepareCandidateAsync).
  void EvictAsync(std::shared_ptr<const Preemptor> p, const std::string& node,
                  const Victims& victims);
  // Evicts one victim (upstream's PreemptPod).
  absl::Status Evict(const Preemptor& p, const std::string& node, const api::Pod& victim);
  // Whether the scheduler has seen the victim terminate or go.
  bool VictimGone(const std::string& uid) const;

  const std::string plugin_;
  Handle& handle_;
  Interface& policy_;
  mutable absl::Mutex mu_;
  // By Preemptor::key.
  absl::flat_hash_map<std::string, Preempting> preempting_ ABSL_GUARDED_BY(mu_);
};

// A preemption plugin that also evicts for a pod group (DefaultPreemption): the scheduler's pod
// group cycle chooses the victims (upstream's PodGroupEvaluator) and hands them over.
class PodGroupPreemptionPlugin : public virtual Plugin {
 public:
  virtual void PreemptForPodGroup(const api::PodGroup& group,
                                  std::vector<std::shared_ptr<const api::Pod>> pods,
                                  const Victims& victims) = 0;
};

// Picks the node to preempt on (upstream's pickOneNodeForPreemption): by `scores` in order, each
// keeping the candidates it scores highest; with no scores, by upstream's criteria: the fewest PDB
// violations, then the lowest highest victim priority, the lowest sum of priorities, the fewest
// victims, and the latest start time of the most important victims. The first of the candidates
// that tie on all of them; nullptr when there are none.
const Candidate* PickOneNodeForPreemption(const std::vector<Candidate>& candidates,
                                          const std::vector<CandidateScore>& scores = {});

// When the pod started, as RFC 3339 that sorts by time (upstream's GetPodStartTime): a pod that
// has not started counts as started now, after all others.
std::string_view StartTime(const api::Pod& pod);

// Upstream's MoreImportantPod: higher priority, then the earlier start time (a pod that has not
// started counts as started after all others).
bool MoreImportantPod(const api::Pod& a, const api::Pod& b);

// Whether the pod is terminating because a scheduler preempted it (condition DisruptionTarget,
// reason PreemptionByScheduler).
bool TerminatingByPreemption(const api::Pod& pod);

// --- Victims as units (upstream's Victim, with GenericWorkload): a pod, or every scheduled pod of
// a PodGroup disrupted as a whole (disruptionMode all), wherever they run, evicted together or not
// at all. Without GenericWorkload (`groups` null below) each pod is its own victim, of its own
// priority, and these give what the pod-by-pod functions above give.

// A pod's priority as a victim (upstream's GetPodPriority): its PodGroup's (spec.priority, 0 when
// unset) when it names one that `groups` has, else its own.
int32_t VictimPriority(const api::Pod& pod, const PodGroupLister* groups);

struct Victim {
  std::vector<std::shared_ptr<const PodInfo>> pods;
  int32_t priority = 0;  // VictimPriority of its (first) pod.
  // 2 for a PodGroup's pod or pods (any pod that names a group, with `groups`), 1 for a pod of
  // none: upstream's key type.
  int rank = 1;
  std::string_view earliest_start;  // The earliest StartTime of its pods.
  int violations = 0;               // Its pods a PodDisruptionBudget protects (SplitVictimsByPdb).
};

// The pods of each PodGroup disrupted as a whole among `nodes`, in their order, by
// "namespace/name".
using WholeGroups = absl::flat_hash_map<std::string, std::vector<std::shared_ptr<const PodInfo>>>;
WholeGroups FindWholeGroups(const std::vector<const NodeInfo*>& nodes,
                            const PodGroupLister& groups);

// The victims the pods of `nodes` make, in their order (upstream's getCrossNodesVictims): a pod of
// a PodGroup disrupted as a whole makes, where the first of them is met, one victim of all the
// group's pods in `whole` (a pod whose group `whole` lacks is its own victim), or, with `whole`
// null, of the group's pods among `nodes` (when they are the whole cluster); any other pod is its
// own victim. Each pod's PodGroup is looked up once.
std::vector<Victim> VictimsOf(const std::vector<const NodeInfo*>& nodes,
                              const PodGroupLister* groups, const WholeGroups* whole);

// Upstream's MoreImportantVictim: higher priority, then a PodGroup's before a pod's, then more
// pods, then the one that started earlier.
bool MoreImportantVictim(const Victim& a, const Victim& b);

// Sets each victim's `violations` (upstream's FilterVictimsWithPDBViolation): its pods whose
// eviction would exceed a budget's allowed disruptions, counting the pods of the victims before it
// (`victims` most important first); a victim with any is protected as a whole.
void SplitVictimsByPdb(std::vector<Victim>& victims, const PodDisruptionBudgets& pdbs);

// Splits `pods` (most important first) into those whose eviction would exceed a budget's allowed
// disruptions, counting the pods before them, and the others (upstream's
// filterPodsWithPDBViolation). As upstream's preemption, a budget with an absent or empty selector
// protects no pod.
void SplitByPdbViolation(const std::vector<std::shared_ptr<const PodInfo>>& pods,
                         const PodDisruptionBudgets& pdbs,
                         std::vector<std::shared_ptr<const PodInfo>>* violating,
                         std::vector<std::shared_ptr<const PodInfo>>* non_violating);

}  // namespace ksched::preemption
