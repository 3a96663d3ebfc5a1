// AnnotationGate: refuses to schedule a pod that carries an annotation (the PreFilter plugin of
// guide 002, "Implementing a Scheduler Framework Plugin", which rejects pods annotated
// mycompany.com/environment). The value does not matter; the key's presence does. Not in the
// default profile:
//
//   profiles:
//   - schedulerName: my-custom-scheduler
//     plugins: {multiPoint: {enabled: [{name: AnnotationGate}]}}
//     pluginConfig:                       # optional; this is the default
//     - name: AnnotationGate
//       args: {annotationKey: mycompany.com/environment}
//
// The pod stays pending with a FailedScheduling event that names the annotation; removing the
// annotation from the pod retries it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "contrib/guides/names.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"

namespace ksched::guides::annotation_gate {

// AnnotationGateArgs.
struct AnnotationGateArgs {
  std::string annotation_key = "mycompany.com/environment";
};

class AnnotationGate final : public PreFilterPlugin, public EnqueueExtensions {
 public:
  explicit AnnotationGate(AnnotationGateArgs args);

  std::string_view Name() const override { return names::kAnnotationGate; }

  // UnschedulableAndUnresolvable "pod has annotation <key>, which this scheduler refuses" when
  // the pod carries the annotation, whatever its value; success otherwise.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // UnschedulablePod/UpdatePodOther|UpdatePodLabel: Queue when the rejected pod itself lost the
  // annotation. No other event can change the verdict.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  bool Carries(const api::Pod& pod) const;

  AnnotationGateArgs args_;
  std::string reason_;  // Built once.
};

// Decodes {annotationKey}; left out (or null), it keeps the default. InvalidArgument names the
// field below `path`. Unknown fields are errors.
absl::StatusOr<AnnotationGateArgs> ParseAnnotationGateArgs(const nlohmann::json& args,
                                                           std::string_view path = "");
// The args as a v1 document, the default filled in.
nlohmann::json AnnotationGateArgsToJson(const AnnotationGateArgs& args);

absl::StatusOr<std::unique_ptr<Plugin>> New(const AnnotationGateArgs& args, Handle& handle);

}  // namespace ksched::guides::annotation_gate
