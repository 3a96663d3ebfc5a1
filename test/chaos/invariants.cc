#include "test/chaos/invariants.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "fmt/format.h"

namespace ksched::chaos {
namespace {

using nlohmann::json;

absl::Time ParseTime(const json& j, const char* key) {
  absl::Time t = absl::InfinitePast();
  std::string err;
  if (j.contains(key) && j[key].is_string()) {
    (void)absl::ParseTime(absl::RFC3339_full, j[key].get<std::string>(), &t, &err);
  }
  return t;
}

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string KeyOf(const json& object) {
  const json& m = object.value("metadata", json::object());
  return Str(m, "namespace") + "/" + Str(m, "name");
}

bool IsBind(const AuditRecord& r) {
  return r.verb == "create" &&
         (r.resource == "bindings" || (r.resource == "pods" && r.subresource == "binding"));
}

// What a pod requests of each resource, in thousandths: the larger of its containers' sum and
// each init container, plus its overhead, as the scheduler counts it; "pods" is 1000.
std::map<std::string, int64_t> Requests(const json& pod) {
  std::map<std::string, int64_t> sum;
  const json& spec = pod.value("spec", json::object());
  auto add = [](const json& c, std::map<std::string, int64_t>* into, bool max) {
    const json& req = c.value("resources", json::object()).value("requests", json::object());
    for (const auto& [name, q] : req.items()) {
      const int64_t v = q.is_string() ? MilliValue(q.get<std::string>()).value_or(0) : 0;
      (*into)[name] = max ? std::max((*into)[name], v) : (*into)[name] + v;
    }
  };
  for (const json& c : spec.value("containers", json::array())) add(c, &sum, false);
  for (const json& c : spec.value("initContainers", json::array())) add(c, &sum, true);
  json overhead = {{"resources", {{"requests", spec.value("overhead", json::object())}}}};
  add(overhead, &sum, false);
  sum["pods"] = 1000;
  return sum;
}

}  // namespace

std::optional<int64_t> MilliValue(std::string_view q) {
  static const std::map<std::string_view, double> kSuffix = {{"", 1},
                                                             {"m", 1e-3},
                                                             {"k", 1e3},
                                                             {"M", 1e6},
                                                             {"G", 1e9},
                                                             {"T", 1e12},
                                                             {"P", 1e15},
                                                             {"Ki", 1024.0},
                                                             {"Mi", 1048576.0},
                                                             {"Gi", 1073741824.0},
                                                             {"Ti", 1099511627776.0}};
  size_t end = 0;
  while (end < q.size() && (std::isdigit(static_cast<unsigned char>(q[end])) != 0 ||
                            q[end] == '.' || (end == 0 && (q[end] == '+' || q[end] == '-')))) {
    ++end;
  }
  auto suffix = kSuffix.find(q.substr(end));
  if (end == 0 || suffix == kSuffix.end()) return std::nullopt;
  double number = 0;
  if (std::from_chars(q.data(), q.data() + end, number).ec != std::errc()) return std::nullopt;
  return static_cast<int64_t>(std::ceil(number * suffix->second * 1000 - 1e-6));
}

std::optional<AuditRecord> ParseAuditLine(std::string_view line) {
  json e = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!e.is_object() || Str(e, "stage") != "ResponseComplete") return std::nullopt;
  const json& ref = e.value("objectRef", json::object());
  AuditRecord r{.verb = Str(e, "verb"),
                .resource = Str(ref, "resource"),
                .subresource = Str(ref, "subresource"),
                .ns = Str(ref, "namespace"),
                .name = Str(ref, "name"),
                .user = Str(e.value("user", json::object()), "username"),
                .code = e.value("responseStatus", json::object()).value("code", 0),
                .received = ParseTime(e, "requestReceivedTimestamp"),
                .completed = ParseTime(e, "stageTimestamp")};
  const json& body = e.value("requestObject", json::object());
  r.holder = Str(body.value("spec", json::object()), "holderIdentity");
  // A binding posted to the bindings collection names its pod in the body's metadata; the
  // audit's objectRef may lack the name then.
  if (r.name.empty()) r.name = Str(body.value("metadata", json::object()), "name");
  return r;
}

void Invariants::AddAuditLine(std::string_view line) {
  if (std::optional<AuditRecord> r = ParseAuditLine(line)) Add(*r);
}

void Invariants::Add(const AuditRecord& r) {
  if (r.code < 200 || r.code >= 300) return;
  if (IsBind(r)) {
    binds_.push_back(r);
  } else if (r.resource == "leases" && r.ns == options_.lease_namespace &&
             r.name == options_.lease_name) {
    leases_.push_back(r);
  }
}

std::string Invariants::leader() const { return leases_.empty() ? "" : leases_.back().holder; }

std::vector<Violation> Invariants::CheckBinds() const {
  std::vector<Violation> out;
  std::map<std::string, const AuditRecord*> first;
  for (const AuditRecord& b : binds_) {
    const std::string key = b.ns + "/" + b.name;
    auto [it, fresh] = first.emplace(key, &b);
    if (!fresh) {
      out.push_back(
          {"double-bind", fmt::format("pod {} bound by {} at {} and again by {} at {}", key,
                                      it->second->user, absl::FormatTime(it->second->completed),
                                      b.user, absl::FormatTime(b.completed))});
    }
  }
  // The Lease writes in the order the API server committed them; who held it after each.
  std::vector<const AuditRecord*> writes;
  for (const AuditRecord& l : leases_) writes.push_back(&l);
  std::stable_sort(writes.begin(), writes.end(),
                   [](auto* a, auto* b) { return a->completed < b->completed; });
  for (const AuditRecord& b : binds_) {
    // The last Lease write committed before the bind was received.
    auto it = std::upper_bound(writes.begin(), writes.end(), b.received,
                               [](absl::Time t, const AuditRecord* w) { return t < w->completed; });
    const AuditRecord* last = it == writes.begin() ? nullptr : *(it - 1);
    std::string why;
    if (last == nullptr) {
      why = "before any replica held the Lease";
    } else if (last->user != b.user || last->holder.empty()) {
      why = fmt::format("while {} held the Lease (holder \"{}\", written at {})", last->user,
                        last->holder, absl::FormatTime(last->completed));
    } else if (b.received - last->completed > options_.lease_duration) {
      why = fmt::format("{} after its last renewal, beyond the lease duration",
                        absl::FormatDuration(b.received - last->completed));
    }
    if (!why.empty()) {
      out.push_back({"non-leader-bind", fmt::format("pod {}/{} bound by {} at {} {}", b.ns, b.name,
                                                    b.user, absl::FormatTime(b.received), why)});
    }
  }
  return out;
}

namespace {

// What the bound, non-terminal pods of each node request, by resource (thousandths).
std::map<std::string, std::map<std::string, int64_t>> UsedByNode(const json& pods) {
  std::map<std::string, std::map<std::string, int64_t>> used;
  for (const json& p : pods.value("items", json::array())) {
    const std::string node = Str(p.value("spec", json::object()), "nodeName");
    const std::string phase = Str(p.value("status", json::object()), "phase");
    if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
    for (const auto& [name, v] : Requests(p)) used[node][name] += v;
  }
  return used;
}

}  // namespace

std::vector<Violation> Invariants::CheckCapacity(const json& nodes, const json& pods) {
  const auto used = UsedByNode(pods);
  std::vector<Violation> out;
  for (const json& n : nodes.value("items", json::array())) {
    const std::string name = Str(n.value("metadata", json::object()), "name");
    auto u = used.find(name);
    if (u == used.end()) continue;
    const json& allocatable =
        n.value("status", json::object()).value("allocatable", json::object());
    for (const auto& [resource, v] : u->second) {
      const int64_t cap = allocatable.contains(resource) && allocatable[resource].is_string()
                              ? MilliValue(allocatable[resource].get<std::string>()).value_or(0)
                              : 0;
      if (v > cap) {
        out.push_back(
            {"overcommit", fmt::format("node {}: its pods request {}m of {}, which has {}m", name,
                                       v, resource, cap)});
      }
    }
  }
  return out;
}

namespace {

// Room left on each schedulable node: its allocatable less the requests of its bound pods, by
// resource (thousandths).
std::map<std::string, std::map<std::string, int64_t>> Room(const json& nodes, const json& pods) {
  std::map<std::string, std::map<std::string, int64_t>> room;
  for (const json& n : nodes.value("items", json::array())) {
    if (n.value("spec", json::object()).value("unschedulable", false)) continue;
    if (!n.value("spec", json::object()).value("taints", json::array()).empty()) continue;
    auto& r = room[Str(n.value("metadata", json::object()), "name")];
    const json allocatable = n.value("status", json::object()).value("allocatable", json::object());
    for (const auto& [resource, q] : allocatable.items()) {
      r[resource] = q.is_string() ? MilliValue(q.get<std::string>()).value_or(0) : 0;
    }
  }
  for (const auto& [node, used] : UsedByNode(pods)) {
    auto it = room.find(node);
    if (it == room.end()) continue;
    for (const auto& [name, v] : used) it->second[name] -= v;
  }
  return room;
}

// A node of `room` that `pod` fits, or "".
std::string FitsOn(const json& pod, const json& nodes,
                   const std::map<std::string, std::map<std::string, int64_t>>& room) {
  const json selector = pod.value("spec", json::object()).value("nodeSelector", json::object());
  const std::map<std::string, int64_t> wants = Requests(pod);
  for (const json& n : nodes.value("items", json::array())) {
    const json& meta = n.value("metadata", json::object());
    auto r = room.find(Str(meta, "name"));
    if (r == room.end()) continue;
    const json labels = meta.value("labels", json::object());
    bool fits = true;
    for (const auto& [key, value] : selector.items()) {
      fits = fits && labels.contains(key) && labels[key] == value;
    }
    for (const auto& [resource, v] : wants) {
      auto left = r->second.find(resource);
      fits = fits && left != r->second.end() && left->second >= v;
    }
    if (fits) return r->first;
  }
  return "";
}

}  // namespace

void Invariants::NoteFitting(const json& nodes, const json& pods, absl::Time at) {
  const auto room = Room(nodes, pods);
  std::map<std::string, Fitting> still;
  for (const json& p : pods.value("items", json::array())) {
    if (!Str(p.value("spec", json::object()), "nodeName").empty()) continue;
    if (p.value("metadata", json::object()).contains("deletionTimestamp")) continue;
    const std::string node = FitsOn(p, nodes, room);
    if (node.empty()) continue;
    const std::string key = KeyOf(p);
    auto before = fitting_.find(key);
    Fitting f = before == fitting_.end() ? Fitting{.since = at} : before->second;
    if (!f.reported && at - f.since >= options_.fit_within) {
      f.reported = true;
      fits_but_pending_.push_back(
          {"fits-but-pending",
           fmt::format("pod {} fitted a node for {} (node {} at the last look) and was pending",
                       key, absl::FormatDuration(at - f.since), node)});
    }
    still[key] = f;
  }
  fitting_ = std::move(still);
}

std::vector<Violation> Invariants::CheckOutcomes(const json& pods, const json& events,
                                                 absl::Time now,
                                                 std::vector<std::string>* lost_to_kill) const {
  std::set<std::string> with_event;
  for (const json& e : events.value("items", json::array())) {
    if (Str(e, "reason") != "Scheduled") continue;
    const json& about = e.value("regarding", json::object());
    with_event.insert(Str(about, "namespace") + "/" + Str(about, "name"));
  }
  std::vector<Violation> out;
  std::set<std::string> bound;
  for (const AuditRecord& b : binds_) bound.insert(b.ns + "/" + b.name);
  for (const json& p : pods.value("items", json::array())) {
    const std::string key = KeyOf(p);
    if (!Str(p.value("spec", json::object()), "nodeName").empty()) {
      bound.insert(key);
      continue;
    }
    const absl::Time created = ParseTime(p.value("metadata", json::object()), "creationTimestamp");
    if (now - created < options_.decide_within) continue;
    bool decided = false;
    for (const json& c : p.value("status", json::object()).value("conditions", json::array())) {
      decided |= Str(c, "type") == "PodScheduled" && Str(c, "status") == "False";
    }
    if (!decided) {
      out.push_back({"not-decided", fmt::format("pod {} is pending {} after its creation without "
                                                "PodScheduled=False",
                                                key, absl::FormatDuration(now - created))});
    }
  }
  // The pods whose binder was killed right after binding them.
  std::set<std::string> killed_after_bind;
  for (const AuditRecord& b : binds_) {
    auto [first, last] = kills_.equal_range(b.user);
    for (auto k = first; k != last; ++k) {
      if (k->second >= b.received && k->second - b.completed <= options_.killed_within) {
        killed_after_bind.insert(b.ns + "/" + b.name);
      }
    }
  }
  for (const std::string& key : bound) {
    if (with_event.contains(key)) continue;
    if (killed_after_bind.contains(key)) {
      if (lost_to_kill != nullptr) lost_to_kill->push_back(key);
      continue;
    }
    out.push_back({"no-event", fmt::format("pod {} was bound but has no Scheduled event", key)});
  }
  return out;
}

}  // namespace ksched::chaos
