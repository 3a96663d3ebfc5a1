#include "test/difftest/compare.h"

#include <algorithm>
#include <regex>
#include <set>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace ksched::difftest {
namespace {

using nlohmann::json;

// The condition the API server writes for a pod with scheduling gates.
constexpr std::string_view kSchedulingGated =
    "Scheduling is blocked due to non-empty scheduling gates";

}  // namespace

Outcome OutcomeOfPod(const json& pod) {
  Outcome o;
  o.node = pod["spec"].value("nodeName", "");
  o.nominated = pod.value("status", json::object()).value("nominatedNodeName", "");
  o.status = o.node.empty() ? "Pending" : "Scheduled";
  if (!o.node.empty()) return o;
  for (const json& c : pod.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") {
      o.status = c.value("reason", "");
      o.message = c.value("message", "");
    }
  }
  return o;
}

Outcome OutcomeInSimulation(const json& simulation, const std::string& ns, const std::string& name,
                            const std::string& group) {
  Outcome o{.status = "Pending"};
  for (const json& p : simulation.value("pods", json::array())) {
    if (p.value("namespace", "") != ns || p.value("name", "") != name) continue;
    o.node = p["node"].is_string() ? p["node"].get<std::string>() : "";
    o.status = p.value("status", "");
    o.message = p.value("message", "");
    o.nominated = p.value("nominatedNode", "");
    // simulate reports why a PreEnqueue plugin holds a pod back, which no object of a real
    // cluster shows: there, such a pod is Pending with no condition.
    if (o.status == "SchedulingGated" && o.message != kSchedulingGated) {
      o.status = "Pending";
      o.message.clear();
    }
    for (const json& e : simulation.value("evicted", json::array())) {
      // Another pod's victims (simulate was given a burst's earlier pods too) are not this one's;
      // its PodGroup's are (a real cluster shows them going while the group is decided).
      const std::string by = e.is_object() ? e.value("preemptor", "") : "";
      if (!by.empty() && by != ns + "/" + name && (group.empty() || by != "podgroup " + group)) {
        continue;
      }
      // As the victims' events name a PodGroup's preemption: on node "cluster".
      if (!group.empty() && by == "podgroup " + group) o.preempted_on = "cluster";
      o.evicted.push_back(e.is_string()
                              ? e.get<std::string>()
                              : e.value("namespace", "default") + "/" + e.value("name", ""));
    }
    std::sort(o.evicted.begin(), o.evicted.end());
    o.placed_after_preemption = !o.evicted.empty() && !o.node.empty();
    const json scores_by_node = p.value("scores", json::object());
    for (const auto& [node, scores] : scores_by_node.items()) {
      for (const auto& [plugin, score] : scores.items()) {
        if (plugin == "total") {
          o.scores.totals[node] = score.get<int64_t>();
        } else {
          o.scores.plugins[plugin][node] = score.get<int64_t>();
        }
      }
    }
  }
  return o;
}

std::map<std::string, Scores> ScoresInLog(std::string_view log) {
  // klog's text format, as both schedulers write it: ... "msg" pod="ns/name" plugin="P"
  // node="n" score=85, at times with the values of the logger's context before (kube-scheduler's
  // pod group cycle: podGroupType="..." podGroup="ns/name" pod="ns/name"); and, at -v 3, a hint of
  // OpportunisticBatching's: ... "OpportunisticBatch provided node hint" profile="p" pod="ns/name"
  // ...
  static const std::regex kLine(
      R"re("(Plugin scored node for pod|Calculated node's final score for pod)"(?: [A-Za-z]+="[^"]*")*? pod="([^"]+)"(?: plugin="([^"]+)")? node="([^"]+)" score=(-?[0-9]+))re");
  static const std::regex kHint(R"re("OpportunisticBatch provided node hint" .*pod="([^"]+)")re");
  std::map<std::string, Scores> out;
  std::set<std::string> complete;  // Pods whose last scoring has its totals.
  std::string last;                // The pod scored last.
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string line(log.substr(start, end - start));
    start = end + 1;
    std::smatch m;
    if (line.find("OpportunisticBatch provided node hint") != std::string::npos &&
        std::regex_search(line, m, kHint)) {
      const std::string pod = m[1];
      Scores hinted{
          .hinted_from = last.empty() ? std::map<std::string, int64_t>{} : out[last].totals,
          .hinted = true};
      out[pod] = std::move(hinted);
      complete.insert(pod);  // A scoring after a hint that did not fit is a new attempt.
      continue;
    }
    if (line.find("score") == std::string::npos || !std::regex_search(line, m, kLine)) continue;
    const std::string pod = m[2];
    const int64_t score = std::stoll(m[5]);
    if (m[1] == "Plugin scored node for pod") {
      if (complete.erase(pod) > 0) out[pod] = {};  // A new attempt.
      out[pod].plugins[m[3]][m[4]] = score;
    } else {
      complete.insert(pod);
      out[pod].totals[m[4]] = score;
      last = pod;
    }
  }
  return out;
}

bool IsTie(const Outcome& upstream, const Outcome& ksched) {
  if (upstream.node.empty() || ksched.node.empty() || upstream.node == ksched.node) return false;
  const std::map<std::string, int64_t>& totals =
      upstream.scores.totals.empty() ? upstream.scores.hinted_from : upstream.scores.totals;
  auto mine = totals.find(upstream.node);
  auto theirs = totals.find(ksched.node);
  return mine != totals.end() && theirs != totals.end() && mine->second == theirs->second;
}

bool IsGroupTie(const std::vector<const Outcome*>& upstream,
                const std::vector<const Outcome*>& ksched) {
  if (upstream.size() != ksched.size()) return false;
  std::multiset<std::string> up_nodes, ks_nodes;
  const Outcome* first_up = nullptr;
  const Outcome* first_ks = nullptr;
  for (size_t i = 0; i < upstream.size(); ++i) {
    up_nodes.insert(upstream[i]->node);
    ks_nodes.insert(ksched[i]->node);
    if (first_up == nullptr && upstream[i]->node != ksched[i]->node) {
      first_up = upstream[i];
      first_ks = ksched[i];
    }
  }
  return first_up != nullptr && up_nodes == ks_nodes && IsTie(*first_up, *first_ks);
}

std::string PreemptionNode(const Outcome& o) {
  if (!o.preempted_on.empty()) return o.preempted_on;
  if (!o.nominated.empty()) return o.nominated;
  return o.placed_after_preemption ? o.node : "";
}

std::vector<Mismatch> Compare(const Outcome& upstream, const Outcome& ksched) {
  std::vector<Mismatch> out;
  if (!upstream.evicted.empty() || !ksched.evicted.empty()) {
    // A preemptor: the node its preemption chose and its victims. Where it binds once they are
    // gone is not compared: when the victims of the nominated node free another node first, the
    // next attempt may fit there (kube-scheduler, seed 32: node-7 in 6 runs of 8, node-1 in 2).
    const std::string up_node = PreemptionNode(upstream);
    const std::string ks_node = PreemptionNode(ksched);
    if (up_node != ks_node) {
      out.push_back({"nominated", fmt::format("preempted on {:?} against {:?}", ks_node, up_node)});
    }
    if (upstream.evicted != ksched.evicted) {
      out.push_back({"eviction", fmt::format("[{}] against [{}]", fmt::join(ksched.evicted, " "),
                                             fmt::join(upstream.evicted, " "))});
    }
    // The first attempt's message, where both were seen (simulate runs on to the binding).
    if (!upstream.message.empty() && !ksched.message.empty() &&
        upstream.message != ksched.message) {
      out.push_back(
          {"message", fmt::format("{:?} against {:?}", ksched.message, upstream.message)});
    }
    return out;
  }
  if (upstream.node != ksched.node && !IsTie(upstream, ksched)) {
    out.push_back({"placement", fmt::format("node {:?} against {:?}", ksched.node, upstream.node)});
  }
  if (upstream.status != ksched.status) {
    out.push_back({"status", fmt::format("{} against {}", ksched.status, upstream.status)});
  }
  if (upstream.message != ksched.message) {
    out.push_back({"message", fmt::format("{:?} against {:?}", ksched.message, upstream.message)});
  }
  if (upstream.nominated != ksched.nominated) {
    out.push_back(
        {"nominated", fmt::format("{:?} against {:?}", ksched.nominated, upstream.nominated)});
  }
  if (upstream.evicted != ksched.evicted) {
    out.push_back({"eviction", fmt::format("[{}] against [{}]", fmt::join(ksched.evicted, " "),
                                           fmt::join(upstream.evicted, " "))});
  }
  // Scores are compared where both scored the pod on the same nodes' state.
  if (!upstream.scores.totals.empty() && !ksched.scores.totals.empty()) {
    std::set<std::string> plugins;
    for (const auto& [p, n] : upstream.scores.plugins) plugins.insert(p);
    for (const auto& [p, n] : ksched.scores.plugins) plugins.insert(p);
    // An extender's column (named by its URL) is ksched's own: kube-scheduler logs no weighted
    // score per extender. Its scores are checked in the totals, which hold them in both.
    const size_t plugin_count = plugins.size();
    std::erase_if(plugins, [](const std::string& p) { return p.find("://") != std::string::npos; });
    if (plugins.size() != plugin_count) {
      for (const auto& [node, total] : upstream.scores.totals) {
        auto it = ksched.scores.totals.find(node);
        if (it == ksched.scores.totals.end() || it->second != total) {
          out.push_back(
              {"score",
               fmt::format("total on {}: {} against {}", node,
                           it == ksched.scores.totals.end() ? "none" : std::to_string(it->second),
                           total)});
        }
      }
    }
    for (const std::string& p : plugins) {
      auto u = upstream.scores.plugins.find(p);
      auto k = ksched.scores.plugins.find(p);
      if (u == upstream.scores.plugins.end() || k == ksched.scores.plugins.end()) {
        out.push_back(
            {"score", fmt::format("plugin {} scored by {} only", p,
                                  k == ksched.scores.plugins.end() ? "kube-scheduler" : "ksched")});
        continue;
      }
      for (const auto& [node, score] : u->second) {
        auto it = k->second.find(node);
        if (it == k->second.end() || it->second != score) {
          out.push_back(
              {"score",
               fmt::format("{} on {}: {} against {}", p, node,
                           it == k->second.end() ? "none" : std::to_string(it->second), score)});
        }
      }
    }
  } else if (upstream.scores.totals.empty() != ksched.scores.totals.empty() &&
             upstream.node == ksched.node && !upstream.node.empty()) {
    out.push_back({"score", upstream.scores.totals.empty() ? "scored by ksched only"
                                                           : "scored by kube-scheduler only"});
  }
  if (!out.empty() && ksched.message.find(kUnsupported) != std::string::npos) {
    return {{"unsupported", ksched.message}};
  }
  return out;
}

json ToJson(const Outcome& o) {
  json j = {{"node", o.node}, {"status", o.status}};
  if (!o.evicted.empty()) j["evicted"] = o.evicted;
  if (!o.message.empty()) j["message"] = o.message;
  if (!o.nominated.empty()) j["nominatedNode"] = o.nominated;
  if (!o.preempted_on.empty()) j["preemptedOn"] = o.preempted_on;
  if (o.scores.hinted) j["batchHint"] = true;
  if (!o.scores.totals.empty()) {
    j["scores"] = json::object();
    for (const auto& [node, total] : o.scores.totals) j["scores"][node]["total"] = total;
    for (const auto& [plugin, nodes] : o.scores.plugins) {
      for (const auto& [node, score] : nodes) j["scores"][node][plugin] = score;
    }
  }
  return j;
}

}  // namespace ksched::difftest
