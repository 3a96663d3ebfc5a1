// The JSON of k8s.io/kube-scheduler/extender/v1, as kube-scheduler writes and reads it: its types
// have no JSON tags, so the fields are named as the Go fields ("Pod", "NodeNames", "Host",
// "NumPDBViolations"), nil pointers and maps are null, and an answer's fields are matched without
// regard to case, as Go's encoding/json matches them.
//
//   std::string body = wire::ExtenderArgs(pod, nodes, /*node_cache_capable=*/true);
//   // {"Pod":{...},"Nodes":null,"NodeNames":["n1","n2"]}
//   wire::FilterAnswer answer;
//   absl::Status s = wire::DecodeFilterResult(response_body, &answer);
//
// Thread safety: reentrant.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ksched/api/objects.h"
#include "ksched/extender.h"
#include "ksched/node_info.h"
#include "ksched/preemption.h"

namespace ksched::extender::wire {

// The object as it was decoded (Pod::json), an assumed pod with its node; one made in code,
// without JSON, as its name, namespace, UID, labels and annotations only.
std::string PodJson(const api::Pod& pod);
std::string NodeJson(const api::Node& node);

// ExtenderArgs: the pod, and the nodes whole (a v1.NodeList) or, node-cache-capable, by name.
std::string ExtenderArgs(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                         bool node_cache_capable);
// ExtenderPreemptionArgs: the pod, and the candidates' victims whole (NodeNameToVictims) or,
// node-cache-capable, by UID (NodeNameToMetaVictims).
std::string PreemptionArgs(const api::Pod& pod,
                           const std::map<std::string, preemption::Victims>& victims,
                           bool node_cache_capable);
// ExtenderBindingArgs.
std::string BindingArgs(const api::Pod& pod, std::string_view node);

// ExtenderFilterResult as sent: each list is nullopt where the answer had none (or null).
struct FilterAnswer {
  std::optional<std::vector<api::Node>> nodes;  // Nodes.items.
  std::optional<std::vector<std::string>> node_names;
  std::map<std::string, std::string> failed;
  std::map<std::string, std::string> failed_and_unresolvable;
  std::string error;
};
absl::Status DecodeFilterResult(std::string_view body, FilterAnswer* out);
// HostPriorityList.
absl::Status DecodeHostPriorityList(std::string_view body, std::vector<HostPriority>* out);
// ExtenderPreemptionResult: node → (victims' UIDs, NumPDBViolations).
struct MetaVictims {
  std::vector<std::string> uids;
  int64_t num_pdb_violations = 0;
};
absl::Status DecodePreemptionResult(std::string_view body, std::map<std::string, MetaVictims>* out);
// ExtenderBindingResult: its Error.
absl::Status DecodeBindingResult(std::string_view body, std::string* error);

}  // namespace ksched::extender::wire
