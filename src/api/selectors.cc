#include "ksched/api/selectors.h"

#include <algorithm>
#include <charconv>

namespace ksched::api {
namespace {

bool Contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Shared by label and node selector requirements: In, NotIn, Exists, DoesNotExist, Gt, Lt.
bool MatchesRequirement(std::string_view op, const std::string& key,
                        const std::vector<std::string>& values, const StringMap& labels) {
  auto it = labels.find(key);
  const bool has = it != labels.end();
  if (op == "In") return has && Contains(values, it->second);
  if (op == "NotIn") return !has || !Contains(values, it->second);
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if (op == "Gt" || op == "Lt") {
    if (!has || values.size() != 1) return false;
    auto label = ParseInt64(it->second);
    auto bound = ParseInt64(values[0]);
    if (!label || !bound) return false;
    return op == "Gt" ? *label > *bound : *label < *bound;
  }
  return false;
}

}  // namespace

bool Matches(const LabelSelector& selector, const StringMap& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const LabelSelectorRequirement& r : selector.match_expressions) {
    if (r.op == "Gt" || r.op == "Lt") return false;  // Not label selector operators.
    if (!MatchesRequirement(r.op, r.key, r.values, labels)) return false;
  }
  return true;
}

bool Matches(const NodeSelectorRequirement& requirement, const StringMap& labels) {
  return MatchesRequirement(requirement.op, requirement.key, requirement.values, labels);
}

bool Matches(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const NodeSelectorRequirement& r : term.match_expressions) {
    if (!Matches(r, node.metadata.labels)) return false;
  }
  for (const NodeSelectorRequirement& r : term.match_fields) {
    if (r.key != "metadata.name") return false;
    const bool in = Contains(r.values, node.metadata.name);
    if (r.op == "In" ? !in : (r.op != "NotIn" || in)) return false;
  }
  return true;
}

bool Matches(const NodeSelector& selector, const Node& node) {
  return std::any_of(selector.node_selector_terms.begin(), selector.node_selector_terms.end(),
                     [&](const NodeSelectorTerm& t) { return Matches(t, node); });
}

bool ToleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return ToleratesTaint(t, taint); });
}

}  // namespace ksched::api
