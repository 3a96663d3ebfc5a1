#include "src/plugins/helper/pod_classes.h"

#include <algorithm>

#include "absl/hash/hash.h"
#include "ksched/strings.h"

namespace ksched::plugins::helper {
namespace {

const std::optional<api::PodAffinity>& PodAffinityOf(const api::Pod& pod) {
  static const std::optional<api::PodAffinity> kNone;
  return pod.spec.affinity ? pod.spec.affinity->pod_affinity : kNone;
}

const std::optional<api::PodAffinity>& PodAntiAffinityOf(const api::Pod& pod) {
  static const std::optional<api::PodAffinity> kNone;
  return pod.spec.affinity ? pod.spec.affinity->pod_anti_affinity : kNone;
}

bool SameClass(const api::Pod& a, const api::Pod& b) {
  return a.metadata.namespace_ == b.metadata.namespace_ && a.metadata.labels == b.metadata.labels &&
         a.metadata.deletion_timestamp.has_value() == b.metadata.deletion_timestamp.has_value() &&
         PodAffinityOf(a) == PodAffinityOf(b) && PodAntiAffinityOf(a) == PodAntiAffinityOf(b);
}

// Of what SameClass compares; the terms hash by their number only (pods of one workload share
// them, and SameClass tells the rest apart).
size_t HashOf(const api::Pod& pod) {
  size_t h = absl::HashOf(AsAbsl(pod.metadata.namespace_), pod.metadata.labels.size(),
                          pod.metadata.deletion_timestamp.has_value());
  for (const auto& [k, v] : pod.metadata.labels) h = absl::HashOf(h, AsAbsl(k), AsAbsl(v));
  for (const auto* a : {&PodAffinityOf(pod), &PodAntiAffinityOf(pod)}) {
    h = absl::HashOf(h, a->has_value(),
                     *a ? (*a)->required_during_scheduling_ignored_during_execution.size() : 0,
                     *a ? (*a)->preferred_during_scheduling_ignored_during_execution.size() : 0);
  }
  return h;
}

}  // namespace

void PodClasses::Refresh(const Snapshot& snapshot) {
  snapshot_ = &snapshot;
  if (places_.size() != snapshot.size()) {  // Nodes came or went: their places moved.
    for (size_t place = 0; place < places_.size(); ++place) {
      if (place >= snapshot.size() || places_[place].node != snapshot.nodes()[place]) {
        Forget(places_[place]);
      }
    }
    places_.resize(snapshot.size());
  }
  for (auto& [node, per] : others_) Forget(per);
  others_.clear();
  // Freed here, between cycles, so that an id means one class for a whole cycle.
  for (Id id : unused_) {
    Class& c = classes_[id];
    if (c.pod == nullptr || c.pods > 0) continue;  // Freed already, or in use again.
    std::vector<Id>& ids = by_hash_[c.hash];
    ids.erase(std::find(ids.begin(), ids.end(), id));
    if (ids.empty()) by_hash_.erase(c.hash);
    c = {};
    free_.push_back(id);
  }
  unused_.clear();
}

void PodClasses::Forget(PerNode& per) {
  for (const Count& c : per.counts) Release(c.id, c.pods);
  per = {};
}

const std::vector<PodClasses::Count>& PodClasses::Of(const NodeInfo& node) {
  return Of(node, snapshot_ != nullptr ? snapshot_->IndexOf(node) : -1);
}

const std::vector<PodClasses::Count>& PodClasses::Of(const NodeInfo& node, int32_t place) {
  if (place >= 0 && static_cast<size_t>(place) < places_.size()) {
    return CountInto(places_[place], node);
  }
  return CountInto(others_[&node], node);
}

const std::vector<PodClasses::Count>& PodClasses::CountInto(PerNode& per, const NodeInfo& node) {
  if (per.generation == node.generation()) return per.counts;
  per.node = &node;
  per.generation = node.generation();
  // Classify the node's pods, reusing the class of those seen last time.
  absl::flat_hash_map<const PodInfo*, Id> known;
  known.reserve(per.pods.size());
  for (const auto& [info, id] : per.pods) known.emplace(info.get(), id);
  std::vector<std::pair<std::shared_ptr<const PodInfo>, Id>> pods;
  pods.reserve(node.pods().size());
  for (const std::shared_ptr<const PodInfo>& info : node.pods()) {
    auto it = known.find(info.get());
    pods.emplace_back(info, it != known.end() ? it->second : Intern(info->pod));
  }
  // New counts first, then the old ones released, so that a class in both keeps its id.
  std::vector<Count> counts;
  for (const auto& pod : pods) {
    const Id id = pod.second;
    auto it =
        std::find_if(counts.begin(), counts.end(), [id](const Count& c) { return c.id == id; });
    if (it == counts.end()) {
      counts.push_back({.id = id, .pods = 1});
    } else {
      ++it->pods;
    }
    ++classes_[id].pods;
  }
  for (const Count& c : per.counts) Release(c.id, c.pods);
  per.counts = std::move(counts);
  per.pods = std::move(pods);
  return per.counts;
}

PodClasses::Id PodClasses::Intern(const std::shared_ptr<const api::Pod>& pod) {
  const size_t hash = HashOf(*pod);
  std::vector<Id>& ids = by_hash_[hash];
  for (Id id : ids) {
    if (SameClass(*classes_[id].pod, *pod)) return id;
  }
  Id id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<Id>(classes_.size());
    classes_.emplace_back();
  }
  classes_[id] = {.pod = pod, .hash = hash, .pods = 0};
  ids.push_back(id);
  return id;
}

void PodClasses::Release(Id id, int32_t pods) {
  classes_[id].pods -= pods;
  if (classes_[id].pods <= 0) unused_.push_back(id);
}

}  // namespace ksched::plugins::helper
