#include "src/plugins/helper/signers.h"

#include <algorithm>
#include <set>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace ksched::plugins::helper {
namespace {

// A list of already canonical strings, sorted, as one string: each quoted, so that no two lists
// read the same.
std::string SortedList(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  std::string out = "[";
  for (const std::string& s : items) out += fmt::format("{:?},", s);
  return out + "]";
}

std::string SignRequirements(const std::vector<api::NodeSelectorRequirement>& reqs) {
  std::vector<std::string> out;
  for (const api::NodeSelectorRequirement& r : reqs) {
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    out.push_back(fmt::format("{:?} {:?} {::?}", r.key, r.op, values));
  }
  return SortedList(std::move(out));
}

std::string SignTerm(const api::NodeSelectorTerm& t) {
  return fmt::format("{}|{}", SignRequirements(t.match_expressions),
                     SignRequirements(t.match_fields));
}

}  // namespace

std::string SignHostPorts(const api::Pod& pod) {
  std::set<int32_t> ports;
  for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *list) {
      for (const api::ContainerPort& p : c.ports) {
        if (p.host_port != 0) ports.insert(p.host_port);
      }
    }
  }
  return fmt::format("{}", ports);
}

std::string SignTolerations(const api::Pod& pod) {
  std::vector<std::string> out;
  for (const api::Toleration& t : pod.spec.tolerations) {
    out.push_back(fmt::format(
        "{:?} {:?} {:?} {:?} {}", t.key, t.value, t.op, t.effect,
        t.toleration_seconds ? fmt::format("{}", *t.toleration_seconds) : std::string("-")));
  }
  return SortedList(std::move(out));  // Key, then value first: each item begins with them.
}

std::string SignNodeAffinity(const api::Pod& pod) {
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return "null";
  const api::NodeAffinity& na = *pod.spec.affinity->node_affinity;
  std::vector<std::string> required, preferred;
  if (na.required_during_scheduling_ignored_during_execution) {
    for (const api::NodeSelectorTerm& t :
         na.required_during_scheduling_ignored_during_execution->node_selector_terms) {
      required.push_back(SignTerm(t));
    }
  }
  for (const api::PreferredSchedulingTerm& t :
       na.preferred_during_scheduling_ignored_during_execution) {
    preferred.push_back(fmt::format("{} {}", t.weight, SignTerm(t.preference)));
  }
  return fmt::format("required {} preferred {}", SortedList(std::move(required)),
                     SortedList(std::move(preferred)));
}

std::string SignLabels(const api::StringMap& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) out += fmt::format("{:?}:{:?},", k, v);
  return out + "}";
}

std::string SignVolumes(const api::Pod& pod) {
  std::vector<std::string> out;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source == "configMap" || v.source == "secret") continue;
    out.push_back(fmt::format("{:016x}", v.source_digest));
  }
  return SortedList(std::move(out));
}

}  // namespace ksched::plugins::helper
