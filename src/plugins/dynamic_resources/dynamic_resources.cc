#include "src/plugins/dynamic_resources/dynamic_resources.h"

#include <algorithm>
#include <functional>
#include <future>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/api/selectors.h"
#include "ksched/log.h"
#include "ksched/strings.h"
#include "src/plugins/dynamic_resources/binding.h"
#include "src/plugins/dynamic_resources/extended.h"
#include "src/plugins/helper/dra_extended.h"
#include "src/plugins/helper/normalize_score.h"

namespace ksched::plugins::dynamic_resources {
namespace {

// resourceapi.ResourceClaimReservedForMaxSize and FirstAvailableDeviceRequestMaxSize.
constexpr size_t kReservedForMaxSize = 256;
constexpr int64_t kFirstAvailableMaxSize = 8;

// The cycle's state (upstream's stateData).
struct State final : StateData {
  // The pod's claims (replaced by what PreBind wrote), and per claim: where an allocated one is
  // available, and the allocation Reserve made for an unallocated one.
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
  std::vector<std::optional<api::NodeSelector>> available_on;
  // Allocated claims whose devices failed to attach or timed out: available nowhere, so that
  // PostFilter deallocates them.
  std::vector<bool> binding_failed;
  std::vector<std::shared_ptr<const api::AllocationResult>> allocations;
  // Per claim: whom PreBind reserves it for (upstream's BindTo): the pod, or its PodGroup where
  // the group has the same claim (DRAWorkloadResourceClaims); and whether its allocation is one a
  // pod tried before this one in the pod group's cycle made, which this pod shares (upstream's
  // pendingAllocations).
  std::vector<api::ResourceClaimConsumerReference> consumers;
  std::vector<bool> shared;
  std::shared_ptr<const Allocator> allocator;  // Set when some claim needs allocating.
  // Whether a request has firstAvailable alternatives: without, every node scores 0.
  bool scored = false;
  // DRA-backed extended resources (extended.h): those the pod requests, by name; the claim made
  // for them in an earlier attempt (every node is then refused, and PostFilter deletes it); the
  // claim for all of them, on the nodes whose device plugins advertise none, made once; and,
  // once Reserve picked a node, the claim for the node's share of them, its allocation and
  // mappings, then the claim as PreBind created it.
  std::vector<std::string> extended;
  // The pod's other extended resources: a node must advertise each (upstream's "cannot fit
  // resource", which NodeResourcesFit's ignoredResources can leave to this plugin alone).
  std::vector<std::string> unbacked;
  std::shared_ptr<const api::ResourceClaim> old_extended;
  std::shared_ptr<const api::ResourceClaim> extended_whole;
  Mappings extended_whole_mappings;
  std::shared_ptr<const api::ResourceClaim> extended_claim;
  std::shared_ptr<const api::AllocationResult> extended_allocation;
  Mappings extended_mappings;
  std::shared_ptr<const api::ResourceClaim> extended_created;
  // The node Reserve chose allocations on, and the UIDs of the claims whose allocations the pod
  // holds in flight (ClaimTracker::Hold), until PreBind wrote them or Unreserve.
  std::optional<std::string> reserved_on;
  std::vector<std::string> held;
  // Filter writes these for several nodes at once.
  mutable absl::Mutex mu;
  mutable std::set<size_t> unavailable ABSL_GUARDED_BY(mu);  // Claims not available somewhere.
  // What Filter chose on each node for the claims to allocate, by the name of the node it holds
  // (no copy of the name per node and pod), where the allocator's memo does not hold it
  // (ChoiceOn), and on each node whose device plugins advertise some of the extended resources.
  struct OnNode {
    std::shared_ptr<const api::Node> node;
    std::shared_ptr<const Choice> choice;
    // The claim for the extended resources the node's devices serve, last among the choice's:
    // extended_whole where no entry says otherwise.
    bool own_extended = false;
    std::shared_ptr<const api::ResourceClaim> extended;
    Mappings mappings;
  };
  mutable absl::flat_hash_map<std::string_view, OnNode> by_node ABSL_GUARDED_BY(mu);

  State() = default;
  State(const State& o)
      : claims(o.claims),
        available_on(o.available_on),
        binding_failed(o.binding_failed),
        allocations(o.allocations),
        consumers(o.consumers),
        shared(o.shared),
        allocator(o.allocator),
        scored(o.scored),
        extended(o.extended),
        unbacked(o.unbacked),
        old_extended(o.old_extended),
        extended_whole(o.extended_whole),
        extended_whole_mappings(o.extended_whole_mappings),
        extended_claim(o.extended_claim),
        extended_allocation(o.extended_allocation),
        extended_mappings(o.extended_mappings),
        extended_created(o.extended_created),
        reserved_on(o.reserved_on),
        held(o.held) {
    absl::MutexLock lock(&o.mu);
    unavailable = o.unavailable;
    by_node = o.by_node;
  }
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<State>(*this); }
  // What Filter chose on `node`; nullptr when it chose nothing there.
  std::shared_ptr<const Choice> ChoiceOn(std::string_view node) const {
    {
      absl::MutexLock lock(&mu);
      if (auto it = by_node.find(node); it != by_node.end()) return it->second.choice;
    }
    return allocator ? allocator->Kept(node) : nullptr;
  }
  // Whether the pod has claims of its own or DRA-backed extended resources.
  bool HasClaims() const { return !claims.empty() || !extended.empty(); }
  // (PreBind appends the extended resources' claim it made, which has no entry in `shared`.)
  bool ToAllocate(size_t i) const {
    return !claims[i]->allocation && !(i < shared.size() && shared[i]);
  }
  // The claims to allocate, in order.
  std::vector<const api::ResourceClaim*> ToAllocate() const {
    std::vector<const api::ResourceClaim*> out;
    for (size_t i = 0; i < claims.size(); ++i) {
      if (ToAllocate(i)) out.push_back(claims[i].get());
    }
    return out;
  }
};
inline constexpr StateKey<State> kStateKey{names::kDynamicResources, StateScope::kPod};

// The pod group cycle's state (upstream's podGroupStateData): the claims whose allocations the
// pods tried so far hold in flight, which the next pods of the group share.
struct GroupState final : StateData {
  std::set<std::string, std::less<>> pending;  // Claim UIDs.
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<GroupState>(*this); }
};
inline constexpr StateKey<GroupState> kGroupStateKey{names::kDynamicResources, StateScope::kPod};

// The allocations Reserve made, held in flight for the pod: the next pods see their devices in
// use.
void Hold(ClaimTracker& tracker, State& s) {
  auto hold = [&](const api::ResourceClaim& claim, const api::AllocationResult& allocation) {
    api::ResourceClaim allocated = claim;
    allocated.allocation = allocation;
    s.held.push_back(claim.metadata.uid);
    tracker.Hold(std::make_shared<const api::ResourceClaim>(std::move(allocated)));
  };
  for (size_t i = 0; i < s.claims.size(); ++i) {
    if (s.allocations[i] && !s.claims[i]->allocation) hold(*s.claims[i], *s.allocations[i]);
  }
  if (s.extended_claim && s.extended_allocation) hold(*s.extended_claim, *s.extended_allocation);
}

// The pod no longer holds the claim's allocation in flight: PreBind wrote it (`written`), or it
// goes. Whether the allocation is no longer in flight.
bool Release(ClaimTracker& tracker, State& s, std::string_view uid, bool written) {
  auto it = std::find(s.held.begin(), s.held.end(), uid);
  if (it == s.held.end()) return false;
  s.held.erase(it);
  return tracker.Release(uid, written);
}

// Whether the claim is reserved for the pod, or (`or_group`, with DRAWorkloadResourceClaims) for
// its PodGroup, known by name: a pod does not know its group's UID (upstream's
// IsReservedForPod).
bool ReservedFor(const api::ResourceClaim& claim, const api::Pod& pod, bool or_group = false) {
  return std::any_of(claim.reserved_for.begin(), claim.reserved_for.end(), [&](const auto& r) {
    return r.uid == pod.metadata.uid ||
           (or_group && pod.spec.pod_group_name && r.api_group == "scheduling.k8s.io" &&
            r.resource == "podgroups" && r.name == *pod.spec.pod_group_name);
  });
}

// Why a template's claim is not the pod's, or "" (upstream's IsForPod): its controller must be
// the pod, or, with DRAWorkloadResourceClaims (`or_group`), the pod's PodGroup.
std::string NotForPod(const api::ResourceClaim& claim, const api::Pod& pod, bool or_group) {
  const api::OwnerReference* controller = api::ControllerOf(claim.metadata);
  if (controller != nullptr && controller->uid == pod.metadata.uid) return "";
  const std::string claim_key = api::KeyOf(claim.metadata);
  const std::string pod_key = api::KeyOf(pod.metadata);
  if (!or_group || !pod.spec.pod_group_name) {
    return fmt::format("ResourceClaim {} was not created for Pod {} (Pod is not owner)", claim_key,
                       pod_key);
  }
  if (controller != nullptr && controller->kind == "PodGroup" &&
      controller->name == *pod.spec.pod_group_name &&
      controller->api_version.starts_with("scheduling.k8s.io/")) {
    return "";
  }
  return fmt::format(
      "ResourceClaim {} was not created for Pod {} (neither Pod nor PodGroup {} is the owner)",
      claim_key, pod_key, *pod.spec.pod_group_name);
}

// Whom PreBind reserves the claim of the pod's entry for (upstream's BindTo): the pod's `group`
// (nullptr without DRAWorkloadResourceClaims) where it has the same entry, else the pod.
api::ResourceClaimConsumerReference ConsumerOf(const api::Pod& pod, const api::PodGroup* group,
                                               const api::PodResourceClaim& entry) {
  if (group != nullptr) {
    for (const api::PodResourceClaim& g : group->resource_claims) {
      if (g.name == entry.name && g.resource_claim_name == entry.resource_claim_name &&
          g.resource_claim_template_name == entry.resource_claim_template_name) {
        return {.api_group = "scheduling.k8s.io",
                .resource = "podgroups",
                .name = group->metadata.name,
                .uid = group->metadata.uid};
      }
    }
  }
  return {.resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid};
}

// What of a claim ksched does not support, or "".
std::string UnsupportedIn(const api::ResourceClaim& claim) {
  if (claim.unsupported.empty()) return "";
  return fmt::format("resource claim {}: {} is not supported by ksched yet",
                     api::KeyOf(claim.metadata), claim.unsupported.front());
}

// Whether one of the pod's claims, as its spec and status name them, is `claim`.
bool NamesClaim(const api::Pod& pod, const api::ResourceClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) return false;
  for (const api::PodResourceClaim& pc : pod.spec.resource_claims) {
    if (pc.resource_claim_name && *pc.resource_claim_name == claim.metadata.name) return true;
  }
  for (const api::PodResourceClaimStatus& st : pod.status.resource_claim_statuses) {
    if (st.resource_claim_name && *st.resource_claim_name == claim.metadata.name) return true;
  }
  return false;
}

Status CheckClass(const DraLister& dra, const std::string& class_name, const std::string& request) {
  if (class_name.empty()) {
    return Status::Error(fmt::format("request {}: unsupported request type", request));
  }
  if (dra.GetDeviceClass(class_name) == nullptr) {
    return Status::UnschedulableAndUnresolvable(
        fmt::format("request {}: device class {} does not exist", request, class_name));
  }
  return Status();
}

std::string Now() { return api::field::MetaTime(absl::Now()); }

// PreBind's error when writing a claim's allocation (if `allocated`) and reservation failed, in
// upstream's words; the writer's own message when the claim was deleted, allocated or deallocated
// meanwhile (Aborted).
Status ReservationFailed(const absl::Status& st, const api::ResourceClaim& claim, bool allocated) {
  if (absl::IsAborted(st)) return Status::Error(std::string(AsStd(st.message())));
  return Status::Error(fmt::format("{} to claim {}: {}",
                                   allocated ? "add allocation and reservation" : "add reservation",
                                   api::KeyOf(claim.metadata), AsStd(st.message())));
}

}  // namespace

// --- ClaimTracker ----------------------------------------------------------------------------

std::shared_ptr<const api::ResourceClaim> ClaimTracker::Overlay(
    std::shared_ptr<const api::ResourceClaim> stored) const {
  if (!stored || written_.empty()) return stored;
  auto it = written_.find(api::KeyOf(stored->metadata));
  if (it == written_.end() || it->second.read_version != stored->metadata.resource_version) {
    return stored;  // The informer has what was written, or something newer.
  }
  return it->second.claim;
}

std::shared_ptr<const api::ResourceClaim> ClaimTracker::Get(std::string_view ns,
                                                            std::string_view name) const {
  std::shared_ptr<const api::ResourceClaim> stored = lister_.GetResourceClaim(ns, name);
  absl::ReaderMutexLock lock(&mu_);
  return Overlay(std::move(stored));
}

void ClaimTracker::ForgetCaughtUp() {
  // A loop, not erase_if: the thread-safety analysis does not see the lock inside a lambda.
  for (auto it = written_.begin(); it != written_.end();) {
    const WrittenClaim& w = it->second;
    std::shared_ptr<const api::ResourceClaim> stored =
        lister_.GetResourceClaim(w.claim->metadata.namespace_, w.claim->metadata.name);
    if (stored && stored->metadata.resource_version == w.read_version) {
      ++it;
      continue;
    }
    Count(*w.claim, -1);
    it = written_.erase(it);
  }
}

std::shared_ptr<const HeldDevices::View> ClaimTracker::Pending() const {
  absl::MutexLock lock(&mu_);
  return pending_.Snapshot();
}

void ClaimTracker::CatchUp() {
  const uint64_t generation = lister_.ClaimsGeneration();
  absl::MutexLock lock(&mu_);
  if (generation == caught_up_) return;
  ForgetCaughtUp();
  caught_up_ = generation;
}

bool ClaimTracker::InFlight(std::string_view uid) const {
  absl::ReaderMutexLock lock(&mu_);
  return in_flight_.contains(uid);
}

std::shared_ptr<const api::AllocationResult> ClaimTracker::InFlightAllocation(
    std::string_view uid) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end()) return nullptr;
  return {it->second.claim, &*it->second.claim->allocation};
}

void ClaimTracker::Hold(std::shared_ptr<const api::ResourceClaim> allocated) {
  absl::MutexLock lock(&mu_);
  InFlightClaim& slot = in_flight_[allocated->metadata.uid];
  if (slot.holders++ > 0) return;
  Count(*allocated, +1);
  slot.claim = std::move(allocated);
}

bool ClaimTracker::Release(std::string_view uid, bool written) {
  absl::MutexLock lock(&mu_);
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end()) return false;
  if (!written && --it->second.holders > 0) return false;
  Count(*it->second.claim, -1);
  in_flight_.erase(it);
  return true;
}

void ClaimTracker::Written(api::ResourceClaim written, std::string read_version) {
  absl::MutexLock lock(&mu_);
  std::string key = api::KeyOf(written.metadata);
  ForgetCaughtUp();
  WrittenClaim& slot = written_[key];
  if (slot.claim) Count(*slot.claim, -1);
  slot = {std::make_shared<const api::ResourceClaim>(std::move(written)), std::move(read_version)};
  Count(*slot.claim, +1);
}

// --- The plugin ------------------------------------------------------------------------------

absl::StatusOr<std::vector<std::shared_ptr<const api::ResourceClaim>>> DynamicResources::PodClaims(
    const api::Pod& pod, std::vector<const api::PodResourceClaim*>* entries) const {
  std::vector<std::shared_ptr<const api::ResourceClaim>> out;
  const std::string pod_name = api::KeyOf(pod.metadata);
  for (const api::PodResourceClaim& pc : pod.spec.resource_claims) {
    std::optional<std::string> name;
    bool must_check_owner = false;
    if (pc.resource_claim_name) {
      name = pc.resource_claim_name;
    } else if (pc.resource_claim_template_name) {
      auto st = std::find_if(pod.status.resource_claim_statuses.begin(),
                             pod.status.resource_claim_statuses.end(),
                             [&](const auto& s) { return s.name == pc.name; });
      if (st == pod.status.resource_claim_statuses.end()) {
        return absl::NotFoundError(
            fmt::format("pod \"{}\": ResourceClaim not created yet", pod_name));
      }
      if (!st->resource_claim_name) continue;  // None was needed.
      name = st->resource_claim_name;
      must_check_owner = true;
    } else {
      return absl::InvalidArgumentError(
          fmt::format("pod \"{}\", spec.resourceClaim \"{}\": none of the supported fields are set",
                      pod_name, pc.name));
    }
    std::shared_ptr<const api::ResourceClaim> claim = tracker_.Get(pod.metadata.namespace_, *name);
    if (claim == nullptr) {
      return absl::NotFoundError(
          fmt::format("could not find ResourceClaim \"{}/{}\"", pod.metadata.namespace_, *name));
    }
    if (claim->metadata.deletion_timestamp) {
      return absl::FailedPreconditionError(
          fmt::format("resourceclaim \"{}\" is being deleted", claim->metadata.name));
    }
    if (must_check_owner) {
      if (std::string why = NotForPod(*claim, pod, features_.workload_resource_claims);
          !why.empty()) {
        return absl::FailedPreconditionError(std::move(why));
      }
    }
    out.push_back(std::move(claim));
    if (entries != nullptr) entries->push_back(&pc);
  }
  return out;
}

std::shared_ptr<const SliceIndex> DynamicResources::Slices() {
  const DraLister& dra = handle_.dra();
  // The generation first: slices listed after it are at least as new.
  const uint64_t generation = dra.DevicesGeneration();
  absl::MutexLock lock(&slices_mu_);
  if (slices_ == nullptr || slices_generation_ != generation) {
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices = dra.ListResourceSlices();
    if (features_.device_taint_rules) {
      slices = WithTaintRules(std::move(slices), dra.ListDeviceTaintRules());
    }
    slices = ForGates(std::move(slices), features_);
    selectors_.Retain(slices);
    slices_ = std::make_shared<const SliceIndex>(std::move(slices));
    slices_generation_ = generation;
  }
  return slices_;
}

Status DynamicResources::PreEnqueue(const api::Pod& pod) {
  if (pod.spec.resource_claims.empty()) return Status();
  absl::StatusOr<std::vector<std::shared_ptr<const api::ResourceClaim>>> claims = PodClaims(pod);
  if (!claims.ok()) {
    return Status::UnschedulableAndUnresolvable(std::string(AsStd(claims.status().message())));
  }
  return Status();
}

Status DynamicResources::PreFilter(CycleState& state, const api::Pod& pod,
                                   const std::vector<const NodeInfo*>&, PreFilterResult*) {
  state.Write(kStateKey, std::make_unique<State>());
  State* s = state.ReadMutable(kStateKey);
  // The pod group cycle's state, made by the first of its pods to get here.
  GroupState* group_state = nullptr;
  if (CycleState* group_cycle = state.pod_group_cycle()) {
    if (group_cycle->Read(kGroupStateKey) == nullptr) {
      group_cycle->Write(kGroupStateKey, std::make_unique<GroupState>());
    }
    group_state = group_cycle->ReadMutable(kGroupStateKey);
  }
  std::vector<const api::PodResourceClaim*> entries;
  absl::StatusOr<std::vector<std::shared_ptr<const api::ResourceClaim>>> claims =
      PodClaims(pod, &entries);
  if (!claims.ok()) {
    return Status::UnschedulableAndUnresolvable(std::string(AsStd(claims.status().message())));
  }
  std::shared_ptr<const api::PodGroup> group;
  if (features_.workload_resource_claims && pod.spec.pod_group_name && !claims->empty()) {
    group = handle_.pod_groups().GetPodGroup(pod.metadata.namespace_, *pod.spec.pod_group_name);
    if (group == nullptr) {
      return Status::UnschedulableAndUnresolvable(
          fmt::format("pod group object not found for pod group podgroup/{}/{}",
                      pod.metadata.namespace_, *pod.spec.pod_group_name));
    }
  }
  for (const api::PodResourceClaim* entry : entries) {
    s->consumers.push_back(ConsumerOf(pod, group.get(), *entry));
  }
  const DraLister& dra = handle_.dra();
  if (features_.extended_resource) {
    helper::DraRequested requested = helper::DraRequestedBy(pod, dra);
    s->extended = std::move(requested.backed);
    if (!s->extended.empty()) {
      s->old_extended = FindExtendedClaim(pod, dra);
      s->unbacked = std::move(requested.unbacked);
    }
  }
  if (claims->empty() && s->extended.empty()) return Status::Skip();
  s->available_on.resize(claims->size());
  s->binding_failed.resize(claims->size());
  s->allocations.resize(claims->size());
  s->shared.resize(claims->size());
  bool to_allocate = false;
  for (size_t i = 0; i < claims->size(); ++i) {
    const api::ResourceClaim& claim = *(*claims)[i];
    if (claim.allocation && claim.reserved_for.size() >= kReservedForMaxSize &&
        !ReservedFor(claim, pod, features_.workload_resource_claims)) {
      return Status::UnschedulableAndUnresolvable("resourceclaim in use");
    }
    if (std::string why = UnsupportedIn(claim); !why.empty()) {
      return Status::UnschedulableAndUnresolvable(std::move(why));
    }
    if (claim.allocation) {
      s->available_on[i] = claim.allocation->node_selector;
      if (features_.binding_conditions) {
        const Binding b = BindingOf(claim, args_.binding_timeout, absl::Now()).state;
        s->binding_failed[i] = b == Binding::kFailed || b == Binding::kTimedOut;
      }
      continue;
    }
    // Being allocated for a pod tried before this one in its pod group's cycle: shared, on the
    // nodes of that allocation.
    if (group_state != nullptr && group_state->pending.contains(claim.metadata.uid)) {
      if (std::shared_ptr<const api::AllocationResult> pending =
              tracker_.InFlightAllocation(claim.metadata.uid)) {
        s->shared[i] = true;
        s->allocations[i] = pending;
        s->available_on[i] = pending->node_selector;
        continue;
      }
    }
    to_allocate = true;
    if (tracker_.InFlight(claim.metadata.uid)) {
      return Status::UnschedulableAndUnresolvable(fmt::format(
          "resource claim {} is in the process of being allocated", api::KeyOf(claim.metadata)));
    }
    for (const api::DeviceRequest& request : claim.spec.requests) {
      if (request.exactly) {
        if (Status st = CheckClass(dra, request.exactly->device_class_name, request.name);
            !st.ok()) {
          return st;
        }
      } else if (!request.first_available.empty()) {
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (Status st = CheckClass(dra, sub.device_class_name, request.name + "/" + sub.name);
              !st.ok()) {
            return st;
          }
        }
      } else {
        return Status::UnschedulableAndUnresolvable(
            fmt::format("resource claim {}, request {}: unknown request type",
                        api::KeyOf(claim.metadata), request.name));
      }
    }
  }
  s->claims = *std::move(claims);
  s->scored = std::any_of(s->claims.begin(), s->claims.end(), [](const auto& claim) {
    return std::any_of(claim->spec.requests.begin(), claim->spec.requests.end(),
                       [](const api::DeviceRequest& r) { return !r.first_available.empty(); });
  });
  if (!s->extended.empty() && !s->old_extended) {
    std::tie(s->extended_whole, s->extended_whole_mappings) = ExtendedClaim(pod, s->extended, dra);
  }
  if (to_allocate || !s->extended.empty()) {
    tracker_.CatchUp();
    std::shared_ptr<const SliceIndex> slices = Slices();
    HeldViews held{.allocated = dra.Allocated(), .pending = tracker_.Pending()};
    // The scorers of DRA-backed extended resources count the same devices in use.
    auto in_use = std::make_unique<helper::DevicesInUse>();
    in_use->held = held;
    state.Write(helper::kDevicesInUseKey, std::move(in_use));
    // A memo keeps one search per node for the same claims: the pod's to allocate, and the
    // extended resources' claim for all of them where the node's device plugins advertise none.
    std::vector<const api::ResourceClaim*> claims = s->ToAllocate();
    if (s->extended_whole) claims.push_back(s->extended_whole.get());
    SearchMemo* memo = MemoFor(claims, slices.get());
    memo->Begin(claims, slices, held);
    s->allocator = std::make_shared<const Allocator>(
        dra, std::move(slices), std::move(held), selectors_, memo,
        Allocator::Features{.consumable_capacity = features_.consumable_capacity,
                            .fractional_capacity_range = features_.fractional_capacity_range});
  }
  return Status();
}

SearchMemo* DynamicResources::MemoFor(const std::vector<const api::ResourceClaim*>& claims,
                                      const SliceIndex* slices) {
  size_t pick = 0;
  bool held = false;
  for (size_t i = 0; i < kMemos; ++i) {
    memos_[i].ForgetUnless(slices);
    if (held) continue;
    if (memos_[i].Holds(claims, slices)) {
      pick = i;
      held = true;
    } else if (memo_used_[i] < memo_used_[pick]) {
      pick = i;
    }
  }
  memo_used_[pick] = ++memo_count_;
  return &memos_[pick];
}

Status DynamicResources::Filter(const CycleState& state, const api::Pod& pod,
                                const NodeInfo& info) {
  const State* s = state.Read(kStateKey);
  if (s == nullptr) return Status::Error("not found");
  if (!s->HasClaims()) return Status();
  const api::Node& node = *info.node();
  // The extended resources no device plugin advertises here are the devices': all of them on
  // most nodes (the claim PreFilter made), else the node's own claim, which the memo does not
  // hold and an entry of by_node records, even where there is none.
  std::shared_ptr<const api::ResourceClaim> extended = s->extended_whole;
  Mappings mappings = s->extended_whole_mappings;
  bool own_extended = false;
  if (!s->extended.empty()) {
    if (s->old_extended) {
      return Status::UnschedulableAndUnresolvable("cannot schedule extended resource claim");
    }
    for (const std::string& name : s->unbacked) {
      if (!info.allocatable().scalar.contains(name)) {
        return Status::UnschedulableAndUnresolvable("cannot fit resource");
      }
    }
    std::vector<std::string> here;
    for (const std::string& name : s->extended) {
      if (info.allocatable().Get(name) == 0) here.push_back(name);
    }
    if (here.size() < s->extended.size()) {
      own_extended = true;
      std::tie(extended, mappings) =
          here.empty() ? std::pair<std::shared_ptr<const api::ResourceClaim>, Mappings>()
                       : ExtendedClaim(pod, here, handle_.dra());
    }
  }
  auto record = [&](std::shared_ptr<const Choice> choice) {
    absl::MutexLock lock(&s->mu);
    // The key is the name in the node the entry holds: an older entry goes with its key.
    s->by_node.erase(node.metadata.name);
    s->by_node.emplace(node.metadata.name, State::OnNode{.node = info.node_ptr(),
                                                         .choice = std::move(choice),
                                                         .own_extended = own_extended,
                                                         .extended = std::move(extended),
                                                         .mappings = std::move(mappings)});
  };
  if (own_extended && s->claims.empty() && extended == nullptr) {
    record(nullptr);
    return Status();
  }
  // Where allocated claims can be used (only they have available_on), if their devices did not
  // fail to attach.
  std::vector<size_t> unavailable;
  for (size_t i = 0; i < s->claims.size(); ++i) {
    if ((s->available_on[i] && !api::Matches(*s->available_on[i], node)) || s->binding_failed[i]) {
      unavailable.push_back(i);
    }
  }
  std::shared_ptr<const Choice> choice;
  std::vector<const api::ResourceClaim*> to_allocate = s->ToAllocate();
  if (extended != nullptr) to_allocate.push_back(extended.get());
  if (s->allocator && !to_allocate.empty()) {
    absl::StatusOr<Allocator::Outcome> out = s->allocator->Allocate(
        info.node_ptr(), to_allocate, state.explain(),
        args_.filter_timeout > absl::ZeroDuration() ? args_.filter_timeout
                                                    : absl::InfiniteDuration(),
        /*memoize=*/!own_extended);
    if (!out.ok()) {
      std::string message(AsStd(out.status().message()));
      if (out.status().code() == absl::StatusCode::kDeadlineExceeded) {
        return Status::Error(fmt::format("node {}: {}", node.metadata.name, message));
      }
      if (out.status().code() == absl::StatusCode::kFailedPrecondition) {
        return Status::UnschedulableAndUnresolvable(
            fmt::format("device selectors cannot be evaluated: {}", message));
      }
      return Status::Error(std::move(message));
    }
    if (!out->node_failure.empty()) {
      return Status::UnschedulableAndUnresolvable(std::move(out->node_failure))
          .WithExplanation(std::move(out->why));
    }
    if (!out->fits) {
      if (out->why.empty()) return cannot_allocate_;  // Shared, not made per node.
      return Status(cannot_allocate_).WithExplanation(std::move(out->why));
    }
    // The memo's choice needs no copy here: Score and Reserve ask the allocator for it.
    if (!out->memoized) choice = std::move(out->choice);
  }
  if (!unavailable.empty()) {
    absl::MutexLock lock(&s->mu);
    s->unavailable.insert(unavailable.begin(), unavailable.end());
    return Status::UnschedulableAndUnresolvable("resourceclaim not available on the node");
  }
  if (choice != nullptr || own_extended) record(std::move(choice));
  return Status();
}

namespace {

// The claims not available on some node, as Filter found them.
std::set<size_t> Unavailable(const State& s) {
  absl::MutexLock lock(&s.mu);
  return s.unavailable;
}

// What PostFilter does for a pod that fits nowhere (upstream's deallocateOrDeletePodClaims): it
// deallocates one of its claims allocated where it cannot go and reserved for nobody else, or
// deletes the claim an earlier attempt made for its extended resources. Whether it found one, and
// what it says.
std::pair<bool, Status> FreeClaims(ClusterWriter& writer, const api::Pod& pod, const State& s) {
  // Upstream picks one at random; the first is as good.
  for (size_t i : Unavailable(s)) {
    const api::ResourceClaim& claim = *s.claims[i];
    if (claim.reserved_for.empty() ||
        (claim.reserved_for.size() == 1 && claim.reserved_for[0].uid == pod.metadata.uid)) {
      if (absl::Status st = writer.DeallocateResourceClaim(claim); !st.ok()) {
        return {true, Status::Error(std::string(AsStd(st.message())))};
      }
      return {true, Status::Unschedulable("deallocation of ResourceClaim completed")};
    }
  }
  // The claim an earlier attempt made for the extended resources: gone, so that the next attempt
  // makes one for its node.
  if (s.old_extended) {
    if (absl::Status st = writer.DeleteResourceClaim(*s.old_extended); !st.ok()) {
      return {true, Status::Error(std::string(AsStd(st.message())))};
    }
    return {true, Status::Unschedulable("deletion of ResourceClaim completed")};
  }
  return {false, Status(Code::kUnschedulable)};
}

}  // namespace

Status DynamicResources::PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus&,
                                    PostFilterResult*) {
  // Upstream's PostFilter reads the state its PreFilter wrote; when an earlier PreFilter rejected
  // the pod, there is none, and it fails with the CycleState's error.
  const State* s = state.Read(kStateKey);
  if (s == nullptr) return Status::Error("not found");
  // Since 1.37 the statuses that change nothing have no reason (1.36: "no new claims to
  // deallocate", "still not schedulable"), so the FitError message has no DRA part.
  if (!s->HasClaims()) return Status(Code::kUnschedulable);
  return FreeClaims(handle_.writer(), pod, *s).second;
}

Status DynamicResources::PodGroupPostFilter(CycleState& group_cycle, const api::PodGroup& group,
                                            std::span<const api::Pod* const> pods,
                                            std::span<CycleState* const> states) {
  // It leaves a group with scheduling constraints alone (TopologyAwareWorkloadScheduling).
  if (features_.topology_aware_workload_scheduling && group.scheduling_constraints) {
    return Status(Code::kUnschedulable);
  }
  // None of the pods got to its PreFilter.
  if (group_cycle.Read(kGroupStateKey) == nullptr) return Status::Error("not found");
  // Each pod's claims, as its PostFilter would free them; what they say is not the group's.
  bool freed_nothing = false;
  for (size_t i = 0; i < pods.size(); ++i) {
    const State* s = states[i] != nullptr ? states[i]->Read(kStateKey) : nullptr;
    if (s == nullptr) continue;
    auto [found, st] = FreeClaims(handle_.writer(), *pods[i], *s);
    if (st.code() == Code::kError) return st;
    freed_nothing = freed_nothing || !found;
  }
  if (freed_nothing && features_.workload_resource_claims && !pods.empty()) {
    if (std::optional<Status> st = FreeGroupClaims(group, *pods.front(), states)) return *st;
  }
  return Status::Unschedulable("deallocation and deletion of ResourceClaims completed");
}

std::optional<Status> DynamicResources::FreeGroupClaims(const api::PodGroup& group,
                                                        const api::Pod& first,
                                                        std::span<CycleState* const> states) {
  const std::string& ns = group.metadata.namespace_;
  // Not while a pod of the group is placed (assumed or bound): it may use them.
  std::optional<PodGroupState> live =
      handle_.pod_groups().GetPodGroupState(ns, group.metadata.name);
  if (live && live->scheduled > 0) return std::nullopt;
  // A claim available nowhere a pod wanted it, reserved for nobody or the group alone.
  for (CycleState* state : states) {
    const State* s = state != nullptr ? state->Read(kStateKey) : nullptr;
    if (s == nullptr) continue;
    for (size_t i : Unavailable(*s)) {
      const api::ResourceClaim& claim = *s->claims[i];
      if (claim.reserved_for.empty() ||
          (claim.reserved_for.size() == 1 && claim.reserved_for[0].uid == group.metadata.uid)) {
        if (absl::Status st = handle_.writer().DeallocateResourceClaim(claim); !st.ok()) {
          return Status::Error(std::string(AsStd(st.message())));
        }
        return Status::Unschedulable("deallocation of PodGroup ResourceClaim completed");
      }
    }
  }
  // Else the group's reservation of its first allocated claim goes (the allocation stays).
  for (const api::PodResourceClaim& entry : group.resource_claims) {
    std::optional<std::string> name = entry.resource_claim_name;
    if (!name && entry.resource_claim_template_name) {
      const auto& made = group.resource_claim_statuses;
      auto it = std::find_if(made.begin(), made.end(),
                             [&](const auto& st) { return st.name == entry.name; });
      if (it == made.end()) {
        return Status::Error(
            fmt::format("PodGroup {}/{}: ResourceClaim not created yet", ns, group.metadata.name));
      }
      if (!it->resource_claim_name) continue;  // None was needed.
      name = it->resource_claim_name;
    } else if (!name) {
      return Status::Error(
          fmt::format("PodGroup {}/{}, spec.resourceClaim {}: none of the "
                      "supported fields are set",
                      ns, group.metadata.name, entry.name));
    }
    std::shared_ptr<const api::ResourceClaim> claim = tracker_.Get(ns, *name);
    if (claim == nullptr) {
      return Status::Error(fmt::format("could not find ResourceClaim \"{}/{}\"", ns, *name));
    }
    const api::OwnerReference* controller = api::ControllerOf(claim->metadata);
    if (entry.resource_claim_template_name &&
        (controller == nullptr || controller->uid != group.metadata.uid)) {
      continue;  // Not the group's.
    }
    if (!claim->allocation || !ReservedFor(*claim, first, /*or_group=*/true)) continue;
    if (absl::Status st = handle_.writer().UnreserveResourceClaim(*claim, group.metadata.uid);
        !st.ok()) {
      KLOG_ERROR("postfilter unreserving claim", {"resourceclaim", api::KeyOf(claim->metadata)},
                 {"err", std::string(AsStd(st.message()))});
      continue;
    }
    return Status::UnschedulableAndUnresolvable("ResourceClaim unreserved for PodGroup");
  }
  return std::nullopt;
}

Status DynamicResources::Score(const CycleState& state, const api::Pod&, const NodeInfo& info,
                               int64_t* score) {
  *score = 0;
  const State* s = state.Read(kStateKey);
  if (s == nullptr || s->claims.empty() || !s->scored) return Status();
  std::shared_ptr<const Choice> choice = s->ChoiceOn(info.node()->metadata.name);
  if (choice == nullptr) return Status();
  // Per firstAvailable request whose n-th alternative got devices: 8 - n.
  size_t next = 0;
  for (const auto& claim : s->claims) {
    if (!claim->allocation) {
      if (next >= choice->devices.size()) {
        return Status::Error(fmt::format(
            "number of allocations {} is smaller than number of claims needing allocation",
            choice->devices.size()));
      }
      const size_t c = next++;
      const std::vector<Choice::Device>& devices = choice->devices[c];
      for (size_t r = 0; r < choice->requests[c].size(); ++r) {
        const Choice::Request& request = choice->requests[c][r];
        if (request.sub && std::any_of(devices.begin(), devices.end(),
                                       [&](const auto& d) { return d.request == r; })) {
          *score += kFirstAvailableMaxSize - static_cast<int64_t>(request.alternative);
        }
      }
      continue;
    }
    for (const api::DeviceRequest& request : claim->spec.requests) {
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        const std::string ref = request.name + "/" + request.first_available[i].name;
        if (std::any_of(claim->allocation->results.begin(), claim->allocation->results.end(),
                        [&](const auto& r) { return r.request == ref; })) {
          *score += kFirstAvailableMaxSize - static_cast<int64_t>(i);
        }
      }
    }
  }
  return Status();
}

Status DynamicResources::NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) {
  helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/false, scores);
  return Status();
}

namespace {

// Reserve's allocations on `node`, from what Filter chose there; the allocator and Filter's
// findings are dropped.
Status AllocateOn(State* s, std::string_view node) {
  std::vector<const api::ResourceClaim*> to_allocate = s->ToAllocate();
  std::shared_ptr<const api::ResourceClaim> extended = s->extended_whole;
  s->extended_mappings = s->extended_whole_mappings;
  {
    absl::MutexLock lock(&s->mu);
    if (auto it = s->by_node.find(node); it != s->by_node.end() && it->second.own_extended) {
      extended = it->second.extended;
      s->extended_mappings = it->second.mappings;
    }
  }
  if (extended != nullptr) to_allocate.push_back(extended.get());
  if (to_allocate.empty()) return Status();  // The node's device plugins serve the pod.
  std::shared_ptr<const Choice> choice = s->ChoiceOn(node);
  if (choice == nullptr) return Status::Error("claim allocation not found for node");
  const size_t wanted = to_allocate.size();
  if (choice->devices.size() != wanted) {
    return Status::Error(
        fmt::format("internal error, have {} allocations, {} claims to allocate, want {} claims",
                    choice->devices.size(), wanted, wanted));
  }
  const std::vector<api::AllocationResult> allocations =
      Allocator::Results(*choice, to_allocate, node);
  size_t next = 0;
  for (size_t i = 0; i < s->claims.size(); ++i) {
    if (!s->ToAllocate(i)) continue;
    s->allocations[i] = std::make_shared<const api::AllocationResult>(allocations[next++]);
  }
  if (extended != nullptr) {
    s->extended_claim = extended;
    s->extended_allocation = std::make_shared<const api::AllocationResult>(allocations.back());
  }
  s->reserved_on = std::string(node);
  // Filter's findings and the allocator (its snapshot of the devices in use) served their turn:
  // a pod waiting for its binding holds only its own allocations.
  s->allocator.reset();
  choice.reset();
  absl::MutexLock lock(&s->mu);
  s->by_node.clear();
  return Status();
}

}  // namespace

Status DynamicResources::Reserve(CycleState& state, const api::Pod&, std::string_view node) {
  State* s = state.ReadMutable(kStateKey);
  if (s == nullptr || !s->HasClaims()) return Status();
  if (s->allocator) {
    if (Status st = AllocateOn(s, node); !st.ok()) return st;
  } else if (s->reserved_on && *s->reserved_on != node) {
    // Reserved and unreserved before (a pod group's trial, then its placement): the allocations
    // made then are held again, on their node only.
    return Status::Error("claim allocation not found for node");
  }
  Hold(tracker_, *s);
  // The next pods of the pod group's cycle share what this one holds.
  if (CycleState* group_cycle = state.pod_group_cycle()) {
    if (GroupState* g = group_cycle->ReadMutable(kGroupStateKey)) {
      g->pending.insert(s->held.begin(), s->held.end());
    }
  }
  return Status();
}

void DynamicResources::Unreserve(CycleState& state, const api::Pod& pod, std::string_view) {
  State* s = state.ReadMutable(kStateKey);
  if (s == nullptr) return;
  CycleState* group_cycle = state.pod_group_cycle();
  GroupState* g = group_cycle != nullptr ? group_cycle->ReadMutable(kGroupStateKey) : nullptr;
  for (const std::string& uid : s->held) {
    if (tracker_.Release(uid, /*written=*/false) && g != nullptr) g->pending.erase(uid);
  }
  s->held.clear();
  const std::string* created = s->extended_created ? &s->extended_created->metadata.uid : nullptr;
  for (const auto& claim : s->claims) {
    if (created != nullptr && claim->metadata.uid == *created) continue;  // Deleted below.
    if (claim->allocation && ReservedFor(*claim, pod)) {
      if (absl::Status st = handle_.writer().UnreserveResourceClaim(*claim, pod.metadata.uid);
          !st.ok()) {
        KLOG_ERROR("unreserve", {"resourceclaim", api::KeyOf(claim->metadata)},
                   {"err", std::string(AsStd(st.message()))});
      }
    }
  }
  // The extended resources' claim PreBind made.
  if (s->extended_created) {
    if (absl::Status st = handle_.writer().DeleteResourceClaim(*s->extended_created); !st.ok()) {
      KLOG_ERROR("delete extended resource claim",
                 {"resourceclaim", api::KeyOf(s->extended_created->metadata)},
                 {"err", std::string(AsStd(st.message()))});
    }
  }
}

Status DynamicResources::PreBindPreFlight(CycleState& state, const api::Pod&, std::string_view) {
  const State* s = state.Read(kStateKey);
  if (s == nullptr || !s->HasClaims()) return Status::Skip();
  return Status();
}

Status DynamicResources::PreBind(CycleState& state, const api::Pod& pod, std::string_view node) {
  std::promise<Status> promise;
  std::future<Status> done = promise.get_future();
  PreBindAsync(state, pod, node, [&promise](Status s) { promise.set_value(std::move(s)); });
  return done.get();
}

void DynamicResources::PreBindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                                    std::function<void(Status)> done) {
  // The claims are written one after another, each where the answer before arrived.
  struct Run {
    DynamicResources* self;
    State* s;
    const api::Pod& pod;
    std::string node;
    std::function<void(Status)> done;
    size_t next = 0;

    static void Step(const std::shared_ptr<Run>& run) {
      State& s = *run->s;
      for (; run->next < s.claims.size(); ++run->next) {
        std::shared_ptr<const api::ResourceClaim>& claim = s.claims[run->next];
        // Shared in the pod group's cycle: another pod may have written it since (and reserved
        // it for the group).
        if (s.shared[run->next]) {
          std::shared_ptr<const api::ResourceClaim> now =
              run->self->tracker_.Get(claim->metadata.namespace_, claim->metadata.name);
          if (now != nullptr && now->metadata.uid == claim->metadata.uid) claim = std::move(now);
        }
        if (!ReservedFor(*claim, run->pod, run->self->features_.workload_resource_claims)) break;
      }
      if (run->next == s.claims.size()) {
        if (s.extended_claim == nullptr || s.extended_created != nullptr) {
          run->self->AwaitBinding(s.claims, run->pod, run->node, std::move(run->done));
          return;
        }
        // Its writes wait for their answers: off the thread an answer arrived on.
        run->self->handle_.RunAsync([run] {
          State& s = *run->s;
          Status st =
              run->self->MakeExtendedClaim(*s.extended_claim, *s.extended_allocation,
                                           *s.extended_mappings, run->pod, &s.extended_created);
          Release(run->self->tracker_, s, s.extended_claim->metadata.uid,
                  /*written=*/s.extended_created && s.extended_created->allocation);
          // Once written, its devices may wait for binding conditions too.
          if (s.extended_created && s.extended_created->allocation) {
            s.claims.push_back(s.extended_created);
          }
          if (!st.ok()) {
            run->done(std::move(st));
            return;
          }
          run->self->AwaitBinding(s.claims, run->pod, run->node, std::move(run->done));
        });
        return;
      }
      const size_t i = run->next++;
      const api::ResourceClaim& claim = *s.claims[i];
      std::optional<api::AllocationResult> allocation;
      if (s.allocations[i] && !claim.allocation) {
        allocation = *s.allocations[i];
        if (allocation->allocation_timestamp.empty()) allocation->allocation_timestamp = Now();
      }
      run->self->handle_.writer().ReserveResourceClaimAsync(
          claim, allocation ? &*allocation : nullptr, s.consumers[i],
          [run, i, allocated = allocation.has_value()](absl::StatusOr<api::ResourceClaim> written) {
            std::shared_ptr<const api::ResourceClaim>& claim = run->s->claims[i];
            ClaimTracker& tracker = run->self->tracker_;
            // Written first: the devices are never free in between.
            if (written.ok()) tracker.Written(*written, claim->metadata.resource_version);
            Release(tracker, *run->s, claim->metadata.uid, written.ok());
            if (written.ok()) {
              claim = std::make_shared<const api::ResourceClaim>(*std::move(written));
              Step(run);
            } else {
              run->done(ReservationFailed(written.status(), *claim, allocated));
            }
          });
    }
  };
  State* s = state.ReadMutable(kStateKey);
  if (s == nullptr || !s->HasClaims()) {
    done(Status());
    return;
  }
  Run::Step(std::make_shared<Run>(
      Run{.self = this, .s = s, .pod = pod, .node = std::string(node), .done = std::move(done)}));
}

Status DynamicResources::MakeExtendedClaim(
    const api::ResourceClaim& claim, const api::AllocationResult& allocation,
    const std::vector<api::ContainerExtendedResourceRequest>& mappings, const api::Pod& pod,
    std::shared_ptr<const api::ResourceClaim>* created) {
  ClusterWriter& writer = handle_.writer();
  absl::StatusOr<api::ResourceClaim> made = writer.CreateResourceClaim(claim);
  if (!made.ok()) {
    return Status::Error(fmt::format("create claim for extended resources {}/: {}",
                                     pod.metadata.namespace_, AsStd(made.status().message())));
  }
  *created = std::make_shared<const api::ResourceClaim>(*made);
  api::AllocationResult stamped = allocation;
  if (stamped.allocation_timestamp.empty()) stamped.allocation_timestamp = Now();
  absl::StatusOr<api::ResourceClaim> written = writer.ReserveResourceClaim(
      *made, &stamped, {.resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid});
  // Written first: the devices are never free in between.
  if (written.ok()) tracker_.Written(*written, made->metadata.resource_version);
  if (!written.ok()) return ReservationFailed(written.status(), *made, /*allocated=*/true);
  *created = std::make_shared<const api::ResourceClaim>(*std::move(written));
  const std::string pod_key = api::KeyOf(pod.metadata);
  if (mappings.empty()) {
    return Status::Error(fmt::format(
        "nil or empty request mappings, no update of pod {} ExtendedResourceClaimStatus", pod_key));
  }
  if (absl::Status st = writer.SetExtendedResourceClaimStatus(
          pod, {.request_mappings = mappings, .resource_claim_name = (*created)->metadata.name});
      !st.ok()) {
    return Status::Error(
        fmt::format("update pod {} ExtendedResourceClaimStatus: {}", pod_key, AsStd(st.message())));
  }
  return Status();
}

void DynamicResources::AwaitBinding(std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                    const api::Pod& pod, std::string_view node,
                                    std::function<void(Status)> done) {
  if (!features_.binding_conditions ||
      std::none_of(claims.begin(), claims.end(),
                   [](const auto& c) { return HasBindingConditions(*c); })) {
    done(Status());
    return;
  }
  handle_.writer().RecordEvent(
      pod, "Normal", "BindingConditionsPending", "Scheduling",
      fmt::format("waiting for binding conditions for device on node {}", node));
  const absl::Time start = absl::Now();
  // Upstream's isPodReadyForBinding, as its PreBind polls it until bindingTimeout: the claims
  // read again (and kept, for Unreserve), up to the first one not ready.
  auto check = [this, &claims, start](absl::Time now) -> std::optional<Status> {
    auto finish = [&](std::string_view label, Status status) {
      const double seconds = absl::ToDoubleSeconds(now - start);
      for (const auto& claim : claims) {
        if (!claim->allocation) continue;
        for (const api::DeviceRequestAllocationResult& r : claim->allocation->results) {
          handle_.metrics().DraBindingConditionsWaited(r.driver, label, seconds);
          if (!r.binding_conditions.empty()) {
            handle_.metrics().DraBindingConditionsAllocation(r.driver, label);
          }
        }
      }
      return std::optional<Status>(std::move(status));
    };
    for (std::shared_ptr<const api::ResourceClaim>& claim : claims) {
      std::shared_ptr<const api::ResourceClaim> now_claim =
          tracker_.Get(claim->metadata.namespace_, claim->metadata.name);
      if (now_claim == nullptr) {
        return finish("error",
                      Status::Error(fmt::format("resourceclaim.resource.k8s.io \"{}\" not found",
                                                claim->metadata.name)));
      }
      claim = std::move(now_claim);
      BindingState b = BindingOf(*claim, args_.binding_timeout, now);
      if (b.state == Binding::kFailed) return finish("failure", Status::Error(std::move(b.error)));
      if (b.state == Binding::kTimedOut)
        return finish("timeout", Status::Error(std::move(b.error)));
      if (b.state == Binding::kWaiting) {
        if (now - start >= args_.binding_timeout) {
          return finish("timeout",
                        Status::Error("device binding timeout: context deadline exceeded"));
        }
        if (handle_.Stopping()) return finish("error", Status::Error("context canceled"));
        return std::nullopt;
      }
    }
    return finish("success", Status());
  };
  if (std::optional<Status> now = check(start)) {
    done(*std::move(now));
    return;
  }
  waiter_.Wait(std::move(check), std::move(done));
}

std::vector<ClusterEventWithHint> DynamicResources::EventsToRegister() const {
  auto claim_changed = [this](const api::Pod& pod, const ClusterEventData& e) {
    const api::ResourceClaim* old_claim = e.storage.resource_claim.old_obj;
    const api::ResourceClaim* claim = e.storage.resource_claim.new_obj;
    if (claim == nullptr) {
      // Deleted (1.37): only an allocated claim's devices come free.
      return old_claim != nullptr && !old_claim->allocation ? QueueingHint::kQueueSkip
                                                            : QueueingHint::kQueue;
    }
    // Upstream's order (a pod whose claims are not all there skips; a deallocation queues; a
    // claim the pod does not use skips), with the names checked first: a claim event meets every
    // pending pod, and most have nothing to do with it.
    const bool deallocated = old_claim != nullptr && old_claim->allocation && !claim->allocation;
    if (!deallocated && !NamesClaim(pod, *claim)) return QueueingHint::kQueueSkip;
    absl::StatusOr<std::vector<std::shared_ptr<const api::ResourceClaim>>> claims = PodClaims(pod);
    if (!claims.ok()) return QueueingHint::kQueueSkip;
    if (deallocated) return QueueingHint::kQueue;  // Its devices are free.
    bool uses = std::any_of(claims->begin(), claims->end(),
                            [&](const auto& c) { return c->metadata.uid == claim->metadata.uid; });
    if (!uses) return QueueingHint::kQueueSkip;
    if (old_claim == nullptr) return QueueingHint::kQueue;
    // The status as before: something else changed (a driver's finalizer, say).
    bool same_status = (old_claim->allocation.has_value() == claim->allocation.has_value()) &&
                       old_claim->reserved_for.size() == claim->reserved_for.size() &&
                       std::equal(old_claim->reserved_for.begin(), old_claim->reserved_for.end(),
                                  claim->reserved_for.begin(),
                                  [](const auto& a, const auto& b) { return a.uid == b.uid; }) &&
                       (!claim->allocation || old_claim->allocation->allocation_timestamp ==
                                                  claim->allocation->allocation_timestamp) &&
                       old_claim->devices == claim->devices;
    return same_status ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
  };
  auto pod_changed = [this](const api::Pod& pod, const ClusterEventData& e) {
    const api::Pod* changed = e.new_pod;
    if (changed == nullptr || changed->metadata.uid != pod.metadata.uid) {
      return QueueingHint::kQueueSkip;
    }
    return PodClaims(*changed).ok() ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  return {
      {{EventResource::kNode, kAdd | kUpdateNodeLabel | kUpdateNodeAllocatable}, nullptr},
      {{EventResource::kResourceClaim, kAdd | kUpdate | kDelete}, claim_changed},
      {{EventResource::kPod, kUpdatePodGeneratedResourceClaim}, pod_changed},
      {{EventResource::kDeviceClass, kAdd | kUpdate}, nullptr},
      {{EventResource::kResourceSlice, kAdd | kUpdate}, nullptr},
  };
}

Status DynamicResources::SignPod(const api::Pod& pod, std::vector<SignFragment>*) const {
  if (!pod.spec.resource_claims.empty()) {
    return Status::Unschedulable("pods with dra resource claims are not signable");
  }
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const DynamicResourcesArgs& args, Handle& handle) {
  return std::make_unique<DynamicResources>(handle, args);
}

std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const DynamicResourcesArgs&, Handle&)>
MakeFactory(DraFeatures features) {
  return [features](const DynamicResourcesArgs& args,
                    Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<DynamicResources>(handle, args, features);
  };
}

std::vector<std::shared_ptr<const api::ResourceSlice>> ForGates(
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices, const DraFeatures& features) {
  if (features.device_taints && features.partitionable_devices && features.consumable_capacity &&
      features.binding_conditions) {
    return slices;
  }
  // Without DRADeviceBindingConditions a device with binding conditions is not there.
  auto dropped = [&](const api::Device& d) {
    return (!features.partitionable_devices && !d.consumes_counters.empty()) ||
           (!features.binding_conditions && !d.binding_conditions.empty());
  };
  // Without DRAConsumableCapacity a device is exclusive, and its capacities have no policies.
  auto shares = [&](const api::Device& d) {
    return !features.consumable_capacity &&
           (d.allow_multiple_allocations || !d.request_policies.empty());
  };
  auto changed = [&](const api::Device& d) {
    return dropped(d) || (!features.device_taints && !d.taints.empty()) || shares(d) ||
           (!features.binding_conditions &&
            (d.binds_to_node || !d.binding_failure_conditions.empty()));
  };
  for (std::shared_ptr<const api::ResourceSlice>& slice : slices) {
    if (!features.partitionable_devices &&
        (!slice->shared_counters.empty() || slice->per_device_node_selection)) {
      // Upstream's pools leave its devices out, and count it for the pool's completeness.
      slice = std::make_shared<const api::ResourceSlice>(
          api::ResourceSlice{.metadata = slice->metadata,
                             .driver = slice->driver,
                             .pool = slice->pool,
                             .pool_generation = slice->pool_generation,
                             .pool_slice_count = slice->pool_slice_count,
                             .node_name = slice->node_name});
      continue;
    }
    if (std::none_of(slice->devices.begin(), slice->devices.end(), changed)) continue;
    auto patched = std::make_shared<api::ResourceSlice>(*slice);
    std::erase_if(patched->devices, dropped);
    for (api::Device& d : patched->devices) {
      if (!features.device_taints) d.taints.clear();
      if (!features.consumable_capacity) {
        d.allow_multiple_allocations.reset();
        d.request_policies.clear();
      }
      if (!features.binding_conditions) {
        d.binds_to_node.reset();
        d.binding_failure_conditions.clear();
      }
    }
    slice = std::move(patched);
  }
  return slices;
}

std::vector<std::shared_ptr<const api::ResourceSlice>> WithTaintRules(
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
    const std::vector<std::shared_ptr<const api::DeviceTaintRule>>& rules) {
  if (rules.empty()) return slices;
  for (std::shared_ptr<const api::ResourceSlice>& slice : slices) {
    std::shared_ptr<api::ResourceSlice> patched;
    for (const auto& rule : rules) {
      // No selector selects nothing; an empty one, every device.
      if (!rule->device_selector) continue;
      const api::DeviceTaintSelector& sel = *rule->device_selector;
      if (sel.driver && *sel.driver != slice->driver) continue;
      if (sel.pool && *sel.pool != slice->pool) continue;
      for (size_t d = 0; d < slice->devices.size(); ++d) {
        if (sel.device && *sel.device != slice->devices[d].name) continue;
        if (patched == nullptr) patched = std::make_shared<api::ResourceSlice>(*slice);
        patched->devices[d].taints.push_back(rule->taint);
      }
    }
    if (patched != nullptr) slice = std::move(patched);
  }
  return slices;
}

}  // namespace ksched::plugins::dynamic_resources
