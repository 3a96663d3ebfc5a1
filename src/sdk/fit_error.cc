#include "ksched/fit_error.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_join.h"
#include "fmt/format.h"

namespace ksched {

void Diagnosis::AddPluginStatus(const Status& status) {
  if (status.plugin().empty() || !status.IsRejected()) return;
  unschedulable_plugins.insert(std::string(status.plugin()));
  if (status.code() == Code::kPending) pending_plugins.insert(std::string(status.plugin()));
}

std::string FitError::Error() const {
  std::string msg = fmt::format("0/{} nodes are available:", num_all_nodes);
  if (!diagnosis.pre_filter_msg.empty()) {
    msg += fmt::format(" {}.", diagnosis.pre_filter_msg);
  } else {
    std::map<std::string, int> counts;
    for (const auto& [node, status] : diagnosis.node_to_status.statuses) {
      for (const std::string& r : status.reasons()) counts[r]++;
    }
    int explicit_nodes = static_cast<int>(diagnosis.node_to_status.statuses.size());
    if (explicit_nodes < num_all_nodes) {
      for (const std::string& r : diagnosis.node_to_status.absent.reasons()) {
        counts[r] += num_all_nodes - explicit_nodes;
      }
    }
    std::vector<std::string> parts;
    parts.reserve(counts.size());
    for (const auto& [reason, count] : counts) parts.push_back(fmt::format("{} {}", count, reason));
    std::sort(parts.begin(), parts.end());  // Byte-wise, as Go's sort.Strings: "10 x" < "2 y".
    if (!parts.empty()) msg += fmt::format(" {}.", absl::StrJoin(parts, ", "));
  }
  if (!diagnosis.post_filter_msg.empty()) msg += " " + diagnosis.post_filter_msg;
  return msg;
}

std::string TruncateEventMessage(std::string message) {
  constexpr size_t kNoteLengthLimit = 1024;
  if (message.size() <= kNoteLengthLimit) return message;
  message.resize(kNoteLengthLimit - 4);
  return message + " ...";
}

}  // namespace ksched
