#include "contrib/guides/app_pinning/app_pinning.h"

#include <utility>

#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::guides::app_pinning {

std::optional<std::string_view> AppPinning::PodApp(const api::Pod& pod) const {
  auto it = pod.metadata.labels.find(args_.pod_label_key);
  if (it == pod.metadata.labels.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

bool AppPinning::Hosts(const api::Node& node, std::string_view app) const {
  auto it = node.metadata.labels.find(args_.node_label_key);
  return it != node.metadata.labels.end() && it->second == app;
}

Status AppPinning::PreFilter(CycleState&, const api::Pod& pod, const std::vector<const NodeInfo*>&,
                             PreFilterResult*) {
  return PodApp(pod) ? Status() : Status::Skip();
}

Status AppPinning::Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) {
  if (node.node() == nullptr) return Status::Error("node not found");
  std::optional<std::string_view> app = PodApp(pod);
  if (!app || Hosts(*node.node(), *app)) return Status();
  return Status::UnschedulableAndUnresolvable(
      fmt::format("node(s) didn't have label {}={}", args_.node_label_key, *app));
}

std::vector<ClusterEventWithHint> AppPinning::EventsToRegister() const {
  auto node_hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    std::optional<std::string_view> app = PodApp(pod);
    if (!app || e.new_node == nullptr) return QueueingHint::kQueue;  // Unexpected: retry.
    const bool pinned =
        Hosts(*e.new_node, *app) && (e.old_node == nullptr || !Hosts(*e.old_node, *app));
    return pinned ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  auto pod_hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    if (e.old_pod == nullptr || e.new_pod == nullptr) return QueueingHint::kQueue;
    if (e.new_pod->metadata.uid != pod.metadata.uid) return QueueingHint::kQueueSkip;
    return PodApp(*e.old_pod) != PodApp(*e.new_pod) ? QueueingHint::kQueue
                                                    : QueueingHint::kQueueSkip;
  };
  return {
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel}, node_hint},
      {{EventResource::kUnschedulablePod, ActionType::kUpdatePodLabel}, pod_hint},
  };
}

// --- Args --------------------------------------------------------------------------------------

namespace {

constexpr char kPodLabelKey[] = "podLabelKey";
constexpr char kNodeLabelKey[] = "nodeLabelKey";

}  // namespace

absl::StatusOr<AppPinningArgs> ParseAppPinningArgs(const nlohmann::json& args,
                                                   std::string_view path) {
  AppPinningArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(api::field::CheckObject(args, path, {kPodLabelKey, kNodeLabelKey}, true));
  KSCHED_RETURN_IF_ERROR(
      api::field::DecodeOptionalString(args, path, kPodLabelKey, &out.pod_label_key));
  KSCHED_RETURN_IF_ERROR(
      api::field::DecodeOptionalString(args, path, kNodeLabelKey, &out.node_label_key));
  api::field::ErrorList errs;
  api::field::ValidateLabelName(out.pod_label_key, api::field::Child(path, kPodLabelKey), errs);
  api::field::ValidateLabelName(out.node_label_key, api::field::Child(path, kNodeLabelKey), errs);
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json AppPinningArgsToJson(const AppPinningArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "AppPinningArgs"},
          {kPodLabelKey, args.pod_label_key},
          {kNodeLabelKey, args.node_label_key}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const AppPinningArgs& args, Handle&) {
  return std::make_unique<AppPinning>(args);
}

}  // namespace ksched::guides::app_pinning
