// What each scheduler decided for a pod, and how two decisions differ: the node (a tie in
// kube-scheduler's scores counts as a match, since it breaks ties at random), the PodScheduled
// status and message, the nominated node, and each plugin's score on each node.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace ksched::difftest {

// One scoring of a pod: plugin → node → weighted score, and node → total.
struct Scores {
  std::map<std::string, std::map<std::string, int64_t>> plugins;
  std::map<std::string, int64_t> totals;
  // A pod placed by OpportunisticBatching's hint is not scored: the totals of the last scoring
  // before it, which its hint came from (the nodes that tie there tie for it too).
  std::map<std::string, int64_t> hinted_from;
  bool hinted = false;  // The pod was placed by such a hint.
};

struct Outcome {
  std::string node;       // "" when not bound.
  std::string status;     // Scheduled, Unschedulable, SchedulingGated, Pending (no decision).
  std::string message;    // The PodScheduled condition's message when not bound.
  std::string nominated;  // status.nominatedNodeName.
  Scores scores;          // Empty when the pod was not scored (one node fit, or none).
  // The pods ("namespace/name") that scheduling this pod evicted (preemption's victims), sorted.
  std::vector<std::string> evicted;
  // A pod that preempted binds once its victims are gone. simulate runs to the end, and on a real
  // cluster the victims may go before the harness looks, so its first decision (Unschedulable,
  // nominated) may not be seen. This is set for a pod seen bound that evicted pods.
  bool placed_after_preemption = false;
  // The node its preemption chose, as its victims' "Preempted" events name it ("Preempted by pod
  // <uid> on node <node>", which both schedulers write); "" when unknown (simulate, no preemption).
  std::string preempted_on;
};

// The node a preemptor's preemption chose: the one its victims' events name, else the one it was
// seen nominated to, else (simulate, which runs on) the node it was seen bound to after evicting.
std::string PreemptionNode(const Outcome& o);

// The outcome a pod object from the API server shows; scores are not in it.
Outcome OutcomeOfPod(const nlohmann::json& pod);

// The outcome of one pod in `ksched simulate -o json --explain`'s output, with the simulation's
// evicted pods (its own victims, and those of `group`, its PodGroup's "namespace/name", if it
// has one); a Pending outcome if the pod is not there.
Outcome OutcomeInSimulation(const nlohmann::json& simulation, const std::string& ns,
                            const std::string& name, const std::string& group = "");

// The last scoring of each pod ("namespace/name") in a scheduler's log at -v 10: the lines
// "Plugin scored node for pod" and "Calculated node's final score for pod" that kube-scheduler
// and ksched both write.
std::map<std::string, Scores> ScoresInLog(std::string_view log);

// What ksched's messages say of what it cannot do yet: a known gap, not a difference.
inline constexpr std::string_view kUnsupported = "is not supported by ksched yet";

struct Mismatch {
  // placement, status, message, nominated, eviction, score; or, a known gap: unsupported (ksched
  // says it does not support a field yet).
  std::string kind;
  std::string detail;
};

// How `ksched` differs from `upstream`. A different node is a match when kube-scheduler scored
// ksched's node as high as its own choice. A pod that preempted (on either side) is compared by
// its preemption: the node it chose, the victims and the message of its first attempt; not by the
// node it binds to afterwards, which depends on the order in which the victims go (another node
// they free may fit before the nominated one: kube-scheduler itself does that, seed 32). A
// difference where ksched's message says it does not support a field yet is one mismatch of kind
// "unsupported", whatever else differs.
std::vector<Mismatch> Compare(const Outcome& upstream, const Outcome& ksched);

// Whether the nodes differ but kube-scheduler scored both the same (a tie it broke at random), in
// its scoring of the pod or, for a pod its OpportunisticBatching hinted, of the pod before.
bool IsTie(const Outcome& upstream, const Outcome& ksched);

// For the pods of one group given together and alike but for their names: whether `ksched` placed
// them on upstream's nodes but for a tie, i.e. on the same nodes (counted as a multiset), the
// first pod placed elsewhere having chosen among nodes kube-scheduler scored equal. Which of the
// alike pods took which node, and the scores that followed from it, then do not count.
bool IsGroupTie(const std::vector<const Outcome*>& upstream,
                const std::vector<const Outcome*>& ksched);

nlohmann::json ToJson(const Outcome& o);

}  // namespace ksched::difftest
