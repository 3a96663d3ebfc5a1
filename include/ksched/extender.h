// Extender: a scheduler extender as kube-scheduler calls one (upstream's fwk.Extender), which
// KubeSchedulerConfiguration's `extenders` configure: an HTTP service that filters and scores
// nodes, chooses among preemption candidates, and binds the pods whose resources it manages.
// ksched's HTTP client of them is src/scheduler/extender/; this interface is what the scheduler
// and the preemption Evaluator call (Handle::extenders()).
//
//   for (Extender* e : handle.extenders()) {
//     if (!e->SupportsPreemption() || !e->IsInterested(pod)) continue;
//     absl::Status s = e->ProcessPreemption(pod, &victims, handle.snapshot());
//     if (!s.ok() && !e->IsIgnorable()) return Status::Error(std::string(s.message()));
//   }
//
// Thread safety: Filter, Prioritize and ProcessPreemption run on the scheduling thread and block
// it until the extender answers or its timeout passes (as upstream's); Bind answers on another
// thread. The other methods are safe from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ksched/api/objects.h"
#include "ksched/node_info.h"
#include "ksched/preemption.h"
#include "ksched/snapshot.h"

namespace ksched {

// What an extender's filter verb said (upstream's ExtenderFilterResult, resolved to nodes).
struct ExtenderFilterResult {
  // The nodes that pass, a subset of those asked about (in the extender's order).
  std::vector<const NodeInfo*> nodes;
  // NodeInfos of nodes the extender sent back whole (one that is not node-cache-capable): as
  // upstream's, each holds the node as sent, but no pod and no image, and `nodes` points into
  // them.
  std::vector<std::shared_ptr<const NodeInfo>> made;
  // Node → why it does not fit: Unschedulable, and UnschedulableAndUnresolvable (preemption does
  // not help there), which wins where a node is in both.
  std::map<std::string, std::string> failed;
  std::map<std::string, std::string> failed_and_unresolvable;
};

// One node's score from an extender's prioritize verb, in [0, kMaxExtenderPriority] by contract.
struct HostPriority {
  std::string host;
  int64_t score = 0;
};

// What a pod's unschedulable plugins name when extenders rejected nodes for it: it is tried again
// on every cluster event, as upstream's "Extender".
inline constexpr char kExtenderName[] = "Extender";

// The range an extender scores in; the scheduler scales its scores by weight * (100 / 10).
inline constexpr int64_t kMaxExtenderPriority = 10;

class Extender {
 public:
  virtual ~Extender() = default;

  // The extender's urlPrefix: how logs, metrics and explanations name it.
  virtual const std::string& Name() const = 0;
  // Whether the scheduling goes on without it when it cannot be reached or fails (`ignorable`).
  virtual bool IsIgnorable() const = 0;
  virtual bool IsFilter() const = 0;
  virtual bool IsPrioritizer() const = 0;
  virtual bool IsBinder() const = 0;
  virtual bool SupportsPreemption() const = 0;
  virtual int64_t weight() const = 0;
  // Whether it is asked about this pod: always, or, with managedResources, when a container or
  // an init container requests or limits one of them.
  virtual bool IsInterested(const api::Pod& pod) const = 0;

  // The nodes of `nodes` where the pod may go, and why the others may not. An error is the
  // extender's failure (no answer, a status other than 200, an answer that cannot be read, its
  // own `Error`).
  virtual absl::Status Filter(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                              ExtenderFilterResult* out) = 0;
  // Its scores of `nodes`, unscaled.
  virtual absl::Status Prioritize(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                                  std::vector<HostPriority>* out) = 0;
  // Its choice among the preemption candidates `victims` (node → victims), which it replaces: the
  // nodes it keeps, each with the victims it names (pods of that node in `snapshot`).
  virtual absl::Status ProcessPreemption(const api::Pod& pod,
                                         std::map<std::string, preemption::Victims>* victims,
                                         const Snapshot& snapshot) = 0;
  // Binds the pod to `node` through the extender; `done` runs on another thread with its answer.
  virtual void Bind(const api::Pod& pod, const std::string& node,
                    std::function<void(absl::Status)> done) = 0;
};

}  // namespace ksched
