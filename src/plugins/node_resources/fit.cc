#include "src/plugins/node_resources/fit.h"

#include <utility>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/api/resources.h"
#include "src/plugins/helper/dra_extended.h"
#include "src/plugins/helper/signers.h"
#include "src/plugins/node_resources/scoring_strategy.h"

namespace ksched::plugins::node_resources {
namespace {

struct PreFilterState : StateData {
  Resource request;
  std::vector<std::string> dra_backed;  // DraBacked's.
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};
constexpr StateKey<PreFilterState> kPreFilterStateKey{"PreFilterNodeResourcesFit",
                                                      StateScope::kSchedulingCycle};

struct PreScoreState : StateData {
  std::vector<int64_t> pod_requests;  // Indexed like the scoring strategy's resources.
  std::shared_ptr<const helper::DraResourceCounter> dra;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};
constexpr StateKey<PreScoreState> kPreScoreStateKey{"PreScoreNodeResourcesFit",
                                                    StateScope::kSchedulingCycle};

// What Filter checks: upstream's computePodResourceRequest (no non-zero defaults).
Resource RequestOf(const api::Pod& pod) { return Resource::FromList(api::PodRequests(pod)); }

bool RequestsNothing(const Resource& r) {
  return r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalar.empty();
}

bool IsIgnored(std::string_view name, const IgnoredResources& ignored) {
  // Upstream ignores only extended resources; the sets first, the name's check only on a match.
  return (ignored.names.contains(name) ||
          ignored.groups.contains(name.substr(0, name.find('/')))) &&
         IsExtendedResourceName(name);
}

// Appends the failure of one resource when `request` does not fit into allocatable - used.
void CheckResource(std::string_view name, int64_t request, int64_t allocatable, int64_t used,
                   std::vector<InsufficientResource>& out) {
  if (request <= allocatable - used) return;
  out.push_back({.resource = std::string(name),
                 .reason = fmt::format("Insufficient {}", name),
                 .requested = request,
                 .used = used,
                 .capacity = allocatable,
                 .unresolvable = request > allocatable});
}

// FitsRequest(...).empty() without building the failure list: Filter runs this per node, and the
// list is needed only when a node is rejected.
bool Fits(const Resource& request, const Resource& allocatable, const Resource& used,
          size_t num_pods, const IgnoredResources& ignored) {
  if (static_cast<int64_t>(num_pods) + 1 > allocatable.allowed_pod_number) return false;
  if (request.milli_cpu > 0 && request.milli_cpu > allocatable.milli_cpu - used.milli_cpu) {
    return false;
  }
  if (request.memory > 0 && request.memory > allocatable.memory - used.memory) return false;
  if (request.ephemeral_storage > 0 &&
      request.ephemeral_storage > allocatable.ephemeral_storage - used.ephemeral_storage) {
    return false;
  }
  return request.scalar.empty() ||
         FitsRequest(request, allocatable, used, num_pods, ignored).empty();
}

ResourceAllocationScorer MakeScorer(const ScoringStrategy& strategy) {
  ResourceScorerFn fn;
  switch (strategy.type) {
    case ScoringStrategyType::kLeastAllocated:
      fn = LeastAllocatedScorer(strategy.resources);
      break;
    case ScoringStrategyType::kMostAllocated:
      fn = MostAllocatedScorer(strategy.resources);
      break;
    case ScoringStrategyType::kRequestedToCapacityRatio:
      fn = RequestedToCapacityRatioScorer(strategy.resources, strategy.shape);
      break;
  }
  // Upstream builds Fit's scorer without the PodLevelResources gate: pod-level requests do not
  // count when scoring, only when filtering.
  return ResourceAllocationScorer(
      strategy.resources, {.use_requested = false, .pod_level_resources = false}, std::move(fn));
}

// Whether a scale-down of `modified` (an assigned pod) freed a resource `target` requests.
bool ScaleDownFreesRequested(const api::Pod& target, const api::Pod& original,
                             const api::Pod& modified) {
  if (modified.metadata.uid == target.metadata.uid) return true;
  if (modified.spec.node_name.empty()) return false;
  const Resource before = RequestOf(original), after = RequestOf(modified);
  for (const auto& [name, q] : api::PodRequests(target)) {
    if (q.IsZero()) continue;
    if (name == api::kResourceCPU && before.milli_cpu > after.milli_cpu) return true;
    if (name == api::kResourceMemory && before.memory > after.memory) return true;
    if (name == api::kResourceEphemeralStorage &&
        before.ephemeral_storage > after.ephemeral_storage) {
      return true;
    }
    if (IsScalarResourceName(name) && before.Get(name) > after.Get(name)) return true;
  }
  return false;
}

QueueingHint IsSchedulableAfterPodEvent(const api::Pod& pod, const ClusterEventData& e) {
  if (e.old_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
  if (e.new_pod == nullptr) {                             // Deleted.
    const bool held_resources =
        !e.old_pod->spec.node_name.empty() || !e.old_pod->status.nominated_node_name.empty();
    return held_resources ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  return ScaleDownFreesRequested(pod, *e.old_pod, *e.new_pod) ? QueueingHint::kQueue
                                                              : QueueingHint::kQueueSkip;
}

// Whether the allowed pod count, or the allocatable of a resource the pod requests, grew.
bool AnyRequestedResourceIncreased(const Resource& request, const Resource& before,
                                   const Resource& after) {
  if (after.allowed_pod_number > before.allowed_pod_number) return true;
  if (RequestsNothing(request)) return false;
  if ((request.milli_cpu > 0 && after.milli_cpu > before.milli_cpu) ||
      (request.memory > 0 && after.memory > before.memory) ||
      (request.ephemeral_storage > 0 && after.ephemeral_storage > before.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, q] : request.scalar) {
    if (q != 0 && after.Get(name) > before.Get(name)) return true;
  }
  return false;
}

QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod, const ClusterEventData& e,
                                          const DraLister* dra) {
  if (e.new_node == nullptr) return QueueingHint::kQueueSkip;
  const Resource after = Resource::FromList(e.new_node->status.allocatable);
  const std::vector<std::string> backed = helper::DraBacked(pod, dra);
  const Resource request = WithoutDraBacked(RequestOf(pod), backed, after);
  // Not even an empty node of this shape fits the pod (ignored resources are not ignored here).
  if (!FitsRequest(request, after, Resource{}, 0, IgnoredResources{}).empty()) {
    return QueueingHint::kQueueSkip;
  }
  if (e.old_node == nullptr) return QueueingHint::kQueue;
  // A DRA-backed resource the node's devices serve: the devices may have changed.
  if (std::any_of(backed.begin(), backed.end(),
                  [&](const std::string& name) { return after.Get(name) == 0; })) {
    return QueueingHint::kQueue;
  }
  const Resource before = Resource::FromList(e.old_node->status.allocatable);
  return AnyRequestedResourceIncreased(request, before, after) ? QueueingHint::kQueue
                                                               : QueueingHint::kQueueSkip;
}

// A class added that backs a resource the pod requests by the class's own name, or a class whose
// extendedResourceName changed to one the pod requests (upstream's
// isSchedulableAfterDeviceClassEvent).
QueueingHint IsSchedulableAfterDeviceClassEvent(const api::Pod& pod, const ClusterEventData& e) {
  const api::DeviceClass* old_class = e.storage.device_class.old_obj;
  const api::DeviceClass* now = e.storage.device_class.new_obj;
  if (now == nullptr) return QueueingHint::kQueueSkip;
  if (old_class != nullptr && old_class->extended_resource_name == now->extended_resource_name) {
    return QueueingHint::kQueueSkip;
  }
  const api::ResourceList requests = api::PodRequests(pod);
  auto requested = [&](std::string_view name) {
    auto it = requests.find(name);
    return it != requests.end() && !it->second.IsZero();
  };
  if (old_class == nullptr &&
      requested(std::string(kDeviceClassResourcePrefix) + now->metadata.name)) {
    return QueueingHint::kQueue;
  }
  if (now->extended_resource_name && requested(*now->extended_resource_name)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace

std::vector<InsufficientResource> FitsRequest(const Resource& request, const Resource& allocatable,
                                              const Resource& used, size_t num_pods,
                                              const IgnoredResources& ignored) {
  std::vector<InsufficientResource> out;
  if (static_cast<int64_t>(num_pods) + 1 > allocatable.allowed_pod_number) {
    out.push_back({.resource = api::kResourcePods,
                   .reason = "Too many pods",
                   .requested = 1,
                   .used = static_cast<int64_t>(num_pods),
                   .capacity = allocatable.allowed_pod_number});
  }
  if (RequestsNothing(request)) return out;
  if (request.milli_cpu > 0) {
    CheckResource(api::kResourceCPU, request.milli_cpu, allocatable.milli_cpu, used.milli_cpu, out);
  }
  if (request.memory > 0) {
    CheckResource(api::kResourceMemory, request.memory, allocatable.memory, used.memory, out);
  }
  if (request.ephemeral_storage > 0) {
    CheckResource(api::kResourceEphemeralStorage, request.ephemeral_storage,
                  allocatable.ephemeral_storage, used.ephemeral_storage, out);
  }
  // Upstream walks a Go map here (random order); the name order keeps messages stable.
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity == 0 || IsIgnored(name, ignored)) continue;
    CheckResource(name, quantity, allocatable.Get(name), used.Get(name), out);
  }
  return out;
}

Resource WithoutDraBacked(Resource request, const std::vector<std::string>& backed,
                          const Resource& allocatable) {
  for (const std::string& name : backed) {
    if (allocatable.Get(name) == 0) request.scalar.erase(name);
  }
  return request;
}

Fit::Fit(FitArgs args, const DraLister* dra)
    : scorer_(MakeScorer(args.scoring_strategy)),
      placement_scorer_(args.scoring_strategy.resources, {.use_requested = false},
                        MostAllocatedScorer(args.scoring_strategy.resources)),
      dra_(dra) {
  ignored_.names.insert(args.ignored_resources.begin(), args.ignored_resources.end());
  ignored_.groups.insert(args.ignored_resource_groups.begin(), args.ignored_resource_groups.end());
  for (std::string_view resource :
       {api::kResourceCPU, api::kResourceMemory, api::kResourceEphemeralStorage}) {
    const std::string reason = fmt::format("Insufficient {}", resource);
    common_rejections_[0].emplace(reason, Status::Unschedulable(reason).WithPlugin(Name()));
    common_rejections_[1].emplace(reason,
                                  Status::UnschedulableAndUnresolvable(reason).WithPlugin(Name()));
  }
  common_rejections_[0].emplace("Too many pods",
                                Status::Unschedulable("Too many pods").WithPlugin(Name()));
}

Status Fit::PreFilter(CycleState& state, const api::Pod& pod, const std::vector<const NodeInfo*>&,
                      PreFilterResult*) {
  auto s = std::make_unique<PreFilterState>();
  s->request = RequestOf(pod);
  if (!s->request.scalar.empty()) s->dra_backed = helper::DraBacked(pod, dra_);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status();
}

Status Fit::Filter(const CycleState& state, const api::Pod&, const NodeInfo& node) {
  const PreFilterState* s = state.Read(kPreFilterStateKey);
  if (s == nullptr) {
    return Status::Error(R"(error reading "PreFilterNodeResourcesFit" from cycleState: not found)");
  }
  // DRA-backed resources the node does not advertise are DynamicResources' to find.
  std::optional<Resource> own;
  if (!s->dra_backed.empty()) own = WithoutDraBacked(s->request, s->dra_backed, node.allocatable());
  const Resource& request = own ? *own : s->request;
  if (Fits(request, node.allocatable(), node.requested(), node.pods().size(), ignored_)) {
    return Status();
  }
  std::vector<InsufficientResource> failures =
      FitsRequest(request, node.allocatable(), node.requested(), node.pods().size(), ignored_);
  if (failures.empty()) return Status();
  if (failures.size() == 1) {
    const auto& common = common_rejections_[failures[0].unresolvable ? 1 : 0];
    if (auto it = common.find(failures[0].reason); it != common.end()) return it->second;
  }
  Code code = Code::kUnschedulable;
  std::vector<std::string> reasons;
  for (InsufficientResource& f : failures) {
    if (f.unresolvable) code = Code::kUnschedulableAndUnresolvable;
    reasons.push_back(std::move(f.reason));
  }
  return Status(code, std::move(reasons));
}

std::vector<ClusterEventWithHint> Fit::EventsToRegister() const {
  std::vector<ClusterEventWithHint> events = {
      {{EventResource::kPod, ActionType::kDelete | ActionType::kUpdatePodScaleDown},
       &IsSchedulableAfterPodEvent},
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeAllocatable},
       [dra = dra_](const api::Pod& pod, const ClusterEventData& e) {
         return IsSchedulableAfterNodeChange(pod, e, dra);
       }},
  };
  if (dra_ != nullptr) {
    events.push_back({{EventResource::kDeviceClass, ActionType::kAdd | ActionType::kUpdate},
                      &IsSchedulableAfterDeviceClassEvent});
  }
  return events;
}

Status Fit::PreScore(CycleState& state, const api::Pod& pod, const std::vector<const NodeInfo*>&) {
  auto s = std::make_unique<PreScoreState>();
  s->pod_requests = scorer_.PodRequests(pod);
  s->dra = scorer_.DraCounter(dra_, state);
  state.Write(kPreScoreStateKey, std::move(s));
  return Status();
}

Status Fit::Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                  int64_t* score) {
  if (const PreScoreState* s = state.Read(kPreScoreStateKey)) {
    return scorer_.Score(node, s->pod_requests, score, s->dra.get());
  }
  return scorer_.Score(node, scorer_.PodRequests(pod), score);  // PreScore did not run.
}

Status Fit::ScoreNodes(const CycleState& state, const api::Pod& pod, std::span<NodeScore> scores) {
  if (const PreScoreState* s = state.Read(kPreScoreStateKey)) {
    return scorer_.ScoreNodes(scores, s->pod_requests, s->dra.get());
  }
  return ScorePlugin::ScoreNodes(state, pod, scores);
}

Status Fit::ScorePlacement(const api::PodGroup&, const PodGroupAssignments& assignments,
                           int64_t* score) {
  std::vector<const api::Pod*> pods;
  pods.reserve(assignments.proposed.size());
  for (const PodGroupAssignments::Proposed& p : assignments.proposed) pods.push_back(p.pod);
  *score = placement_scorer_.ScorePlacement(assignments.placement->nodes, pods);
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> NewFit(const FitArgs& args, Handle& handle) {
  return std::make_unique<Fit>(args, &handle.dra());
}

std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const FitArgs&, Handle&)> MakeFitFactory(
    bool dra_extended_resource) {
  return [dra_extended_resource](const FitArgs& args,
                                 Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<Fit>(args, dra_extended_resource ? &handle.dra() : nullptr);
  };
}

std::string SignRequests(const api::Pod& pod) {
  const Resource r = RequestOf(pod);
  return fmt::format("cpu {} memory {} ephemeral-storage {} {}", r.milli_cpu, r.memory,
                     r.ephemeral_storage, r.scalar);
}

Status Fit::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  if (!helper::DraBacked(pod, dra_).empty()) {
    return Status::Unschedulable(
        "signature disabled when dra extended resources are used in the "
        "cluster");
  }
  out->push_back({helper::kResourcesSigner, SignRequests(pod)});
  return Status();
}

}  // namespace ksched::plugins::node_resources
