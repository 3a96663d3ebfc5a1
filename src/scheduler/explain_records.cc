#include "src/scheduler/explain_records.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/strings.h"

namespace ksched::scheduler {

namespace {

// A set of node indexes: a sorted list, or a bitmap where that takes less memory (many nodes
// rejected for one reason).
class NodeSet {
 public:
  NodeSet(std::vector<uint32_t> ids, size_t universe) : count_(ids.size()) {
    std::sort(ids.begin(), ids.end());
    const size_t words = (universe + 63) / 64;
    if (words * sizeof(uint64_t) < ids.size() * sizeof(uint32_t)) {
      bits_.assign(words, 0);
      for (uint32_t id : ids) bits_[id / 64] |= uint64_t{1} << (id % 64);
    } else {
      ids_ = std::move(ids);
      ids_.shrink_to_fit();
    }
  }
  size_t count() const { return count_; }
  size_t bytes() const {
    return sizeof(*this) + ids_.capacity() * sizeof(uint32_t) + bits_.capacity() * sizeof(uint64_t);
  }
  template <typename F>
  void ForEach(F f) const {
    for (uint32_t id : ids_) f(id);
    for (size_t w = 0; w < bits_.size(); ++w) {
      for (uint64_t b = bits_[w]; b != 0; b &= b - 1) {
        f(static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(b))));
      }
    }
  }

 private:
  size_t count_;
  std::vector<uint32_t> ids_;
  std::vector<uint64_t> bits_;
};

size_t StringBytes(const std::string& s) { return sizeof(s) + (s.size() > 15 ? s.capacity() : 0); }

size_t StringsBytes(const std::vector<std::string>& v) {
  size_t n = sizeof(v);
  for (const std::string& s : v) n += StringBytes(s);
  return n;
}

}  // namespace

// A status shared by a set of nodes.
struct Rejection {
  std::string plugin;
  Code code;
  std::vector<std::string> reasons;
  std::optional<NodeSet> nodes;  // Set once the nodes are all in.
  bool Same(const Status& s) const {
    return s.code() == code && s.plugin() == plugin && s.reasons() == reasons;
  }
  nlohmann::ordered_json Json() const {
    nlohmann::ordered_json j;
    j["plugin"] = plugin;
    j["code"] = std::string(CodeName(code));
    j["reasons"] = reasons;
    return j;
  }
};

// What a record keeps of its attempt besides the nodes.
struct Head {
  std::string namespace_, name, uid, profile;
  absl::Time time;
  int attempts = 0;
  std::string result, node, message;
  int num_nodes = 0;  // The nodes the attempt considered.
  int feasible = 0;   // Those that passed every filter, when it was scheduled.
  std::optional<std::string> nominated;
  std::vector<std::string> victims;
  std::vector<std::pair<std::string, std::vector<std::string>>> waiting_for;
  // What its PodGroup's cycle decided, when it was tried in one: apart, so that the records of
  // other pods do not grow by it.
  struct Group {
    std::string name, reason, message;
    std::string placement;  // The topology domain it was tried in, if any.
  };
  std::unique_ptr<const Group> group;
};

struct ExplainRecords::Kept {
  Head attempt;
  std::vector<Rejection> rejected;
  // The nodes no filter looked at: how many, and the status PreFilter gave them, if any.
  int not_evaluated = 0;
  std::optional<Rejection> absent;
  // The best-scored nodes, best first, of `scored`: their weighted scores, weighted[p *
  // score_nodes.size() + n], in 32 bits when every one fits (a plugin's score is at most 100 times
  // its weight), else in 64; a node's total is their sum.
  int scored = 0;
  std::shared_ptr<const std::vector<std::string>> score_plugins;  // A profile's records share it.
  std::vector<uint32_t> score_nodes;
  std::vector<int32_t> weighted32;
  std::vector<int64_t> weighted64;
  size_t bytes = 0;

  int64_t Weighted(size_t plugin, size_t node) const {
    const size_t i = plugin * score_nodes.size() + node;
    return weighted64.empty() ? weighted32[i] : weighted64[i];
  }
};

uint32_t ExplainRecords::NodeId(std::string_view node) {
  auto it = node_ids_.find(AsAbsl(node));
  if (it != node_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(node_names_.size());
  node_names_.emplace_back(node);
  node_ids_.emplace(std::string(node), id);
  node_bytes_ += 2 * StringBytes(node_names_.back()) + sizeof(uint32_t) + 16;
  return id;
}

void ExplainRecords::Observe(const Attempt& attempt) {
  auto r = std::make_shared<Kept>();
  const api::Pod& pod = *attempt.pod;
  // A binding cycle's failure considered its one node; a scheduling cycle, the cluster's.
  const Diagnosis* d = attempt.diagnosis;
  const size_t num_nodes = !attempt.in_binding ? static_cast<size_t>(attempt.cluster_nodes)
                           : d != nullptr      ? d->node_to_status.statuses.size()
                                               : 0;
  const framework::ScoreTable* scores = attempt.Scheduled() ? attempt.scores : nullptr;
  r->attempt =
      Head{.namespace_ = pod.metadata.namespace_,
           .name = pod.metadata.name,
           .uid = pod.metadata.uid,
           .profile = pod.spec.scheduler_name,
           .time = attempt.time,
           .attempts = attempt.attempts,
           .result = attempt.result,
           .node = attempt.node,
           .message = attempt.message,
           .num_nodes = static_cast<int>(num_nodes),
           .feasible = attempt.Scheduled() ? static_cast<int>(attempt.feasible.size()) : 0,
           .nominated = attempt.nominated,
           .victims = attempt.victims,
           .waiting_for = attempt.waiting_for,
           .group = attempt.pod_group.empty() ? nullptr
                                              : std::make_unique<const Head::Group>(Head::Group{
                                                    attempt.pod_group, attempt.group_reason,
                                                    attempt.group_message, attempt.placement})};
  absl::MutexLock lock(&mu_);
  // Nodes come and go: an index that holds far more names than the cluster has nodes is made
  // afresh, with the records that point into it.
  if (attempt.cluster_nodes > 0 &&
      node_names_.size() > 2 * static_cast<size_t>(attempt.cluster_nodes) + 1024) {
    by_uid_.clear();
    uid_by_name_.clear();
    decided_.clear();
    pending_.clear();
    node_ids_.clear();
    node_names_.clear();
    bytes_ = node_bytes_ = 0;
  }
  size_t evaluated = static_cast<size_t>(r->attempt.feasible);
  if (d != nullptr) {
    std::vector<std::vector<uint32_t>> ids;
    size_t last = 0;
    for (const auto& [node, status] : d->node_to_status.statuses) {
      size_t g = last;
      if (g >= r->rejected.size() || !r->rejected[g].Same(status)) {
        g = 0;
        while (g < r->rejected.size() && !r->rejected[g].Same(status)) ++g;
        if (g == r->rejected.size()) {
          r->rejected.push_back({.plugin = std::string(status.plugin()),
                                 .code = status.code(),
                                 .reasons = status.reasons()});
          ids.emplace_back();
        }
      }
      ids[g].push_back(NodeId(node));
      last = g;
    }
    for (size_t g = 0; g < ids.size(); ++g) {
      r->rejected[g].nodes.emplace(std::move(ids[g]), node_names_.size());
    }
    evaluated += d->node_to_status.statuses.size();
    const Status& absent = d->node_to_status.absent;
    if (!absent.plugin().empty() || !absent.reasons().empty()) {
      r->absent = Rejection{.plugin = std::string(absent.plugin()),
                            .code = absent.code(),
                            .reasons = absent.reasons()};
    }
  }
  r->not_evaluated = std::max(0, r->attempt.num_nodes - static_cast<int>(evaluated));
  if (const framework::ScoreTable* s = scores) {
    // The best kScoresKept, best first (the earlier node first among equals).
    const size_t n = s->nodes.size();
    r->scored = static_cast<int>(n);
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    auto better = [&](size_t x, size_t y) {
      return s->totals[x] != s->totals[y] ? s->totals[x] > s->totals[y] : x < y;
    };
    const size_t kept = std::min(n, kScoresKept);
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(),
                     better);
    order.resize(kept);
    std::sort(order.begin(), order.end(), better);
    if (score_plugins_ == nullptr || !std::equal(score_plugins_->begin(), score_plugins_->end(),
                                                 s->plugins.begin(), s->plugins.end())) {
      score_plugins_ =
          std::make_shared<const std::vector<std::string>>(s->plugins.begin(), s->plugins.end());
    }
    r->score_plugins = score_plugins_;
    r->score_nodes.reserve(kept);
    for (size_t i : order) r->score_nodes.push_back(NodeId(s->nodes[i]->name()));
    bool fit32 = true;
    for (size_t p = 0; p < s->plugins.size(); ++p) {
      for (size_t i : order) {
        const int64_t w = s->Weighted(p, i);
        fit32 = fit32 && w >= std::numeric_limits<int32_t>::min() &&
                w <= std::numeric_limits<int32_t>::max();
      }
    }
    for (size_t p = 0; p < s->plugins.size(); ++p) {
      for (size_t i : order) {
        if (fit32) {
          r->weighted32.push_back(static_cast<int32_t>(s->Weighted(p, i)));
        } else {
          r->weighted64.push_back(s->Weighted(p, i));
        }
      }
    }
  }
  // What it takes, as counted: the fixed part, its strings, the sets and the scores.
  const Head& a = r->attempt;
  size_t bytes = sizeof(Kept) + StringBytes(a.namespace_) + StringBytes(a.name) +
                 StringBytes(a.uid) + StringBytes(a.profile) + StringBytes(a.result) +
                 StringBytes(a.node) + StringBytes(a.message) + StringsBytes(a.victims) +
                 (a.nominated ? StringBytes(*a.nominated) : 0);
  if (a.group) {
    bytes += sizeof(Head::Group) + StringBytes(a.group->name) + StringBytes(a.group->reason) +
             StringBytes(a.group->message);
  }
  for (const auto& [plugin, events] : a.waiting_for)
    bytes += StringBytes(plugin) + StringsBytes(events);
  for (const Rejection& j : r->rejected) {
    bytes += sizeof(j) + StringBytes(j.plugin) + StringsBytes(j.reasons) + j.nodes->bytes();
  }
  if (r->absent) bytes += StringBytes(r->absent->plugin) + StringsBytes(r->absent->reasons);
  bytes += r->score_nodes.capacity() * sizeof(uint32_t) +
           r->weighted32.capacity() * sizeof(int32_t) + r->weighted64.capacity() * sizeof(int64_t);
  // The two maps' entries.
  bytes += 2 * StringBytes(a.uid) + StringBytes(a.namespace_ + "/" + a.name) + 64;
  r->bytes = bytes;

  const std::string uid = a.uid;
  Drop(uid);
  const uint64_t seq = next_seq_++;
  (attempt.Scheduled() ? decided_ : pending_).emplace(seq, uid);
  uid_by_name_[a.namespace_ + "/" + a.name] = uid;
  bytes_ += r->bytes;
  by_uid_[uid] = Entry{.record = std::move(r), .seq = seq};
  Evict();
}

void ExplainRecords::Drop(const std::string& uid) {
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;
  const Kept& r = *it->second.record;
  bytes_ -= r.bytes;
  decided_.erase(it->second.seq);
  pending_.erase(it->second.seq);
  const std::string key = r.attempt.namespace_ + "/" + r.attempt.name;
  if (auto n = uid_by_name_.find(key); n != uid_by_name_.end() && n->second == uid) {
    uid_by_name_.erase(n);
  }
  by_uid_.erase(it);
}

void ExplainRecords::Evict() {
  while (bytes_ + node_bytes_ > options_.max_bytes && (!decided_.empty() || !pending_.empty())) {
    std::map<uint64_t, std::string>& from = decided_.empty() ? pending_ : decided_;
    const std::string uid = from.begin()->second;
    Drop(uid);
  }
}

void ExplainRecords::Forget(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  Drop(std::string(uid));
}

size_t ExplainRecords::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_ + node_bytes_;
}

size_t ExplainRecords::records() const {
  absl::MutexLock lock(&mu_);
  return by_uid_.size();
}

std::optional<nlohmann::ordered_json> ExplainRecords::Json(std::string_view namespace_,
                                                           std::string_view name) const {
  std::shared_ptr<const Kept> r;
  // The names of the record's nodes, per rejection and for the scores; looked up under the lock,
  // as the index may be made afresh once it is released.
  std::vector<std::vector<std::string>> rejected_nodes;
  std::vector<std::string> scored_nodes;
  {
    absl::MutexLock lock(&mu_);
    auto n = uid_by_name_.find(fmt::format("{}/{}", namespace_, name));
    if (n == uid_by_name_.end()) return std::nullopt;
    r = by_uid_.at(n->second).record;
    std::vector<uint32_t> ids;
    for (const Rejection& g : r->rejected) {
      ids.clear();
      g.nodes->ForEach([&](uint32_t id) { ids.push_back(id); });
      std::vector<std::string>& nodes = rejected_nodes.emplace_back();
      nodes.reserve(ids.size());
      for (uint32_t id : ids) nodes.push_back(node_names_[id]);
    }
    for (uint32_t id : r->score_nodes) scored_nodes.push_back(node_names_[id]);
  }
  const Head& a = r->attempt;
  nlohmann::ordered_json j;
  j["namespace"] = a.namespace_;
  j["name"] = a.name;
  j["uid"] = a.uid;
  j["profile"] = a.profile;
  j["time"] = api::field::MetaTime(a.time);
  j["attempts"] = a.attempts;
  j["result"] = a.result;
  j["node"] = a.node.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.node);
  if (!a.message.empty()) j["message"] = a.message;
  if (a.group) {
    j["podGroup"] = {{"name", a.group->name}, {"reason", a.group->reason}};
    if (!a.group->message.empty()) j["podGroup"]["message"] = a.group->message;
    if (!a.group->placement.empty()) j["podGroup"]["placement"] = a.group->placement;
  }
  j["nodes"] = {{"total", a.num_nodes},
                {"feasible", a.feasible},
                {"rejected", a.num_nodes - a.feasible - r->not_evaluated},
                {"notEvaluated", r->not_evaluated},
                {"scored", r->scored}};
  nlohmann::ordered_json rejected = nlohmann::ordered_json::array();
  for (size_t g = 0; g < r->rejected.size(); ++g) {
    nlohmann::ordered_json e = r->rejected[g].Json();
    std::vector<std::string>& nodes = rejected_nodes[g];
    std::sort(nodes.begin(), nodes.end());
    e["nodes"] = std::move(nodes);
    rejected.push_back(std::move(e));
  }
  // The largest groups first.
  std::stable_sort(rejected.begin(), rejected.end(), [](const auto& x, const auto& y) {
    return x["nodes"].size() > y["nodes"].size();
  });
  j["rejected"] = std::move(rejected);
  if (r->not_evaluated > 0 && r->absent) j["notEvaluated"] = r->absent->Json();
  nlohmann::ordered_json scores = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r->score_nodes.size(); ++i) {
    nlohmann::ordered_json s;
    s["node"] = std::move(scored_nodes[i]);
    const size_t num_plugins = r->score_plugins ? r->score_plugins->size() : 0;
    int64_t total = 0;
    for (size_t p = 0; p < num_plugins; ++p) total += r->Weighted(p, i);
    s["total"] = total;
    nlohmann::ordered_json plugins = nlohmann::ordered_json::object();
    for (size_t p = 0; p < num_plugins; ++p) plugins[(*r->score_plugins)[p]] = r->Weighted(p, i);
    s["plugins"] = std::move(plugins);
    scores.push_back(std::move(s));
  }
  j["scores"] = std::move(scores);
  if (a.nominated && !a.nominated->empty()) {
    j["preemption"] = {{"nominatedNode", *a.nominated}, {"victims", a.victims}};
  }
  nlohmann::ordered_json waiting = nlohmann::ordered_json::array();
  for (const auto& [plugin, events] : a.waiting_for) {
    waiting.push_back({{"plugin", plugin}, {"events", events}});
  }
  j["waitingFor"] = std::move(waiting);
  return j;
}

}  // namespace ksched::scheduler
