#include "contrib/guides/network_aware/network_aware.h"

#include <limits>
#include <utility>

#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::guides::network_aware {

namespace {

bool HasPair(const api::StringMap& map, const std::string& key, const std::string& value) {
  auto it = map.find(key);
  return it != map.end() && it->second == value;
}

}  // namespace

NetworkAware::NetworkAware(NetworkAwareArgs args)
    : args_(std::move(args)),
      reason_(fmt::format("node(s) didn't have label {}={}", args_.node_label_key,
                          args_.node_label_value)) {}

bool NetworkAware::Asks(const api::Pod& pod) const {
  return HasPair(pod.metadata.annotations, args_.annotation_key, args_.annotation_value);
}

bool NetworkAware::Offers(const api::Node& node) const {
  return HasPair(node.metadata.labels, args_.node_label_key, args_.node_label_value);
}

Status NetworkAware::Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) {
  if (node.node() == nullptr) return Status::Error("node not found");
  if (!Asks(pod) || Offers(*node.node())) return Status();
  return Status::UnschedulableAndUnresolvable(reason_);
}

Status NetworkAware::Score(const CycleState&, const api::Pod& pod, const NodeInfo& node,
                           int64_t* score) {
  if (node.node() == nullptr) return Status::Error("node not found");
  *score = Asks(pod) && Offers(*node.node()) ? args_.match_score : args_.other_score;
  return Status();
}

std::vector<ClusterEventWithHint> NetworkAware::EventsToRegister() const {
  auto node_hint = [this](const api::Pod&, const ClusterEventData& e) {
    if (e.new_node == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
    const bool gained = Offers(*e.new_node) && (e.old_node == nullptr || !Offers(*e.old_node));
    return gained ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  auto pod_hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    if (e.new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
    const bool stopped_asking = e.new_pod->metadata.uid == pod.metadata.uid && !Asks(*e.new_pod);
    return stopped_asking ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  // An annotation change is UpdatePodOther, or UpdatePodLabel when the labels change with it.
  return {
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel}, node_hint},
      {{EventResource::kUnschedulablePod,
        ActionType::kUpdatePodOther | ActionType::kUpdatePodLabel},
       pod_hint},
  };
}

// --- Args --------------------------------------------------------------------------------------

namespace {

constexpr char kAnnotationKey[] = "annotationKey";
constexpr char kAnnotationValue[] = "annotationValue";
constexpr char kNodeLabelKey[] = "nodeLabelKey";
constexpr char kNodeLabelValue[] = "nodeLabelValue";
constexpr char kMatchScore[] = "matchScore";
constexpr char kOtherScore[] = "otherScore";

void ValidateScore(int64_t score, std::string_view path, api::field::ErrorList& errs) {
  if (score < kMinNodeScore || score > kMaxNodeScore) {
    errs.Invalid(path, std::to_string(score),
                 fmt::format("not in valid range [{}, {}]", kMinNodeScore, kMaxNodeScore));
  }
}

}  // namespace

absl::StatusOr<NetworkAwareArgs> ParseNetworkAwareArgs(const nlohmann::json& args,
                                                       std::string_view path) {
  using api::field::Child;
  NetworkAwareArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(api::field::CheckObject(
      args, path,
      {kAnnotationKey, kAnnotationValue, kNodeLabelKey, kNodeLabelValue, kMatchScore, kOtherScore},
      true));
  for (auto [key, field] : {std::pair{kAnnotationKey, &out.annotation_key},
                            {kAnnotationValue, &out.annotation_value},
                            {kNodeLabelKey, &out.node_label_key},
                            {kNodeLabelValue, &out.node_label_value}}) {
    KSCHED_RETURN_IF_ERROR(api::field::DecodeOptionalString(args, path, key, field));
  }
  for (auto [key, field] :
       {std::pair{kMatchScore, &out.match_score}, {kOtherScore, &out.other_score}}) {
    KSCHED_RETURN_IF_ERROR(
        api::field::DecodeOptionalInt(args, path, key, std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max(), field));
  }
  api::field::ErrorList errs;
  api::field::ValidateLabelName(out.annotation_key, Child(path, kAnnotationKey), errs);
  api::field::ValidateLabelName(out.node_label_key, Child(path, kNodeLabelKey), errs);
  api::field::ValidateLabelValue(out.node_label_value, Child(path, kNodeLabelValue), errs);
  ValidateScore(out.match_score, Child(path, kMatchScore), errs);
  ValidateScore(out.other_score, Child(path, kOtherScore), errs);
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json NetworkAwareArgsToJson(const NetworkAwareArgs& args) {
  return {{"apiVersion", kArgsApiVersion},       {"kind", "NetworkAwareArgs"},
          {kAnnotationKey, args.annotation_key}, {kAnnotationValue, args.annotation_value},
          {kNodeLabelKey, args.node_label_key},  {kNodeLabelValue, args.node_label_value},
          {kMatchScore, args.match_score},       {kOtherScore, args.other_score}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const NetworkAwareArgs& args, Handle&) {
  return std::make_unique<NetworkAware>(args);
}

}  // namespace ksched::guides::network_aware
