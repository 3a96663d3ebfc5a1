#include "src/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <string>

#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/api/selectors.h"
#include "ksched/registry.h"
#include "ksched/strings.h"
#include "src/plugins/helper/node_filters.h"
#include "src/plugins/helper/normalize_score.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::node_affinity {

namespace {

using NameSet = std::set<std::string, std::less<>>;

const api::NodeAffinity* PodNodeAffinity(const api::Pod& pod) {
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return nullptr;
  return &*pod.spec.affinity->node_affinity;
}

const api::NodeSelector* PodRequiredSelector(const api::Pod& pod) {
  const api::NodeAffinity* na = PodNodeAffinity(pod);
  if (na == nullptr || !na->required_during_scheduling_ignored_during_execution) return nullptr;
  return &*na->required_during_scheduling_ignored_during_execution;
}

int64_t MatchingWeights(const std::vector<api::PreferredSchedulingTerm>& terms,
                        const api::Node& node) {
  int64_t sum = 0;
  for (const api::PreferredSchedulingTerm& t : terms) {
    if (t.weight != 0 && api::Matches(t.preference, node)) sum += t.weight;
  }
  return sum;
}

const std::vector<api::PreferredSchedulingTerm>& PodPreferredTerms(const api::Pod& pod) {
  static const std::vector<api::PreferredSchedulingTerm> kNone;
  const api::NodeAffinity* na = PodNodeAffinity(pod);
  return na == nullptr ? kNone : na->preferred_during_scheduling_ignored_during_execution;
}

// The node names a term pins with matchFields metadata.name In (intersected); nullopt when the
// term pins none.
std::optional<NameSet> PinnedNodeNames(const api::NodeSelectorTerm& term) {
  std::optional<NameSet> names;
  for (const api::NodeSelectorRequirement& r : term.match_fields) {
    if (r.key != "metadata.name" || r.op != "In") continue;
    NameSet values(r.values.begin(), r.values.end());
    if (!names) {
      names = std::move(values);
      continue;
    }
    NameSet both;
    std::set_intersection(names->begin(), names->end(), values.begin(), values.end(),
                          std::inserter(both, both.end()));
    names = std::move(both);
  }
  return names;
}

// The pod's required node selection (spec.nodeSelector and the required terms) answered once
// for each value of the labels it names over the snapshot's nodes, rather than once per node:
// SchedulingNodeAffinity's Filter spent its time finding the zone in every node's labels.
class RequiredMatcher : public StateData {
 public:
  // nullptr when a label it names has too many values to be worth it (kubernetes.io/hostname).
  static std::unique_ptr<RequiredMatcher> Make(const api::Pod& pod,
                                               const api::NodeSelector* required,
                                               const Snapshot& snapshot) {
    auto m = std::make_unique<RequiredMatcher>();
    for (const auto& [key, value] : pod.spec.node_selector) {
      if (!m->Add({.key = key, .op = "In", .values = {value}}, snapshot, &m->selector_)) {
        return nullptr;
      }
    }
    if (required == nullptr) return m;
    m->has_required_ = true;
    for (const api::NodeSelectorTerm& t : required->node_selector_terms) {
      Term& term = m->terms_.emplace_back();
      term.empty = t.match_expressions.empty() && t.match_fields.empty();
      for (const api::NodeSelectorRequirement& r : t.match_expressions) {
        if (!m->Add(r, snapshot, &term.labels)) return nullptr;
      }
      if (!t.match_fields.empty()) term.fields.emplace().match_fields = t.match_fields;
    }
    return m;
  }

  // Whether node `at` of the snapshot, `node`, fits.
  bool Matches(size_t at, const api::Node& node) const {
    auto fits = [&](const std::vector<Requirement>& all) {
      return std::all_of(all.begin(), all.end(), [&](const Requirement& r) { return r.Fits(at); });
    };
    if (!fits(selector_)) return false;
    if (!has_required_) return true;
    return std::any_of(terms_.begin(), terms_.end(), [&](const Term& t) {
      return !t.empty && fits(t.labels) && (!t.fields || api::Matches(*t.fields, node));
    });
  }

  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<RequiredMatcher>(*this);
  }

 private:
  static constexpr size_t kMaxValues = 64;
  struct Requirement {
    const LabelDomains* domains;
    std::vector<bool> fits;  // Per value of domains->values.
    bool fits_absent;
    bool Fits(size_t at) const {
      const int32_t d = domains->domain[at];
      return d == LabelDomains::kNoValue ? fits_absent : fits[d];
    }
  };
  struct Term {
    bool empty = false;                           // Matches no node.
    std::vector<Requirement> labels;              // matchExpressions, ANDed.
    std::optional<api::NodeSelectorTerm> fields;  // matchFields only, checked on the node.
  };

  bool Add(const api::NodeSelectorRequirement& r, const Snapshot& snapshot,
           std::vector<Requirement>* out) {
    const LabelDomains& d = snapshot.NodeLabelDomains(r.key);
    if (d.values.size() > kMaxValues) return false;
    Requirement& req = out->emplace_back(Requirement{.domains = &d});
    for (const std::string& value : d.values) {
      req.fits.push_back(api::Matches(r, api::StringMap{{r.key, value}}));
    }
    req.fits_absent = api::Matches(r, api::StringMap{});
    return true;
  }

  std::vector<Requirement> selector_;  // spec.nodeSelector, ANDed.
  bool has_required_ = false;
  std::vector<Term> terms_;  // ORed.
};

constexpr StateKey<RequiredMatcher> kMatcherKey{"PreFilterNodeAffinity",
                                                StateScope::kSchedulingCycle};

}  // namespace

NodeAffinity::NodeAffinity(std::optional<api::NodeAffinity> added, const Handle& handle)
    : handle_(handle) {
  if (!added) return;
  added_required_ = std::move(added->required_during_scheduling_ignored_during_execution);
  added_preferred_ = std::move(added->preferred_during_scheduling_ignored_during_execution);
}

bool NodeAffinity::MatchesAdded(const api::Node& node) const {
  return !added_required_ || api::Matches(*added_required_, node);
}

Status NodeAffinity::PreFilter(CycleState& state, const api::Pod& pod,
                               const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) {
  const api::NodeSelector* required = PodRequiredSelector(pod);
  if (required == nullptr && !added_required_ && pod.spec.node_selector.empty()) {
    return Status::Skip();
  }
  if (&nodes == &handle_.snapshot().nodes()) {
    if (auto m = RequiredMatcher::Make(pod, required, handle_.snapshot())) {
      state.Write(kMatcherKey, std::move(m));
    }
  }
  if (required == nullptr || required->node_selector_terms.empty()) return Status();
  NameSet names;
  for (const api::NodeSelectorTerm& term : required->node_selector_terms) {
    std::optional<NameSet> pinned = PinnedNodeNames(term);
    if (!pinned) return Status();  // Terms are ORed: this one allows every node.
    names.insert(pinned->begin(), pinned->end());
  }
  if (names.empty()) return Status::UnschedulableAndUnresolvable(kErrReasonConflict);
  result->node_names = std::move(names);
  return Status();
}

Status NodeAffinity::Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) {
  // Built once and shared: every node that turns the pod down says the same.
  static const Status kEnforced =
      Status::UnschedulableAndUnresolvable(kErrReasonEnforced).WithPlugin(names::kNodeAffinity);
  static const Status kPod =
      Status::UnschedulableAndUnresolvable(kErrReasonPod).WithPlugin(names::kNodeAffinity);
  if (node.node() == nullptr) return Status::Error("node not found");
  if (!MatchesAdded(*node.node())) return kEnforced;
  const RequiredMatcher* m = state.Read(kMatcherKey);
  const int32_t at = m == nullptr ? -1 : helper::PlaceForLabels(handle_.snapshot(), node);
  const bool fits = at >= 0 ? m->Matches(at, *node.node())
                            : helper::MatchesRequiredNodeAffinity(pod, *node.node());
  return fits ? Status() : kPod;
}

Status NodeAffinity::PreScore(CycleState&, const api::Pod& pod,
                              const std::vector<const NodeInfo*>&) {
  if (PodPreferredTerms(pod).empty() && added_preferred_.empty()) return Status::Skip();
  return Status();
}

Status NodeAffinity::Score(const CycleState&, const api::Pod& pod, const NodeInfo& node,
                           int64_t* score) {
  if (node.node() == nullptr) return Status::Error("node not found");
  *score = MatchingWeights(added_preferred_, *node.node()) +
           MatchingWeights(PodPreferredTerms(pod), *node.node());
  return Status();
}

Status NodeAffinity::NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) {
  helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/false, scores);
  return Status();
}

std::vector<ClusterEventWithHint> NodeAffinity::EventsToRegister() const {
  auto hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    if (e.new_node == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
    if (!MatchesAdded(*e.new_node) || !helper::MatchesRequiredNodeAffinity(pod, *e.new_node)) {
      return QueueingHint::kQueueSkip;
    }
    // Added, or updated from not matching to matching.
    if (e.old_node == nullptr || !helper::MatchesRequiredNodeAffinity(pod, *e.old_node))
      return QueueingHint::kQueue;
    return QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel}, hint}};
}

// --- Args --------------------------------------------------------------------------------------

namespace {

constexpr char kAddedAffinity[] = "addedAffinity";

// The check the API's decoder leaves out: a metadata.name field selector takes one value.
absl::Status ValidateFieldSelectorValues(const api::NodeSelector& selector, std::string_view path) {
  const auto& terms = selector.node_selector_terms;
  for (size_t t = 0; t < terms.size(); ++t) {
    for (size_t f = 0; f < terms[t].match_fields.size(); ++f) {
      const std::vector<std::string>& values = terms[t].match_fields[f].values;
      if (values.size() == 1) continue;
      return absl::InvalidArgumentError(fmt::format(
          "{}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{}].matchFields[{}]"
          ".values: Invalid value: {}: must have one element",
          path, t, f, nlohmann::json(values).dump()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NodeAffinityArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  NodeAffinityArgs out;
  if (args.is_null()) return out;
  if (absl::Status st = api::field::CheckObject(args, path, {kAddedAffinity}, true); !st.ok()) {
    return st;
  }
  const nlohmann::json* added_json = api::field::Member(args, kAddedAffinity);
  if (added_json == nullptr) return out;
  const std::string added_path = api::field::Child(path, kAddedAffinity);
  absl::StatusOr<api::NodeAffinity> added = api::field::DecodeNodeAffinity(*added_json, added_path);
  if (!added.ok()) return added.status();
  if (added->required_during_scheduling_ignored_during_execution) {
    absl::Status st = ValidateFieldSelectorValues(
        *added->required_during_scheduling_ignored_during_execution, added_path);
    if (!st.ok()) return st;
  }
  out.added_affinity = *std::move(added);
  out.added_affinity_doc = *added_json;
  return out;
}

nlohmann::json ArgsToJson(const NodeAffinityArgs& args) {
  nlohmann::json out = {{"apiVersion", kArgsApiVersion}, {"kind", "NodeAffinityArgs"}};
  if (args.added_affinity) out[kAddedAffinity] = args.added_affinity_doc;
  return out;
}

Status NodeAffinity::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kNodeAffinitySigner, helper::SignNodeAffinity(pod)});
  out->push_back({helper::kNodeSelectorSigner, helper::SignLabels(pod.spec.node_selector)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const NodeAffinityArgs& args, Handle& handle) {
  return std::make_unique<NodeAffinity>(args.added_affinity, handle);
}

}  // namespace ksched::plugins::node_affinity
