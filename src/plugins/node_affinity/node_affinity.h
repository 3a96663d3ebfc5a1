// NodeAffinity: places pods by spec.nodeSelector and spec.affinity.nodeAffinity, plus the
// affinity the profile adds to every pod (upstream's plugins/nodeaffinity).
//
// Args (NodeAffinityArgs, decoded once by ParseArgs), all optional:
//   {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {...},
//                      "preferredDuringSchedulingIgnoredDuringExecution": [...]}}
// The added required selector must match every node a pod lands on; the added preferred terms
// score every pod as if it had them.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/api/objects.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"
#include "src/plugins/names.h"

namespace ksched::plugins::node_affinity {

inline constexpr char kErrReasonPod[] = "node(s) didn't match Pod's node affinity/selector";
inline constexpr char kErrReasonEnforced[] =
    "node(s) didn't match scheduler-enforced node affinity";
inline constexpr char kErrReasonConflict[] = "pod affinity terms conflict";

class NodeAffinity final : public PreFilterPlugin,
                           public FilterPlugin,
                           public PreScorePlugin,
                           public ScorePlugin,
                           public ScoreExtensions,
                           public EnqueueExtensions,
                           public SignPlugin {
 public:
  // `added` is NodeAffinityArgs.addedAffinity, already validated.
  NodeAffinity(std::optional<api::NodeAffinity> added, const Handle& handle);

  std::string_view Name() const override { return names::kNodeAffinity; }

  // Signs the node affinity and the nodeSelector.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Skip when the pod has no nodeSelector and no required node affinity and no affinity was
  // added. When every required term names nodes with matchFields metadata.name In, narrows
  // `result` to the union of those names; UnschedulableAndUnresolvable kErrReasonConflict
  // when that union is empty.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // UnschedulableAndUnresolvable kErrReasonEnforced when the added required selector does not
  // match the node, else kErrReasonPod when the pod's nodeSelector or required terms do not.
  // PreFilter answers those for each value of the labels they name, over the snapshot's nodes;
  // Filter then reads a snapshot node's answer from its place (Snapshot::IndexOf).
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Skip when neither the pod nor the args have preferred terms.
  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;

  // The sum of the weights of the pod's and the added preferred terms that match the node.
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;

  // DefaultNormalizeScore, not reversed: the best node scores 100.
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;

  // Node/Add|UpdateNodeLabel: Queue when the node matches the added selector and the pod's
  // required affinity, and (for an update) did not match it before.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  bool MatchesAdded(const api::Node& node) const;

  const Handle& handle_;
  std::optional<api::NodeSelector> added_required_;
  std::vector<api::PreferredSchedulingTerm> added_preferred_;
};

// NodeAffinityArgs.
struct NodeAffinityArgs {
  std::optional<api::NodeAffinity> added_affinity;
  nlohmann::json added_affinity_doc;  // As written, for the effective configuration.
};

// Decodes and validates NodeAffinityArgs. InvalidArgument names the field, e.g.
// "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
// .matchExpressions[0].operator: Unsupported value: ...". `args` null means no args.
absl::StatusOr<NodeAffinityArgs> ParseArgs(const nlohmann::json& args, std::string_view path = "");
// The args as a v1 document.
nlohmann::json ArgsToJson(const NodeAffinityArgs& args);

absl::StatusOr<std::unique_ptr<Plugin>> New(const NodeAffinityArgs& args, Handle& handle);

}  // namespace ksched::plugins::node_affinity
