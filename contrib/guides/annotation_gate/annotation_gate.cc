#include "contrib/guides/annotation_gate/annotation_gate.h"

#include <utility>

#include "contrib/guides/annotation_key_args.h"
#include "fmt/format.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::guides::annotation_gate {

AnnotationGate::AnnotationGate(AnnotationGateArgs args)
    : args_(std::move(args)),
      reason_(fmt::format("pod has annotation {}, which this scheduler refuses",
                          args_.annotation_key)) {}

bool AnnotationGate::Carries(const api::Pod& pod) const {
  return pod.metadata.annotations.contains(args_.annotation_key);
}

Status AnnotationGate::PreFilter(CycleState&, const api::Pod& pod,
                                 const std::vector<const NodeInfo*>&, PreFilterResult*) {
  if (Carries(pod)) return Status::UnschedulableAndUnresolvable(reason_);
  return Status();
}

std::vector<ClusterEventWithHint> AnnotationGate::EventsToRegister() const {
  auto hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    if (e.new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
    const bool lifted = e.new_pod->metadata.uid == pod.metadata.uid && !Carries(*e.new_pod);
    return lifted ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  // An annotation change is UpdatePodOther, or UpdatePodLabel when the labels change with it.
  return {{{EventResource::kUnschedulablePod,
            ActionType::kUpdatePodOther | ActionType::kUpdatePodLabel},
           hint}};
}

// --- Args --------------------------------------------------------------------------------------

absl::StatusOr<AnnotationGateArgs> ParseAnnotationGateArgs(const nlohmann::json& args,
                                                           std::string_view path) {
  AnnotationGateArgs out;
  KSCHED_RETURN_IF_ERROR(DecodeAnnotationKeyArgs(args, path, &out.annotation_key));
  return out;
}

nlohmann::json AnnotationGateArgsToJson(const AnnotationGateArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "AnnotationGateArgs"},
          {kAnnotationKeyField, args.annotation_key}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const AnnotationGateArgs& args, Handle&) {
  return std::make_unique<AnnotationGate>(args);
}

}  // namespace ksched::guides::annotation_gate
