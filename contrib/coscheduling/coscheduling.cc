#include "contrib/coscheduling/coscheduling.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <regex>
#include <utility>

#include "absl/strings/numbers.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::coscheduling {
namespace {

namespace field = api::field;

constexpr char kArgsApiVersion[] = "kubescheduler.config.k8s.io/v1";
// go-cache's default TTL of the permitted groups' cache, used for a TTL of 0.
constexpr absl::Duration kPermittedDefaultTtl = absl::Seconds(3);
// The wait at Permit when neither the group nor the args give one (util.DefaultWaitTime).
constexpr absl::Duration kDefaultWaitTime = absl::Seconds(60);

std::string_view GroupLabel(const api::Pod& pod) {
  auto it = pod.metadata.labels.find(kPodGroupLabel);
  return it == pod.metadata.labels.end() ? std::string_view() : std::string_view(it->second);
}

// --- resource.Quantity, as far as the "resource gap" message shows it ---------------------------
//
// scheduler-plugins prints what is missing as Go's %v of a map of resource.Quantity structs:
// "map[memory:{{100 0} {<nil>}  DecimalSI}]", the int64Amount's value and scale, the cached
// string (empty once the quantity was changed) and the format. Hand-written: nothing else speaks
// this form.
struct GoQuantity {
  int64_t value = 0;
  int32_t scale = 0;
  std::string cached;  // The string it was parsed from, if Go keeps it (canonical form).
  std::string format;  // DecimalSI, BinarySI, DecimalExponent; "" for a missing entry.

  int Sign() const { return value > 0 ? 1 : value < 0 ? -1 : 0; }
  // Quantity.Sub for int64 amounts (int64Amount.Add with the negated other).
  void Sub(const GoQuantity& y) {
    cached.clear();
    if (value == 0) format = y.format;
    const int64_t b = -y.value;
    if (b == 0) return;
    if (value == 0) {
      value = b;
      scale = y.scale;
      return;
    }
    auto up = [](int64_t v, int32_t by) {
      while (by-- > 0) v *= 10;
      return v;
    };
    if (scale == y.scale) {
      value += b;
    } else if (scale > y.scale) {
      value = up(value, scale - y.scale) + b;
      scale = y.scale;
    } else {
      value += up(b, y.scale - scale);
    }
  }
  std::string Go() const {
    return fmt::format("{{{{{} {}}} {{<nil>}} {} {}}}", value, scale, cached, format);
  }
};

// resource.ParseQuantity of the usual forms: an integer or decimal with an SI suffix (m, k, M, G,
// T, P, E), a binary one (Ki ... Ei) or an exponent (e3); nullopt for anything else.
std::optional<GoQuantity> ParseGoQuantity(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::string num, frac;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) num += s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) frac += s[i++];
  }
  if (num.empty() && frac.empty()) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  GoQuantity q{.format = "DecimalSI"};
  int32_t exponent = 0;
  int binary = -1;
  static const std::pair<std::string_view, int32_t> kDecimal[] = {
      {"", 0},  {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3},
      {"M", 6}, {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::pair<std::string_view, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                             {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  bool found = false;
  for (const auto& [name, e] : kDecimal) {
    if (suffix == name) exponent = e, found = true;
  }
  for (const auto& [name, e] : kBinary) {
    if (suffix == name) binary = e, found = true, q.format = "BinarySI";
  }
  if (!found && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    if (!absl::SimpleAtoi(absl::string_view(suffix.data() + 1, suffix.size() - 1), &exponent)) {
      return std::nullopt;
    }
    q.format = "DecimalExponent";
    found = true;
  }
  if (!found) return std::nullopt;
  while (!frac.empty() && frac.back() == '0') frac.pop_back();  // Go trims the denominator.
  const std::string shifted = num + frac;
  int64_t v = 0;
  if (!absl::SimpleAtoi(shifted.empty() ? "0" : shifted, &v)) return std::nullopt;
  if (binary >= 0) {
    // With a fraction Go goes to an inf.Dec (printed as a pointer); the amount is the same.
    q.value = v << binary;
    q.scale = -static_cast<int32_t>(frac.size());
    if (frac.empty() && binary % 10 == 0 && (v & 0x07) != 0) q.cached = std::string(s);
  } else {
    q.value = v;
    q.scale = exponent - static_cast<int32_t>(frac.size());
    if (q.scale % 3 == 0 && !shifted.ends_with("000") && !shifted.empty() && shifted[0] != '0') {
      q.cached = std::string(s);
    }
  }
  if (negative) q.value = -q.value;
  return q;
}

// --- The PodGroup --------------------------------------------------------------------------------

absl::Time ParseTime(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err) ? t : absl::InfinitePast();
}

PodGroupSpec SpecOf(const CustomObject& pg) {
  PodGroupSpec out;
  out.creation = ParseTime(pg.metadata.creation_timestamp);
  auto spec = pg.object.find("spec");
  if (spec == pg.object.end() || !spec->is_object()) return out;
  if (auto m = spec->find("minMember"); m != spec->end() && m->is_number_integer()) {
    out.min_member = m->get<int32_t>();
  }
  if (auto t = spec->find("scheduleTimeoutSeconds"); t != spec->end() && t->is_number_integer()) {
    out.schedule_timeout_seconds = t->get<int32_t>();
  }
  if (auto r = spec->find("minResources"); r != spec->end() && r->is_object()) {
    out.min_resources.emplace();
    for (const auto& [name, q] : r->items()) {
      (*out.min_resources)[name] = q.is_string() ? q.get<std::string>() : q.dump();
    }
  }
  return out;
}

// The CRD's pattern of a quantity, as its errors quote it.
constexpr char kQuantityPattern[] =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

// The CRD's schema checks (config/crd/bases/scheduling.x-k8s.io_podgroups.yaml): minMember is an
// int32 of at least 1; minResources are quantities; scheduleTimeoutSeconds an int32.
absl::Status ValidatePodGroup(const nlohmann::json& pg) {
  field::ErrorList errs;
  auto spec = pg.find("spec");
  if (spec == pg.end() || spec->is_null()) return absl::OkStatus();
  if (!spec->is_object()) {
    errs.Invalid("spec", spec->dump(), "spec in body must be of type object");
    return errs.ToStatus();
  }
  if (auto m = spec->find("minMember"); m != spec->end()) {
    if (!m->is_number_integer()) {
      errs.Invalid("spec.minMember", m->dump(), "spec.minMember in body must be of type integer");
    } else if (m->get<int64_t>() < 1) {
      errs.Invalid("spec.minMember", m->dump(),
                   "spec.minMember in body should be greater than or equal to 1");
    }
  }
  if (auto t = spec->find("scheduleTimeoutSeconds"); t != spec->end() && !t->is_number_integer()) {
    errs.Invalid("spec.scheduleTimeoutSeconds", t->dump(),
                 "spec.scheduleTimeoutSeconds in body must be of type integer");
  }
  if (auto r = spec->find("minResources"); r != spec->end() && r->is_object()) {
    for (const auto& [name, q] : r->items()) {
      const std::string text = q.is_string() ? q.get<std::string>() : q.dump();
      static const std::regex kQuantity(kQuantityPattern);
      if (!std::regex_match(text, kQuantity)) {
        const std::string path = field::Child("spec.minResources", name);
        errs.Invalid(path, q.is_string() ? field::Quote(text) : text,
                     path + " in body should match '" + kQuantityPattern + "'");
      }
    }
  }
  return errs.ToStatus();
}

}  // namespace

// The fields of the CRD's schema (crd.yaml's openAPIV3Schema, its descriptions and value checks
// left out: ValidatePodGroup makes those); a test checks it against crd.yaml.
constexpr char kPodGroupSchema[] = R"({"type": "object", "properties": {
  "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
  "spec": {"type": "object", "properties": {
    "minMember": {"type": "integer"},
    "minResources": {"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": true}},
    "scheduleTimeoutSeconds": {"type": "integer"}}},
  "status": {"type": "object", "properties": {
    "failed": {"type": "integer"}, "occupiedBy": {"type": "string"}, "phase": {"type": "string"},
    "running": {"type": "integer"}, "scheduleStartTime": {"type": "string"},
    "succeeded": {"type": "integer"}}}}})";

CustomResource PodGroupResource() {
  static const nlohmann::json* schema = new nlohmann::json(nlohmann::json::parse(kPodGroupSchema));
  return {.resource = kPodGroupResource,
          .kind = "PodGroup",
          .validate = ValidatePodGroup,
          .schema = *schema};
}

// --- Args ----------------------------------------------------------------------------------------

absl::StatusOr<CoschedulingArgs> ParseCoschedulingArgs(const nlohmann::json& args,
                                                       std::string_view path) {
  CoschedulingArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(field::CheckObject(
      args, path,
      {"permitWaitingTimeSeconds", "podGroupBackoffSeconds", "podGroupRejectPercentage"}, true));
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  KSCHED_RETURN_IF_ERROR(field::DecodeOptionalInt(args, path, "permitWaitingTimeSeconds", kMin,
                                                  kMax, &out.permit_waiting_time_seconds));
  KSCHED_RETURN_IF_ERROR(field::DecodeOptionalInt(args, path, "podGroupBackoffSeconds", kMin, kMax,
                                                  &out.pod_group_backoff_seconds));
  int64_t percentage = out.pod_group_reject_percentage;
  KSCHED_RETURN_IF_ERROR(field::DecodeOptionalInt(
      args, path, "podGroupRejectPercentage", std::numeric_limits<int32_t>::min(),
      std::numeric_limits<int32_t>::max(), &percentage));
  out.pod_group_reject_percentage = static_cast<int32_t>(percentage);
  // ValidateCoschedulingArgs: its paths start at the args, whatever `path` is.
  field::ErrorList errs;
  if (out.permit_waiting_time_seconds < 0) {
    errs.Invalid("permitWaitingTimeSeconds", std::to_string(out.permit_waiting_time_seconds),
                 "must be greater than 0");
  }
  if (out.pod_group_backoff_seconds < 0) {
    errs.Invalid("podGroupBackoffSeconds", std::to_string(out.pod_group_backoff_seconds),
                 "must be greater than 0");
  }
  if (out.pod_group_reject_percentage < 0 || out.pod_group_reject_percentage > 100) {
    errs.Invalid("podGroupRejectPercentage", std::to_string(out.pod_group_reject_percentage),
                 "must be between 0 and 100");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json CoschedulingArgsToJson(const CoschedulingArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "CoschedulingArgs"},
          {"permitWaitingTimeSeconds", args.permit_waiting_time_seconds},
          {"podGroupBackoffSeconds", args.pod_group_backoff_seconds},
          {"podGroupRejectPercentage", args.pod_group_reject_percentage}};
}

// --- The plugin ----------------------------------------------------------------------------------

Coscheduling::Coscheduling(CoschedulingArgs args, Handle& handle)
    : args_(args),
      handle_(handle),
      pods_(handle.pods()),
      groups_(handle.WatchCustomResource(PodGroupResource())) {}

Coscheduling::Group Coscheduling::GroupOf(const api::Pod& pod) const {
  Group g;
  g.name = std::string(GroupLabel(pod));
  if (g.name.empty()) return g;
  g.key = pod.metadata.namespace_ + "/" + g.name;
  if (std::shared_ptr<const CustomObject> pg = groups_.Get(pod.metadata.namespace_, g.name)) {
    g.spec = SpecOf(*pg);
  }
  return g;
}

std::vector<std::shared_ptr<const api::Pod>> Coscheduling::Members(std::string_view ns,
                                                                   std::string_view group) const {
  std::vector<std::shared_ptr<const api::Pod>> out = pods_.List(ns);
  std::erase_if(out, [&](const auto& p) { return GroupLabel(*p) != group; });
  return out;
}

size_t Coscheduling::AssignedLocked(const Group& g, std::string_view ns) {
  std::set<std::string, std::less<>> names;
  std::set<std::string, std::less<>> live;
  for (const auto& p : Members(ns, g.name)) {
    live.insert(p->metadata.name);
    if (!p->spec.node_name.empty()) names.insert(p->metadata.name);  // The informer's Add.
  }
  if (auto it = assigned_.find(g.key); it != assigned_.end()) {
    // A pod deleted (or finished) leaves the set, as the informer's Delete takes it out.
    std::erase_if(it->second, [&](const std::string& n) { return !live.contains(n); });
    names.insert(it->second.begin(), it->second.end());
  }
  return names.size();
}

void Coscheduling::RejectWaiting(std::string_view ns, std::string_view group,
                                 const std::string& message) {
  handle_.IterateOverWaitingPods([&](WaitingPod& wp) {
    if (wp.pod().metadata.namespace_ == ns && GroupLabel(wp.pod()) == group) {
      wp.Reject(kName, message);
    }
  });
}

absl::Time Coscheduling::CreationTimestamp(const QueuedPodInfo& info) const {
  const api::Pod& pod = info.pod();
  const std::string_view group = GroupLabel(pod);
  if (group.empty()) return info.initial_attempt_timestamp;
  {
    absl::MutexLock lock(&mu_);
    auto it = last_failed_.find(pod.metadata.namespace_ + "/" + std::string(group));
    if (it != last_failed_.end()) return it->second;
  }
  std::shared_ptr<const CustomObject> pg = groups_.Get(pod.metadata.namespace_, group);
  if (pg == nullptr) return info.initial_attempt_timestamp;
  return ParseTime(pg->metadata.creation_timestamp);
}

bool Coscheduling::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  const int32_t pa = api::PodPriority(a.pod());
  const int32_t pb = api::PodPriority(b.pod());
  if (pa != pb) return pa > pb;
  const absl::Time ta = CreationTimestamp(a);
  const absl::Time tb = CreationTimestamp(b);
  if (ta == tb) return api::KeyOf(a.pod().metadata) < api::KeyOf(b.pod().metadata);
  return ta < tb;
}

Status Coscheduling::CheckClusterResource(const std::vector<const NodeInfo*>& nodes,
                                          const Group& g) const {
  std::map<std::string, GoQuantity> need;
  for (const auto& [name, text] : *g.spec->min_resources) {
    std::optional<GoQuantity> q = ParseGoQuantity(text);
    if (!q) {  // Never left out: the group waits, and says why.
      return Status::UnschedulableAndUnresolvable(
          fmt::format("minResources[{}]: cannot read the quantity {}", name, field::Quote(text)));
    }
    need[name] = *q;
  }
  need["pods"] = GoQuantity{.value = g.spec->min_member, .format = "DecimalSI"};
  for (const NodeInfo* ni : nodes) {
    if (ni == nullptr || ni->node() == nullptr) continue;
    // What is left on the node with the group's own pods taken off it.
    Resource requested = ni->requested();
    int64_t pods = static_cast<int64_t>(ni->pods().size());
    for (const auto& pi : ni->pods()) {
      const api::Pod& p = *pi->pod;
      if (GroupLabel(p).empty() ||
          p.metadata.namespace_ + "/" + std::string(GroupLabel(p)) != g.key) {
        continue;
      }
      requested.Subtract(pi->requests);
      --pods;
    }
    const Resource& alloc = ni->allocatable();
    std::map<std::string, GoQuantity, std::less<>> left = {
        {"cpu",
         {.value = alloc.milli_cpu - requested.milli_cpu, .scale = -3, .format = "DecimalSI"}},
        {"memory", {.value = alloc.memory - requested.memory, .format = "BinarySI"}},
        {"pods", {.value = alloc.allowed_pod_number - pods, .format = "BinarySI"}},
        {"ephemeral-storage",
         {.value = alloc.ephemeral_storage - requested.ephemeral_storage, .format = "BinarySI"}}};
    for (const auto& [name, v] : alloc.scalar) {
      auto used = requested.scalar.find(name);
      left[name] = {.value = used == requested.scalar.end() ? v : v - used->second,
                    .format = name.starts_with("hugepages-") ? "BinarySI" : "DecimalSI"};
    }
    for (auto it = need.begin(); it != need.end();) {
      auto l = left.find(it->first);
      it->second.Sub(l == left.end() ? GoQuantity{} : l->second);
      it = it->second.Sign() <= 0 ? need.erase(it) : std::next(it);
    }
    if (need.empty()) return Status();
  }
  std::string gap = "resource gap: map[";
  bool first = true;
  for (const auto& [name, q] : need) {
    gap += fmt::format("{}{}:{}", first ? "" : " ", name, q.Go());
    first = false;
  }
  return Status::UnschedulableAndUnresolvable(gap + "]");
}

Status Coscheduling::PreFilter(CycleState&, const api::Pod& pod,
                               const std::vector<const NodeInfo*>& nodes, PreFilterResult*) {
  const Group g = GroupOf(pod);
  if (!g.spec) return Status();
  const absl::Time now = handle_.Now();
  {
    absl::MutexLock lock(&mu_);
    auto it = backed_off_.find(g.key);
    if (it != backed_off_.end() && it->second > now) {
      return Status::UnschedulableAndUnresolvable(
          fmt::format("podGroup {} failed recently", g.key));
    }
  }
  const std::vector<std::shared_ptr<const api::Pod>> members =
      Members(pod.metadata.namespace_, g.name);
  int64_t gap = static_cast<int64_t>(g.spec->min_member) - static_cast<int64_t>(members.size());
  if (gap > 0) {
    return Status::UnschedulableAndUnresolvable(fmt::format(
        "pre-filter pod {} cannot find enough sibling pods, current pods number: {}, minMember of "
        "group: {}",
        pod.metadata.name, members.size(), g.spec->min_member));
  }
  for (const auto& p : members) {
    if (!p->spec.scheduling_gates.empty()) ++gap;
    if (gap > 0) {
      return Status::UnschedulableAndUnresolvable(
          fmt::format("pre-filter pod {} cannot proceed due to gated pods in the same PodGroup",
                      pod.metadata.name));
    }
  }
  if (!g.spec->min_resources) return Status();
  {
    absl::MutexLock lock(&mu_);
    auto it = permitted_.find(g.key);
    if (it != permitted_.end() && it->second > now) return Status();
  }
  if (Status gap = CheckClusterResource(nodes, g); !gap.ok()) return gap;
  absl::MutexLock lock(&mu_);
  auto [it, added] = permitted_.try_emplace(g.key);
  if (added || it->second <= now) {  // go-cache's Add keeps an entry that has not expired.
    const absl::Duration ttl = absl::Seconds(args_.permit_waiting_time_seconds);
    it->second = now + (ttl == absl::ZeroDuration() ? kPermittedDefaultTtl : ttl);
  }
  return Status();
}

Status Coscheduling::PostFilter(CycleState&, const api::Pod& pod, const NodeToStatus&,
                                PostFilterResult*) {
  const Group g = GroupOf(pod);
  if (!g.spec) return Status::Unschedulable("can not find pod group");
  const int32_t min = g.spec->min_member;
  size_t assigned;
  {
    absl::MutexLock lock(&mu_);
    assigned = AssignedLocked(g, pod.metadata.namespace_);
  }
  if (assigned >= static_cast<size_t>(std::max(min, 0))) return Status(Code::kUnschedulable);
  const double not_assigned =
      static_cast<double>(min - static_cast<int64_t>(assigned)) / static_cast<double>(min);
  if (not_assigned <= static_cast<double>(args_.pod_group_reject_percentage) / 100.0) {
    return Status(Code::kUnschedulable);
  }
  RejectWaiting(pod.metadata.namespace_, g.name, "optimistic rejection in PostFilter");
  const absl::Time now = handle_.Now();
  absl::MutexLock lock(&mu_);
  if (args_.pod_group_backoff_seconds > 0 &&
      Members(pod.metadata.namespace_, g.name).size() >= static_cast<size_t>(min)) {
    auto [it, added] = backed_off_.try_emplace(g.key);
    if (added || it->second <= now)
      it->second = now + absl::Seconds(args_.pod_group_backoff_seconds);
  }
  permitted_.erase(g.key);
  last_failed_[g.key] = now;
  return Status::Unschedulable(
      fmt::format("PodGroup {} gets rejected due to Pod {} is unschedulable even after PostFilter",
                  g.key, pod.metadata.name));
}

Status Coscheduling::Reserve(CycleState&, const api::Pod&, std::string_view) { return Status(); }

void Coscheduling::Unreserve(CycleState&, const api::Pod& pod, std::string_view) {
  const Group g = GroupOf(pod);
  if (!g.spec) return;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = assigned_.find(g.key); it != assigned_.end()) {
      it->second.erase(pod.metadata.name);
      if (it->second.empty()) assigned_.erase(it);
    }
  }
  RejectWaiting(pod.metadata.namespace_, g.name, "rejection in Unreserve");
  const absl::Time now = handle_.Now();
  absl::MutexLock lock(&mu_);
  permitted_.erase(g.key);
  last_failed_[g.key] = now;
}

Status Coscheduling::Permit(CycleState&, const api::Pod& pod, std::string_view,
                            absl::Duration* timeout) {
  const Group g = GroupOf(pod);
  if (g.name.empty()) return Status();
  if (!g.spec) return Status::Unschedulable("PodGroup not found");
  size_t assigned;
  {
    absl::MutexLock lock(&mu_);
    assigned_[g.key].insert(pod.metadata.name);
    assigned = AssignedLocked(g, pod.metadata.namespace_);
    if (assigned >= static_cast<size_t>(std::max(g.spec->min_member, 0))) {
      last_failed_.erase(g.key);
    }
  }
  if (assigned >= static_cast<size_t>(std::max(g.spec->min_member, 0))) {
    handle_.IterateOverWaitingPods([&](WaitingPod& wp) {
      if (wp.pod().metadata.namespace_ == pod.metadata.namespace_ &&
          GroupLabel(wp.pod()) == g.name) {
        wp.Allow(kName);
      }
    });
    return Status();
  }
  // util.GetWaitTimeDuration: the group's timeout, else the args', else 60 s; a 0 keeps the args'.
  absl::Duration wait = absl::Seconds(args_.permit_waiting_time_seconds);
  const absl::Duration chosen = g.spec->schedule_timeout_seconds
                                    ? absl::Seconds(*g.spec->schedule_timeout_seconds)
                                : wait != absl::ZeroDuration() ? wait
                                                               : kDefaultWaitTime;
  if (chosen != absl::ZeroDuration()) wait = chosen;
  *timeout = wait;
  if (assigned == 1) {
    // The first of the group to wait brings its siblings back (PodsToActivate).
    std::vector<std::shared_ptr<const api::Pod>> siblings =
        Members(pod.metadata.namespace_, g.name);
    std::erase_if(siblings, [&](const auto& p) { return p->metadata.uid == pod.metadata.uid; });
    if (!siblings.empty()) handle_.Activate(siblings);
  }
  return Status(Code::kWait);
}

std::vector<ClusterEventWithHint> Coscheduling::EventsToRegister() const {
  return {{{EventResource::kPod, kAdd}, nullptr},
          {{EventResource::kCustom, kAdd | kUpdate, "", kPodGroupResource}, nullptr}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const CoschedulingArgs& args, Handle& handle) {
  return std::make_unique<Coscheduling>(args, handle);
}

absl::Status Register(Registry& registry) {
  return registry.Register(
      MakePluginSpec(kName, ParseCoschedulingArgs, CoschedulingArgsToJson, New));
}

}  // namespace ksched::coscheduling
