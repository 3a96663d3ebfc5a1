#include "src/framework/simulator_trace.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "ksched/api/field.h"
#include "nlohmann/json.hpp"

namespace ksched::framework {
namespace {

std::string Outcome(const Status& s) {
  if (s.ok()) return "success";
  if (s.IsWait()) return "wait";
  return s.Message();
}

// The points recorded per plugin, and their annotations.
constexpr std::pair<metrics::Point, std::string_view> kPointKeys[] = {
    {metrics::Point::kPreFilter, "prefilter-result-status"},
    {metrics::Point::kPreScore, "prescore-result"},
    {metrics::Point::kReserve, "reserve-result"},
    {metrics::Point::kPermit, "permit-result"},
    {metrics::Point::kPreBind, "prebind-result"},
    {metrics::Point::kBind, "bind-result"}};

}  // namespace

SimulatorTrace::SimulatorTrace(const SimulatorTrace& o) : StateData() {
  absl::MutexLock lock(&o.mu_);
  plugins_ = o.plugins_;
  permit_timeout_ = o.permit_timeout_;
  prefilter_result_ = o.prefilter_result_;
  filter_ = o.filter_;
  postfilter_ = o.postfilter_;
  score_ = o.score_;
  final_score_ = o.final_score_;
  selected_node_ = o.selected_node_;
}

std::unique_ptr<StateData> SimulatorTrace::Clone() const {
  return std::make_unique<SimulatorTrace>(*this);
}

void SimulatorTrace::Plugin(metrics::Point point, std::string_view plugin, const Status& s) const {
  if (std::none_of(std::begin(kPointKeys), std::end(kPointKeys),
                   [&](const auto& recorded) { return recorded.first == point; })) {
    return;
  }
  absl::MutexLock lock(&mu_);
  plugins_[point][std::string(plugin)] = Outcome(s);
}

void SimulatorTrace::PreFilterResult(std::string_view plugin,
                                     const std::vector<std::string>& nodes) const {
  absl::MutexLock lock(&mu_);
  prefilter_result_[std::string(plugin)] = nodes;
}

void SimulatorTrace::PermitTimeout(std::string_view plugin, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  permit_timeout_[std::string(plugin)] = api::field::GoDuration(timeout);
}

void SimulatorTrace::Filter(std::string_view node, std::string_view plugin, const Status& s) const {
  absl::MutexLock lock(&mu_);
  filter_[std::string(node)][std::string(plugin)] = s.ok() ? "passed" : s.Message();
}

void SimulatorTrace::PostFilter(std::string_view plugin, const std::vector<std::string>& nodes,
                                std::string_view nominated) const {
  absl::MutexLock lock(&mu_);
  for (const std::string& node : nodes) {
    PerPlugin& of = postfilter_[node];
    if (!nominated.empty() && node == nominated) of[std::string(plugin)] = "preemption victim";
  }
}

void SimulatorTrace::Score(std::string_view node, std::string_view plugin, int64_t raw) const {
  absl::MutexLock lock(&mu_);
  score_[std::string(node)][std::string(plugin)] = std::to_string(raw);
}

void SimulatorTrace::FinalScore(std::string_view node, std::string_view plugin,
                                int64_t final_score) const {
  absl::MutexLock lock(&mu_);
  final_score_[std::string(node)][std::string(plugin)] = std::to_string(final_score);
}

void SimulatorTrace::SelectedNode(std::string_view node) const {
  absl::MutexLock lock(&mu_);
  selected_node_ = std::string(node);
}

std::map<std::string, std::string> SimulatorTrace::Annotations() const {
  absl::MutexLock lock(&mu_);
  std::map<std::string, std::string> out;
  const std::string prefix = kSimulatorAnnotationPrefix;
  // nlohmann::json keeps object keys sorted, as Go's json.Marshal writes a map.
  auto put = [&](std::string_view key, const nlohmann::json& j) {
    out[prefix + std::string(key)] = GoJsonEscape(j.dump());
  };
  for (const auto& [point, key] : kPointKeys) {
    auto it = plugins_.find(point);
    put(key, it == plugins_.end() ? nlohmann::json::object() : nlohmann::json(it->second));
  }
  put("permit-result-timeout", nlohmann::json(permit_timeout_));
  nlohmann::json prefilter = nlohmann::json::object();
  for (const auto& [plugin, nodes] : prefilter_result_) prefilter[plugin] = nodes;
  put("prefilter-result", prefilter);
  auto per_node = [](const PerNode& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [node, plugins] : m) {
      j[node] = nlohmann::json::object();
      for (const auto& [plugin, value] : plugins) j[node][plugin] = value;
    }
    return j;
  };
  put("filter-result", per_node(filter_));
  put("postfilter-result", per_node(postfilter_));
  put("score-result", per_node(score_));
  put("finalscore-result", per_node(final_score_));
  out[prefix + "selected-node"] = selected_node_;
  return out;
}

std::string GoJsonEscape(std::string json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string AppendResultHistory(std::string_view history,
                                const std::map<std::string, std::string>& annotations) {
  nlohmann::json all =
      history.empty() ? nlohmann::json::array() : nlohmann::json::parse(history, nullptr, false);
  if (!all.is_array()) return std::string(history);  // As the simulator: left as it was.
  all.push_back(annotations);
  return GoJsonEscape(all.dump());
}

}  // namespace ksched::framework
