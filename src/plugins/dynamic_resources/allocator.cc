#include "src/plugins/dynamic_resources/allocator.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "ksched/api/selectors.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "src/plugins/dynamic_resources/pools.h"

namespace ksched::plugins::dynamic_resources {
namespace {

// resourceapi.AllocationResultsMaxSize: the devices one claim may get.
constexpr int kAllocationResultsMaxSize = 32;
// How many devices the search tries between two looks at the clock (the filter timeout).
constexpr uint32_t kTriesPerClockRead = 64;

// DeviceViews as keys of the search's own maps: by pool and device, as drivers are few.
struct DeviceHash {
  size_t operator()(const DeviceView& d) const { return absl::HashOf(d.pool, d.device); }
};
struct DeviceEq {
  bool operator()(const DeviceView& a, const DeviceView& b) const {
    return a.device == b.device && a.pool == b.pool && a.driver == b.driver;
  }
};

const api::DeviceAttribute* LookupAttribute(const api::Device& device, const DeviceView& id,
                                            std::string_view name) {
  if (auto it = device.attributes.find(std::string(name)); it != device.attributes.end()) {
    return &it->second;
  }
  size_t slash = name.find('/');
  if (slash == std::string_view::npos || name.substr(0, slash) != id.driver) return nullptr;
  auto it = device.attributes.find(std::string(name.substr(slash + 1)));
  return it == device.attributes.end() ? nullptr : &it->second;
}

bool SameValue(const api::DeviceAttribute& a, const api::DeviceAttribute& b) {
  if (a.string_value) return b.string_value && *a.string_value == *b.string_value;
  if (a.int_value) return b.int_value && *a.int_value == *b.int_value;
  if (a.bool_value) return b.bool_value && *a.bool_value == *b.bool_value;
  if (a.version_value) return b.version_value && *a.version_value == *b.version_value;
  return false;  // Unknown type: never matches.
}

bool KnownType(const api::DeviceAttribute& a) {
  return a.string_value || a.int_value || a.bool_value || a.version_value;
}

// A matchAttribute constraint: every device of its requests has the same value; or a
// distinctAttribute one (consumable capacity): no two have the same.
struct Constraint {
  std::set<std::string, std::less<>> requests;  // None: every request.
  std::string attribute;
  bool distinct = false;
  const api::DeviceAttribute* value = nullptr;  // Match: the first device's.
  int devices = 0;
  std::vector<const api::DeviceAttribute*> values;  // Distinct: each device's, in order.

  bool Applies(std::string_view base, std::string_view sub) const {
    if (requests.empty()) return true;
    if (requests.contains(base)) return true;
    return !sub.empty() && requests.contains(fmt::format("{}/{}", base, sub));
  }
  bool Add(std::string_view base, std::string_view sub, const api::Device& d,
           const DeviceView& id) {
    if (!Applies(base, sub)) return true;
    const api::DeviceAttribute* attr = LookupAttribute(d, id, attribute);
    if (attr == nullptr) return false;
    if (distinct) {
      for (const api::DeviceAttribute* other : values) {
        if (!KnownType(*attr) || SameValue(*attr, *other)) return false;
      }
      values.push_back(attr);
      return true;
    }
    if (devices == 0) {
      value = attr;
    } else if (!SameValue(*attr, *value)) {
      return false;
    }
    ++devices;
    return true;
  }
  void Remove(std::string_view base, std::string_view sub) {
    if (!Applies(base, sub)) return;
    if (distinct) {
      values.pop_back();
    } else {
      --devices;
    }
  }
};

// A request's name in messages and results: "gpu", or "gpu/large" for an alternative of a
// firstAvailable list (`sub`); and whether it has admin access (an alternative never has).
std::string RequestName(const api::DeviceRequest& base, const api::DeviceSubRequest& chosen,
                        bool sub) {
  return sub ? base.name + "/" + chosen.name : base.name;
}
bool AdminAccess(const api::DeviceSubRequest& chosen, bool sub) {
  return !sub && chosen.admin_access;
}

bool TaintPreventsAllocation(const api::Device& d,
                             const std::vector<api::DeviceToleration>& tolerations) {
  for (const api::DeviceTaint& taint : d.taints) {
    if (taint.effect != "NoExecute" && taint.effect != "NoSchedule") continue;
    if (std::none_of(tolerations.begin(), tolerations.end(),
                     [&](const auto& t) { return ToleratesTaint(t, taint); })) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

// --- The search ------------------------------------------------------------------------------

void AddConsumed(const HeldInPool& held, std::string_view device, Amounts* out) {
  for (const auto* in : {held.allocated.get(), held.pending.get()}) {
    if (in == nullptr) continue;
    if (auto it = in->shares.find(device); it != in->shares.end()) {
      AddAmounts(it->second.consumed, out);
    }
  }
}

Allocator::Allocator(const DraLister& classes, std::shared_ptr<const SliceIndex> slices,
                     HeldViews held, SelectorCache& selectors, SearchMemo* memo, Features features)
    : classes_(classes),
      slices_(std::move(slices)),
      held_(std::move(held)),
      selectors_(selectors),
      memo_(memo),
      features_(features) {}

// One Allocate call's state (upstream's `allocator`): one thread works with it.
class Search {
 public:
  // `pools` and `held`: the node's, and their devices in use.
  Search(const Allocator& a, const api::Node& node,
         const std::vector<const api::ResourceClaim*>& claims, absl::Time deadline,
         std::shared_ptr<const std::vector<Pool>> pools, const std::vector<HeldInPool>& held)
      : a_(a),
        node_(node),
        claims_(claims),
        deadline_(deadline),
        pools_(std::move(pools)),
        held_(held),
        available_(pools_->size()),
        consumed_(pools_->size()),
        results_(claims.size()) {}

  absl::StatusOr<Allocator::Outcome> Run(bool explain);

 private:
  struct DeviceRef {
    DeviceView id;  // Names in the slices, which the search's pools hold.
    const api::Device* device;
    const api::ResourceSlice* slice;
    size_t pool;  // In pools_.
  };
  // A request, or one alternative of a firstAvailable request.
  struct RequestData {
    const api::DeviceRequest* base = nullptr;
    const api::DeviceSubRequest* request = nullptr;  // `exactly` or the alternative.
    bool sub = false;
    std::shared_ptr<const api::DeviceClass> device_class;
    int num_devices = 0;
    std::vector<DeviceRef> all_devices;  // For allocation mode All.
    std::string Name() const { return RequestName(*base, *request, sub); }
    // Upstream's request.name() in its errors: the alternative's own name, or the request's.
    std::string_view OwnName() const {
      return request->name.empty() ? std::string_view(base->name) : request->name;
    }
    bool AdminAccess() const { return dynamic_resources::AdminAccess(*request, sub); }
  };
  struct Indices {
    size_t claim = 0, request = 0, sub = 0;
    int device = 0;
  };
  struct Location {
    size_t pool = 0, slice = 0, device = 0;
  };
  struct DeviceResult {
    size_t request;  // Of the claim; its alternative is selected_sub_'s.
    DeviceRef ref;
    bool counters = false;  // It took its counters (the first share of a device does).
    // Consumable capacity: a share, what it consumes, and whether the device had shares in the
    // search before it.
    bool shared = false;
    Amounts consumed;
    bool shared_before = false;
  };

  enum class Step { kFound, kNotFound, kMaxSize };

  absl::StatusOr<RequestData> Validate(const api::DeviceRequest& base,
                                       const api::DeviceSubRequest& request, bool sub,
                                       const Indices& r);
  absl::StatusOr<bool> IsSelectable(const Indices& r, const RequestData& data,
                                    const api::ResourceSlice& slice, int device_index);
  absl::StatusOr<bool> SelectorsMatch(size_t claim, const api::DeviceClass* device_class,
                                      const std::vector<std::string>& selectors,
                                      const api::ResourceSlice& slice, int device_index);
  absl::StatusOr<Step> AllocateOne(Indices r, bool allocating_sub, Location start);
  // Tries `ref` for r; on success the state shows it allocated until Undo.
  absl::StatusOr<bool> AllocateDevice(const Indices& r, const DeviceRef& ref, bool must);
  void Undo(const Indices& r, const DeviceRef& ref);

  // Partitionable devices: a pool's counters, by counter set and counter name.
  using Counters = std::map<std::pair<std::string_view, std::string_view>, api::Quantity>;
  // What the counters of pool `p` hold once the devices in use took theirs (upstream's
  // availableCounters), worked out when a device of the pool first needs it.
  const Counters& Available(size_t p);
  // Takes the counters `ref` consumes for the search's devices (upstream's
  // checkAvailableCounters): false, with nothing taken, when afterwards some counter of its pool
  // holds less than the search's devices take, and *short_of ("<set>/<counter>") names it.
  bool TakeCounters(const DeviceRef& ref, std::string* short_of = nullptr);
  void ReturnCounters(const DeviceRef& ref);
  // Held whole; without DRAConsumableCapacity a share holds the device whole, as upstream's
  // allocated-devices tracker then counts it.
  bool InUse(const DeviceRef& ref) const {
    return InUseByAnyClaim(ref.id) || held_[ref.pool].Contains(ref.id.device) ||
           (!a_.features_.consumable_capacity && held_[ref.pool].Shared(ref.id.device));
  }
  // Consumable capacity: whether `ref` goes to several allocations, and whether it has some
  // (held, or in the search) (upstream's deviceCapacityInUse).
  bool AllowsMultiple(const DeviceRef& ref) const {
    return a_.features_.consumable_capacity &&
           ref.device->allow_multiple_allocations.value_or(false);
  }
  bool Shared(const DeviceRef& ref) const {
    return held_[ref.pool].Shared(ref.id.device) || allocating_capacity_.contains(ref.id);
  }
  // What an allocation of `ref` for `data` would consume beside the device's other allocations
  // (held, and in the search; none with `alone`), or nullopt when it does not fit (TakeCapacity).
  absl::StatusOr<std::optional<Amounts>> Capacity(const RequestData& data, const DeviceRef& ref,
                                                  bool alone) const;
  bool InUseByAnyClaim(const DeviceView& id) const {
    if (allocating_.empty()) return false;
    auto it = allocating_.find(id);
    return it != allocating_.end() && !it->second.empty();
  }
  bool InUseByClaim(const DeviceView& id, size_t claim) const {
    auto it = allocating_.find(id);
    return it != allocating_.end() && it->second.contains(claim);
  }
  RequestData& Data(const Indices& r) { return requests_[r.claim][r.request][r.sub]; }
  // Outcome::why, once the search found nothing.
  std::string Explain();
  Choice MakeChoice() const;

  const Allocator& a_;
  const api::Node& node_;
  const std::vector<const api::ResourceClaim*>& claims_;
  const absl::Time deadline_;
  uint32_t tries_ = 0;  // Devices tried; the clock is read every kTriesPerClockRead.
  std::shared_ptr<const std::vector<Pool>> pools_;
  const std::vector<HeldInPool>& held_;             // Per pool.
  std::vector<std::optional<Counters>> available_;  // Per pool.
  std::vector<Counters> consumed_;                  // Per pool: by the search's devices.
  // Per claim, per request: one entry, or one per firstAvailable alternative.
  std::vector<std::vector<std::vector<RequestData>>> requests_;
  std::vector<std::vector<size_t>> selected_sub_;     // Per claim, per request.
  std::vector<std::vector<Constraint>> constraints_;  // Per claim.
  // Device: the claims it is for.
  absl::flat_hash_map<DeviceView, std::set<size_t>, DeviceHash, DeviceEq> allocating_;
  // Consumable capacity: what the search's shares of a device consume (upstream's
  // allocatingCapacity; an entry, even empty, says the device has some).
  absl::flat_hash_map<DeviceView, Amounts, DeviceHash, DeviceEq> allocating_capacity_;
  // Selector verdicts for (device, claim, request, alternative).
  absl::flat_hash_map<std::pair<const api::Device*, uint64_t>, bool> matches_;
  // A selector's verdicts on a slice's devices, by slice and expression: asked of the
  // SelectorCache once per search.
  std::map<std::pair<const api::ResourceSlice*, const std::string*>,
           absl::StatusOr<std::shared_ptr<const std::vector<cel::Match>>>>
      verdicts_;
  std::vector<std::vector<DeviceResult>> results_;  // Per claim.
};

absl::StatusOr<Search::RequestData> Search::Validate(const api::DeviceRequest& base,
                                                     const api::DeviceSubRequest& request, bool sub,
                                                     const Indices& r) {
  const std::string claim_name = api::KeyOf(claims_[r.claim]->metadata);
  RequestData data{.base = &base, .request = &request, .sub = sub};
  if (request.device_class_name.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("claim {}, request {}: missing device class name (unsupported request type?)",
                    claim_name, data.Name()));
  }
  data.device_class = a_.classes_.GetDeviceClass(request.device_class_name);
  if (data.device_class == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "claim {}, request {}: could not retrieve device class {}: deviceclass.resource.k8s.io "
        "\"{}\" not found",
        claim_name, data.Name(), request.device_class_name, request.device_class_name));
  }
  if (request.allocation_mode == "ExactCount") {
    data.num_devices = static_cast<int>(request.count);
    return data;
  }
  if (request.allocation_mode != "All") {
    return absl::InvalidArgumentError(fmt::format("claim {}, request {}: unsupported count mode {}",
                                                  claim_name, data.Name(),
                                                  request.allocation_mode));
  }
  for (size_t p = 0; p < pools_->size(); ++p) {
    const Pool& pool = (*pools_)[p];
    if (pool.incomplete) {
      return absl::InvalidArgumentError(fmt::format(
          "claim {}, request {}: asks for all devices, but resource pool {} is currently being "
          "updated",
          claim_name, data.Name(), pool.Id()));
    }
    if (pool.unsupported) {
      // Not all of them can be had: the request cannot be met here, and Run says why.
      data.all_devices.clear();
      break;
    }
    if (!pool.invalid.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("claim {}, request {}: asks for all devices, but resource pool {} is "
                      "currently invalid",
                      claim_name, data.Name(), pool.Id()));
    }
    for (const api::ResourceSlice* slice : pool.slices) {
      for (int i = 0; i < static_cast<int>(slice->devices.size()); ++i) {
        absl::StatusOr<bool> selectable = IsSelectable(r, data, *slice, i);
        if (!selectable.ok()) return selectable.status();
        if (!*selectable) continue;
        const DeviceRef ref{
            {pool.driver, pool.name, slice->devices[i].name}, &slice->devices[i], slice, p};
        if (a_.features_.consumable_capacity) {
          // Whether it could serve the request at all; what others consume counts later.
          absl::StatusOr<std::optional<Amounts>> took = Capacity(data, ref, /*alone=*/true);
          if (!took.ok()) {
            return absl::InvalidArgumentError(
                fmt::format("claim {}, request {}: checking capacity for device {}: {}", claim_name,
                            data.OwnName(), ref.id.device, AsStd(took.status().message())));
          }
          if (!took->has_value()) continue;
        }
        data.all_devices.push_back(ref);
      }
    }
  }
  data.num_devices = static_cast<int>(data.all_devices.size());
  return data;
}

absl::StatusOr<bool> Search::SelectorsMatch(size_t claim, const api::DeviceClass* device_class,
                                            const std::vector<std::string>& selectors,
                                            const api::ResourceSlice& slice, int device_index) {
  auto owner = [&] {
    return device_class ? fmt::format("class {}", device_class->metadata.name)
                        : fmt::format("claim {}", api::KeyOf(claims_[claim]->metadata));
  };
  for (size_t i = 0; i < selectors.size(); ++i) {
    auto [it, added] = verdicts_.try_emplace({&slice, &selectors[i]}, nullptr);
    if (added) it->second = a_.selectors_.Evaluate(selectors[i], slice);
    const absl::StatusOr<std::shared_ptr<const std::vector<cel::Match>>>& verdicts = it->second;
    if (!verdicts.ok()) {
      if (verdicts.status().code() == absl::StatusCode::kFailedPrecondition) {
        return verdicts.status();  // No CEL library.
      }
      return absl::InvalidArgumentError(fmt::format("{}: selector #{}: CEL compile error: {}",
                                                    owner(), i,
                                                    AsStd(verdicts.status().message())));
    }
    const cel::Match& m = (**verdicts)[device_index];
    if (!m.error.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: selector #{} on device {}/{}/{}: CEL runtime error: {}", owner(), i,
                      slice.driver, slice.pool, slice.devices[device_index].name, m.error));
    }
    if (!m.matches) return false;
  }
  return true;
}

absl::StatusOr<bool> Search::IsSelectable(const Indices& r, const RequestData& data,
                                          const api::ResourceSlice& slice, int device_index) {
  const api::Device* device = &slice.devices[device_index];
  const uint64_t key = (uint64_t{r.claim} << 40) | (uint64_t{r.request} << 20) | r.sub;
  if (auto it = matches_.find({device, key}); it != matches_.end()) return it->second;
  bool match = true;
  if (data.device_class != nullptr) {
    absl::StatusOr<bool> m = SelectorsMatch(r.claim, data.device_class.get(),
                                            data.device_class->selectors, slice, device_index);
    if (!m.ok()) return m.status();
    match = *m;
  }
  if (match) {
    absl::StatusOr<bool> m =
        SelectorsMatch(r.claim, nullptr, data.request->selectors, slice, device_index);
    if (!m.ok()) return m.status();
    match = *m;
  }
  if (match && slice.per_device_node_selection) {
    match = NodeMatches(node_, device->node_name, device->all_nodes.value_or(false),
                        device->node_selector);
  }
  matches_[{device, key}] = match;
  return match;
}

const Search::Counters& Search::Available(size_t p) {
  std::optional<Counters>& out = available_[p];
  if (out) return *out;
  out.emplace();
  const Pool& pool = (*pools_)[p];
  for (const auto& [set_name, set] : pool.counter_sets) {
    for (const auto& [name, value] : set->counters) (*out)[{set_name, name}] = value;
  }
  for (const auto* slices : {&pool.slices, &pool.other_slices}) {
    for (const api::ResourceSlice* slice : *slices) {
      for (const api::Device& device : slice->devices) {
        // A device in use, whole or shared, takes its counters once.
        if (device.consumes_counters.empty() ||
            !(held_[p].Contains(device.name) || held_[p].Shared(device.name))) {
          continue;
        }
        for (const api::DeviceCounterConsumption& c : device.consumes_counters) {
          for (const auto& [name, value] : c.counters) {
            // May go below zero: then none is left.
            if (auto it = out->find({c.counter_set, name}); it != out->end()) it->second -= value;
          }
        }
      }
    }
  }
  return *out;
}

bool Search::TakeCounters(const DeviceRef& ref, std::string* short_of) {
  const Counters& available = Available(ref.pool);
  Counters& consumed = consumed_[ref.pool];
  for (const api::DeviceCounterConsumption& c : ref.device->consumes_counters) {
    for (const auto& [name, value] : c.counters) consumed[{c.counter_set, name}] += value;
  }
  // Every counter of the pool, as upstream: one that devices in use overdrew fails any device.
  for (const auto& [key, left] : available) {
    auto it = consumed.find(key);
    if (left < (it == consumed.end() ? api::Quantity() : it->second)) {
      if (short_of != nullptr) *short_of = fmt::format("{}/{}", key.first, key.second);
      ReturnCounters(ref);
      return false;
    }
  }
  return true;
}

void Search::ReturnCounters(const DeviceRef& ref) {
  Counters& consumed = consumed_[ref.pool];
  for (const api::DeviceCounterConsumption& c : ref.device->consumes_counters) {
    for (const auto& [name, value] : c.counters) consumed[{c.counter_set, name}] -= value;
  }
}

absl::StatusOr<std::optional<Amounts>> Search::Capacity(const RequestData& data,
                                                        const DeviceRef& ref, bool alone) const {
  Amounts in_use;  // Read only for the device's capacities: a device without any needs none.
  if (!alone && !ref.device->capacity.empty()) {
    AddConsumed(held_[ref.pool], ref.id.device, &in_use);
    if (auto it = allocating_capacity_.find(ref.id); it != allocating_capacity_.end()) {
      AddAmounts(it->second, &in_use);
    }
  }
  return TakeCapacity(*ref.device, data.request->capacity_requests, in_use,
                      a_.features_.fractional_capacity_range);
}

absl::StatusOr<bool> Search::AllocateDevice(const Indices& r, const DeviceRef& ref, bool must) {
  RequestData& data = Data(r);
  const bool multiple = AllowsMultiple(ref);
  if (!multiple && data.AdminAccess() && InUseByClaim(ref.id, r.claim)) return false;
  if (!data.AdminAccess() && InUse(ref)) return false;
  // A device's further shares find its counters taken already.
  const bool counters = !ref.device->consumes_counters.empty() && !(multiple && Shared(ref));
  if (counters && !TakeCounters(ref)) return false;
  auto rollback = [&](size_t constraints_added) {
    const std::string_view sub = data.sub ? std::string_view(data.request->name) : "";
    for (size_t j = constraints_added; j-- > 0;)
      constraints_[r.claim][j].Remove(data.base->name, sub);
    if (counters) ReturnCounters(ref);
  };
  if (TaintPreventsAllocation(*ref.device, data.request->tolerations)) {
    rollback(0);
    return false;
  }
  const std::string_view base = data.base->name;
  const std::string_view sub = data.sub ? std::string_view(data.request->name) : "";
  std::vector<Constraint>& constraints = constraints_[r.claim];
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (!constraints[i].Add(base, sub, *ref.device, ref.id)) {
      rollback(i);
      if (must) {
        return absl::InvalidArgumentError(
            fmt::format("claim {}, request {}: cannot add device {}/{}/{} because a claim "
                        "constraint would not be satisfied",
                        api::KeyOf(claims_[r.claim]->metadata), data.OwnName(), ref.id.driver,
                        ref.id.pool, ref.id.device));
      }
      return false;
    }
  }
  DeviceResult result{.request = r.request, .ref = ref, .counters = counters};
  if (a_.features_.consumable_capacity) {
    absl::StatusOr<std::optional<Amounts>> took = Capacity(data, ref, /*alone=*/false);
    if (!took.ok()) {
      rollback(constraints.size());
      return absl::InvalidArgumentError(
          fmt::format("claim {}, request {}: rechecking capacity for device {}/{}/{}: {}",
                      api::KeyOf(claims_[r.claim]->metadata), data.OwnName(), ref.id.driver,
                      ref.id.pool, ref.id.device, AsStd(took.status().message())));
    }
    if (!took->has_value()) {
      rollback(constraints.size());
      return false;
    }
    if (multiple) {
      result.shared = true;
      result.consumed = **std::move(took);
      auto [entry, added] = allocating_capacity_.try_emplace(ref.id);
      result.shared_before = !added;
      AddAmounts(result.consumed, &entry->second);
    }
  }
  if (!multiple) allocating_[ref.id].insert(r.claim);
  results_[r.claim].push_back(std::move(result));
  return true;
}

void Search::Undo(const Indices& r, const DeviceRef& ref) {
  RequestData& data = Data(r);
  const DeviceResult result = std::move(results_[r.claim].back());
  results_[r.claim].pop_back();
  if (result.shared) {
    auto it = allocating_capacity_.find(ref.id);
    for (const auto& [name, value] : result.consumed) it->second[name] -= value;
    if (!result.shared_before) allocating_capacity_.erase(it);
  } else {
    allocating_[ref.id].erase(r.claim);
  }
  if (result.counters) ReturnCounters(ref);
  const std::string_view sub = data.sub ? std::string_view(data.request->name) : "";
  std::vector<Constraint>& constraints = constraints_[r.claim];
  for (size_t j = constraints.size(); j-- > 0;) constraints[j].Remove(data.base->name, sub);
}

absl::StatusOr<Search::Step> Search::AllocateOne(Indices r, bool allocating_sub, Location start) {
  if (r.claim >= claims_.size()) return Step::kFound;
  const api::ResourceClaim& claim = *claims_[r.claim];
  if (r.request >= claim.spec.requests.size()) {
    absl::StatusOr<Step> next = AllocateOne({.claim = r.claim + 1}, false, {});
    if (next.ok() && *next == Step::kMaxSize) return Step::kNotFound;
    return next;
  }
  std::vector<RequestData>& alternatives = requests_[r.claim][r.request];
  if (!allocating_sub && alternatives.front().sub) {
    // One alternative of a firstAvailable list: the first that works.
    bool all_exceeded = true;
    for (size_t sub = 0; sub < alternatives.size(); ++sub) {
      r.sub = sub;
      absl::StatusOr<Step> step = AllocateOne(r, true, {});
      if (!step.ok()) return step.status();
      if (*step == Step::kMaxSize) continue;
      all_exceeded = false;
      if (*step == Step::kFound) {
        selected_sub_[r.claim][r.request] = sub;
        return Step::kFound;
      }
    }
    return all_exceeded ? Step::kMaxSize : Step::kNotFound;
  }
  RequestData& data = alternatives[r.sub];
  const bool all = data.request->allocation_mode == "All";
  if (all && data.all_devices.empty()) return Step::kNotFound;
  if (r.device >= data.num_devices) {
    return AllocateOne({.claim = r.claim, .request = r.request + 1}, false, {});
  }
  if (static_cast<int>(results_[r.claim].size()) + data.num_devices - r.device >
      kAllocationResultsMaxSize) {
    return Step::kMaxSize;
  }
  Indices next = r;
  ++next.device;
  if (all) {
    const DeviceRef& ref = data.all_devices[r.device];
    absl::StatusOr<bool> ok = AllocateDevice(r, ref, true);
    if (!ok.ok()) return ok.status();
    if (!*ok) return Step::kNotFound;
    absl::StatusOr<Step> step = AllocateOne(next, allocating_sub, {});
    if (!step.ok() || *step != Step::kFound) Undo(r, ref);
    return step;
  }
  for (size_t p = start.pool; p < pools_->size(); ++p) {
    const Pool& pool = (*pools_)[p];
    if (pool.incomplete || !pool.invalid.empty()) continue;
    for (size_t s = p == start.pool ? start.slice : 0; s < pool.slices.size(); ++s) {
      const api::ResourceSlice& slice = *pool.slices[s];
      size_t first = p == start.pool && s == start.slice ? start.device : 0;
      for (size_t d = first; d < slice.devices.size(); ++d) {
        DeviceRef ref{
            {pool.driver, pool.name, slice.devices[d].name}, &slice.devices[d], &slice, p};
        if (data.AdminAccess() ? InUseByClaim(ref.id, r.claim) : InUse(ref)) continue;
        absl::StatusOr<bool> selectable = IsSelectable(r, data, slice, static_cast<int>(d));
        if (!selectable.ok()) return selectable.status();
        if (!*selectable) continue;
        if (a_.features_.consumable_capacity) {
          absl::StatusOr<std::optional<Amounts>> took = Capacity(data, ref, /*alone=*/false);
          if (!took.ok()) {
            return absl::InvalidArgumentError(
                fmt::format("claim {}, request {}: checking capacity for device {}/{}/{}: {}",
                            api::KeyOf(claim.metadata), data.OwnName(), ref.id.driver, ref.id.pool,
                            ref.id.device, AsStd(took.status().message())));
          }
          if (!took->has_value()) continue;
        }
        if (++tries_ % kTriesPerClockRead == 0 && deadline_ != absl::InfiniteFuture() &&
            absl::Now() > deadline_) {
          return absl::DeadlineExceededError("timed out trying to allocate devices");
        }
        absl::StatusOr<bool> ok = AllocateDevice(r, ref, false);
        if (!ok.ok()) return ok.status();
        if (!*ok) continue;
        absl::StatusOr<Step> step = AllocateOne(next, allocating_sub, {p, s, d + 1});
        if (step.ok() && *step == Step::kFound) return Step::kFound;
        Undo(r, ref);
        if (!step.ok() || *step == Step::kMaxSize) return step;
      }
    }
  }
  return Step::kNotFound;
}

namespace {

// The node selector of a claim's allocation (upstream's createNodeSelector): the node itself when
// a device is of that node alone or binds to it (bindsToNode), else the terms of the devices'
// slices (or devices) merged. `out` null: only checks that it can be made.
absl::Status NodeSelectorFor(std::string_view node, const std::vector<Choice::Device>& devices,
                             std::optional<api::NodeSelector>* out) {
  api::NodeSelectorTerm term;
  auto add = [](const std::vector<api::NodeSelectorRequirement>& from,
                std::vector<api::NodeSelectorRequirement>* to) {
    for (const api::NodeSelectorRequirement& req : from) {
      std::set<std::string> values(req.values.begin(), req.values.end());
      bool present = std::any_of(to->begin(), to->end(), [&](const auto& e) {
        return e.key == req.key && e.op == req.op &&
               std::set<std::string>(e.values.begin(), e.values.end()) == values;
      });
      if (!present) to->push_back(req);
    }
  };
  for (const Choice::Device& d : devices) {
    const api::ResourceSlice& slice = *d.slice;
    const std::optional<std::string>& node_name =
        slice.per_device_node_selection ? d.device->node_name : slice.node_name;
    const std::optional<api::NodeSelector>& selector =
        slice.per_device_node_selection ? d.device->node_selector : slice.node_selector;
    if ((node_name && !node_name->empty()) || d.device->binds_to_node.value_or(false)) {
      if (out == nullptr) return absl::OkStatus();
      api::NodeSelector only;
      only.node_selector_terms.push_back(
          {.match_fields = {{.key = "metadata.name", .op = "In", .values = {std::string(node)}}}});
      *out = std::move(only);
      return absl::OkStatus();
    }
    if (!selector) continue;
    if (selector->node_selector_terms.size() > 1) {
      return absl::InvalidArgumentError(
          fmt::format("unsupported ResourceSlice.NodeSelector with {} terms",
                      selector->node_selector_terms.size()));
    }
    if (selector->node_selector_terms.size() == 1 && out != nullptr) {
      add(selector->node_selector_terms[0].match_fields, &term.match_fields);
      add(selector->node_selector_terms[0].match_expressions, &term.match_expressions);
    }
  }
  if (out == nullptr || (term.match_fields.empty() && term.match_expressions.empty())) {
    return absl::OkStatus();
  }
  out->emplace().node_selector_terms.push_back(std::move(term));
  return absl::OkStatus();
}

// A share's ID: a random (version 4) UUID, as upstream's. Written here from Abseil's generator:
// libuuid would add a shared library to the image for these few lines.
std::string NewShareId() {
  thread_local absl::BitGen gen;
  const uint64_t hi = absl::Uniform<uint64_t>(gen), lo = absl::Uniform<uint64_t>(gen);
  const uint64_t version = (hi & ~uint64_t{0xf000}) | 0x4000;                  // Version 4.
  const uint64_t variant = (lo & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);  // RFC 4122.
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", version >> 32, (version >> 16) & 0xffff,
                     version & 0xffff, variant >> 48, variant & 0xffffffffffff);
}

// The request a choice took for request `r` of `claim`: `exactly` or the alternative.
const api::DeviceSubRequest& Chosen(const api::ResourceClaim& claim, size_t r,
                                    const Choice::Request& request) {
  const api::DeviceRequest& base = claim.spec.requests[r];
  return request.sub ? base.first_available[request.alternative] : *base.exactly;
}

// Its name in the results.
std::string ResultName(const api::ResourceClaim& claim, size_t r, const Choice::Request& request) {
  return RequestName(claim.spec.requests[r], Chosen(claim, r, request), request.sub);
}

// Whether a config's list of requests names request r, or the alternative chosen for it.
bool Names(const std::vector<std::string>& names, const api::ResourceClaim& claim, size_t r,
           const Choice::Request& request) {
  auto has = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  return has(claim.spec.requests[r].name) || (request.sub && has(ResultName(claim, r, request)));
}

// One claim's allocation.
api::AllocationResult Result(const Choice& choice, const api::ResourceClaim& claim, size_t c,
                             std::string_view node) {
  const std::vector<Choice::Request>& requests = choice.requests[c];
  api::AllocationResult out;
  for (const Choice::Device& d : choice.devices[c]) {
    const Choice::Request& request = requests[d.request];
    const api::DeviceSubRequest& chosen = Chosen(claim, d.request, request);
    out.results.push_back({.request = ResultName(claim, d.request, request),
                           .driver = std::string(d.id.driver),
                           .pool = std::string(d.id.pool),
                           .device = std::string(d.id.device),
                           .admin_access = AdminAccess(chosen, request.sub),
                           .tolerations = chosen.tolerations,
                           .binding_conditions = d.device->binding_conditions,
                           .binding_failure_conditions = d.device->binding_failure_conditions});
    if (d.shared) {
      out.results.back().share_id = NewShareId();
      out.results.back().consumed_capacity = d.consumed;
    }
  }
  // The classes' configs, once per class, naming every request of the class; then the claim's.
  std::map<std::string, std::pair<size_t, size_t>, std::less<>> class_configs;
  for (size_t r = 0; r < requests.size(); ++r) {
    const api::DeviceClass& cls = *requests[r].device_class;
    if (auto it = class_configs.find(cls.metadata.name); it != class_configs.end()) {
      for (size_t i = it->second.first; i < it->second.second; ++i) {
        out.config[i].configuration.requests.push_back(ResultName(claim, r, requests[r]));
      }
      continue;
    }
    size_t begin = out.config.size();
    for (const api::DeviceConfiguration& config : cls.config) {
      api::DeviceConfiguration copy = config;
      copy.requests = {ResultName(claim, r, requests[r])};
      out.config.push_back({.source = "FromClass", .configuration = std::move(copy)});
    }
    class_configs[cls.metadata.name] = {begin, out.config.size()};
  }
  for (const api::DeviceConfiguration& config : claim.spec.config) {
    if (config.requests.empty()) {
      out.config.push_back({.source = "FromClaim", .configuration = config});
      continue;
    }
    // Once, if it names a request or a request's chosen alternative (1.36 added it once for each).
    for (size_t r = 0; r < requests.size(); ++r) {
      if (Names(config.requests, claim, r, requests[r])) {
        out.config.push_back({.source = "FromClaim", .configuration = config});
        break;
      }
    }
  }
  // Since 1.37 a config that names every request (or its chosen alternative) names none: the
  // empty list means all.
  for (api::DeviceAllocationConfiguration& c : out.config) {
    std::vector<std::string>& names = c.configuration.requests;
    if (names.empty()) continue;
    bool all = true;
    for (size_t r = 0; r < requests.size() && all; ++r) {
      all = Names(names, claim, r, requests[r]);
    }
    if (all) names.clear();
  }
  // Checked when the choice was made.
  NodeSelectorFor(node, choice.devices[c], &out.node_selector).IgnoreError();
  return out;
}

}  // namespace

Choice Search::MakeChoice() const {
  Choice out{.slices = a_.slices_};
  for (size_t c = 0; c < claims_.size(); ++c) {
    std::vector<Choice::Request>& requests = out.requests.emplace_back();
    for (size_t r = 0; r < requests_[c].size(); ++r) {
      const size_t k = selected_sub_[c][r];
      const RequestData& data = requests_[c][r][k];
      requests.push_back({.sub = data.sub, .alternative = k, .device_class = data.device_class});
    }
    std::vector<Choice::Device>& devices = out.devices.emplace_back();
    for (const DeviceResult& d : results_[c]) {
      devices.push_back({.request = d.request,
                         .id = d.ref.id,
                         .device = d.ref.device,
                         .slice = d.ref.slice,
                         .shared = d.shared,
                         .consumed = d.consumed});
    }
  }
  return out;
}

std::string Search::Explain() {
  std::vector<std::string> lines;
  bool each_has_enough = true;
  for (size_t c = 0; c < claims_.size(); ++c) {
    for (size_t r = 0; r < requests_[c].size(); ++r) {
      for (size_t k = 0; k < requests_[c][r].size(); ++k) {
        const Indices idx{.claim = c, .request = r, .sub = k};
        const RequestData& data = Data(idx);
        int total = 0, no_match = 0, in_use = 0, tainted = 0, no_capacity = 0, short_of = 0,
            free = 0;
        std::set<std::string> short_counters;
        for (size_t p = 0; p < pools_->size(); ++p) {
          const Pool& pool = (*pools_)[p];
          if (pool.incomplete || !pool.invalid.empty()) continue;
          for (const api::ResourceSlice* slice : pool.slices) {
            for (size_t d = 0; d < slice->devices.size(); ++d) {
              ++total;
              const api::Device& device = slice->devices[d];
              const DeviceRef ref{{pool.driver, pool.name, device.name}, &device, slice, p};
              absl::StatusOr<bool> selectable =
                  IsSelectable(idx, data, *slice, static_cast<int>(d));
              if (!selectable.ok() || !*selectable) {
                ++no_match;
              } else if (!data.AdminAccess() && InUse(ref)) {
                ++in_use;
              } else if (TaintPreventsAllocation(device, data.request->tolerations)) {
                ++tainted;
              } else if (absl::StatusOr<std::optional<Amounts>> took =
                             a_.features_.consumable_capacity ? Capacity(data, ref, /*alone=*/false)
                                                              : std::optional<Amounts>(Amounts());
                         !took.ok() || !took->has_value()) {
                ++no_capacity;
              } else if (std::string counter;
                         !device.consumes_counters.empty() && !TakeCounters(ref, &counter)) {
                ++short_of;
                short_counters.insert(std::move(counter));
              } else {
                if (!device.consumes_counters.empty()) ReturnCounters(ref);
                ++free;
              }
            }
          }
        }
        const bool all = data.request->allocation_mode == "All";
        const int wanted =
            all ? free + in_use + tainted + no_capacity + short_of : data.num_devices;
        if (free < wanted || (all && wanted == 0)) each_has_enough = false;
        std::vector<std::string> others;
        if (in_use > 0) others.push_back(fmt::format("{} in use", in_use));
        if (no_match > 0)
          others.push_back(fmt::format("{} {} not match", no_match, no_match == 1 ? "does" : "do"));
        if (tainted > 0) others.push_back(fmt::format("{} tainted", tainted));
        if (no_capacity > 0) {
          others.push_back(fmt::format("{} without the capacity asked", no_capacity));
        }
        if (short_of > 0) {
          others.push_back(fmt::format("{} short of counter{} {}", short_of,
                                       short_counters.size() == 1 ? "" : "s",
                                       absl::StrJoin(short_counters, ", ")));
        }
        const std::string head = fmt::format(
            "claim {}, request {}: {} wanted", api::KeyOf(claims_[c]->metadata), data.Name(),
            all ? fmt::format("all {} matching", wanted) : std::to_string(wanted));
        if (total == 0) {
          lines.push_back(head + ", the node has no devices");
          continue;
        }
        lines.push_back(
            fmt::format("{}, {} of the node's {} devices {} and {} free{}", head, free, total,
                        free == 1 ? "matches" : "match", free == 1 ? "is" : "are",
                        others.empty() ? "" : " (" + absl::StrJoin(others, ", ") + ")"));
      }
    }
  }
  for (const Pool& pool : *pools_) {
    if (!pool.invalid.empty() && !pool.unsupported) {
      lines.push_back(fmt::format("resource pool {} is invalid: {}", pool.Id(), pool.invalid));
    }
  }
  if (each_has_enough) {
    lines.push_back(
        "no choice of those devices serves all requests at once (constraints, or "
        "requests that want the same devices)");
  }
  return absl::StrJoin(lines, "; ");
}

absl::StatusOr<Allocator::Outcome> Search::Run(bool explain) {
  requests_.resize(claims_.size());
  selected_sub_.resize(claims_.size());
  constraints_.resize(claims_.size());
  Allocator::Outcome out;
  for (size_t c = 0; c < claims_.size(); ++c) {
    const api::ResourceClaim& claim = *claims_[c];
    int min_devices = 0;
    // Since 1.37 the claim's limit is checked as each request adds its fewest devices.
    auto add = [&](const api::DeviceRequest& request, int n) -> absl::Status {
      if (n > kAllocationResultsMaxSize - min_devices) {
        return absl::InvalidArgumentError(fmt::format(
            "claim {}, request {}: adding {} devices exceeds the claim limit of {}, with {} "
            "already accounted for",
            api::KeyOf(claim.metadata), request.name, n, kAllocationResultsMaxSize, min_devices));
      }
      min_devices += n;
      return absl::OkStatus();
    };
    for (size_t r = 0; r < claim.spec.requests.size(); ++r) {
      const api::DeviceRequest& request = claim.spec.requests[r];
      std::vector<RequestData>& alternatives = requests_[c].emplace_back();
      if (request.exactly) {
        absl::StatusOr<RequestData> data =
            Validate(request, *request.exactly, false, {.claim = c, .request = r});
        if (!data.ok()) return data.status();
        KSCHED_RETURN_IF_ERROR(add(request, data->num_devices));
        alternatives.push_back(*std::move(data));
      } else {
        int min_alternative = INT32_MAX;
        for (size_t k = 0; k < request.first_available.size(); ++k) {
          absl::StatusOr<RequestData> data = Validate(request, request.first_available[k], true,
                                                      {.claim = c, .request = r, .sub = k});
          if (!data.ok()) return data.status();
          min_alternative = std::min(min_alternative, data->num_devices);
          alternatives.push_back(*std::move(data));
        }
        if (alternatives.empty()) {
          return absl::InvalidArgumentError(
              fmt::format("claim {}, request {}: unknown request type", api::KeyOf(claim.metadata),
                          request.name));
        }
        KSCHED_RETURN_IF_ERROR(add(request, min_alternative));
      }
    }
    selected_sub_[c].assign(claim.spec.requests.size(), 0);
    for (size_t i = 0; i < claim.spec.constraints.size(); ++i) {
      const api::DeviceConstraint& constraint = claim.spec.constraints[i];
      // Without DRAConsumableCapacity upstream's allocator does not know distinctAttribute.
      const bool distinct = !constraint.match_attribute && constraint.distinct_attribute &&
                            a_.features_.consumable_capacity;
      if (!constraint.match_attribute && !distinct) {
        return absl::InvalidArgumentError(
            fmt::format("claim {}, constraint #{}: empty constraint (unsupported constraint type?)",
                        api::KeyOf(claim.metadata), i));
      }
      constraints_[c].push_back(
          {.requests = {constraint.requests.begin(), constraint.requests.end()},
           .attribute = distinct ? *constraint.distinct_attribute : *constraint.match_attribute,
           .distinct = distinct});
    }
  }
  absl::StatusOr<Step> step = AllocateOne({}, false, {});
  if (!step.ok()) return step.status();
  if (*step != Step::kFound) {
    if (explain) out.why = Explain();
    for (const Pool& pool : *pools_) {
      if (pool.unsupported) {
        out.node_failure = pool.invalid;
        return out;
      }
    }
    for (const Pool& pool : *pools_) {
      if (!pool.invalid.empty()) {
        out.node_failure = "invalid resource pools were encountered";
        return out;
      }
    }
    return out;
  }
  auto choice = std::make_shared<const Choice>(MakeChoice());
  for (size_t c = 0; c < claims_.size(); ++c) {
    if (absl::Status st = NodeSelectorFor(node_.metadata.name, choice->devices[c], nullptr);
        !st.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "create NodeSelector for claim {}: {}", claims_[c]->metadata.name, AsStd(st.message())));
    }
  }
  out.fits = true;
  out.choice = std::move(choice);
  return out;
}

absl::StatusOr<Allocator::Outcome> Allocator::Allocate(
    const std::shared_ptr<const api::Node>& node,
    const std::vector<const api::ResourceClaim*>& claims, bool explain, absl::Duration timeout,
    bool memoize) const {
  const bool memo = memo_ != nullptr && !explain && memoize;
  if (memo) {
    if (const SearchMemo::Slot* kept = memo_->Find(node->metadata.name);
        kept != nullptr && kept->node == node.get()) {
      switch (kept->plain) {
        case SearchMemo::Slot::Plain::kFits:
          return Outcome{.fits = true, .memoized = true};  // Kept gives the choice.
        case SearchMemo::Slot::Plain::kDoesNotFit:
          return Outcome{.memoized = true};
        case SearchMemo::Slot::Plain::kNo: {
          Outcome out = kept->entry->outcome;
          out.memoized = true;
          return out;
        }
      }
    }
  }
  std::shared_ptr<const std::vector<Pool>> pools = slices_->PoolsFor(*node);
  std::vector<HeldInPool> held;
  held.reserve(pools->size());
  for (const Pool& pool : *pools) held.push_back(held_.In(pool.driver, pool.name));
  const absl::Time deadline =
      timeout == absl::InfiniteDuration() ? absl::InfiniteFuture() : absl::Now() + timeout;
  Search search(*this, *node, claims, deadline, pools, held);
  absl::StatusOr<Outcome> out = search.Run(explain);
  if (memo && out.ok()) {
    memo_->Keep(std::make_shared<const SearchMemo::Entry>(SearchMemo::Entry{
        .node = node, .slices = slices_, .pools = std::move(pools), .outcome = *out}));
  }
  return out;
}

std::shared_ptr<const Choice> Allocator::Kept(std::string_view node) const {
  const SearchMemo::Slot* kept = memo_ != nullptr ? memo_->Find(node) : nullptr;
  return kept != nullptr && kept->entry->outcome.fits ? kept->entry->outcome.choice : nullptr;
}

std::vector<api::AllocationResult> Allocator::Results(
    const Choice& choice, const std::vector<const api::ResourceClaim*>& claims,
    std::string_view node) {
  std::vector<api::AllocationResult> out;
  for (size_t c = 0; c < claims.size(); ++c) out.push_back(Result(choice, *claims[c], c, node));
  return out;
}

}  // namespace ksched::plugins::dynamic_resources
