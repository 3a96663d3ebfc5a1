// InterPodAffinity: places pods by spec.affinity.podAffinity and podAntiAffinity, and keeps them
// away from existing pods whose required anti-affinity selects them (upstream's
// plugins/interpodaffinity).
//
// Args (InterPodAffinityArgs, args.h): hardPodAffinityWeight, the score weight of an existing
// pod's required affinity term that selects the incoming pod, and
// ignorePreferredTermsOfExistingPods.
//
// Terms are read as the API server left them: it has already merged matchLabelKeys and
// mismatchLabelKeys into each term's labelSelector when the pod was created (`ksched simulate`
// does the same when it admits a pod).
//
// Cost: PreFilter counts matching pods per topology domain in one pass over the nodes (only those
// with pods with required anti-affinity when the incoming pod has no required terms), so Filter
// is a few hash lookups per node. It matches classes of pods, not pods (helper::PodClasses): pods
// of one namespace with the same labels and terms are matched once per cycle, and each node adds
// its number of them. PreScore does the same for the preferred terms.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "src/plugins/helper/pod_classes.h"
#include "src/plugins/inter_pod_affinity/args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::inter_pod_affinity {

inline constexpr char kErrReasonExistingAntiAffinityRulesNotMatch[] =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr char kErrReasonAffinityRulesNotMatch[] = "node(s) didn't match pod affinity rules";
inline constexpr char kErrReasonAntiAffinityRulesNotMatch[] =
    "node(s) didn't match pod anti-affinity rules";

class InterPodAffinity final : public PreFilterPlugin,
                               public PreFilterExtensions,
                               public FilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin,
                               public ScoreExtensions,
                               public EnqueueExtensions,
                               public SignPlugin {
 public:
  InterPodAffinity(InterPodAffinityArgs args, Handle& handle) : args_(args), handle_(handle) {}

  std::string_view Name() const override { return names::kInterPodAffinity; }

  // Signs the labels (not with ignorePreferredTermsOfExistingPods); a pod with pod affinity or
  // anti-affinity is not signed.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Counts, per topology domain, the existing pods that the incoming pod's required affinity and
  // anti-affinity terms select, and the existing pods whose required anti-affinity selects the
  // incoming pod. Skip when the pod has no required terms and no existing pod's anti-affinity
  // selects it.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  // Preemption's what-if: the counts with `pod_to_add` on (or `pod_to_remove` off) `node`.
  Status AddPod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_add,
                const NodeInfo& node) override;
  Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_remove,
                   const NodeInfo& node) override;

  // In upstream's order: UnschedulableAndUnresolvable kErrReasonAffinityRulesNotMatch, then
  // Unschedulable kErrReasonAntiAffinityRulesNotMatch, then Unschedulable
  // kErrReasonExistingAntiAffinityRulesNotMatch.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Sums, per topology domain, the weights of the preferred terms (the pod's and the existing
  // pods') and of existing pods' required affinity (hardPodAffinityWeight) that match. Skip when
  // nothing matched anywhere.
  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;
  // The sum over the node's topology domains.
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  // Min-max to [0, 100], truncated, as upstream.
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;

  // Pod/Add|UpdatePodLabel|Delete and Node/Add|UpdateNodeLabel, with upstream's hints.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  InterPodAffinityArgs args_;
  Handle& handle_;
  helper::PodClasses classes_;  // PreFilter's and PreScore's, on the scheduling thread.
};

absl::StatusOr<std::unique_ptr<Plugin>> New(const InterPodAffinityArgs& args, Handle& handle);

}  // namespace ksched::plugins::inter_pod_affinity
