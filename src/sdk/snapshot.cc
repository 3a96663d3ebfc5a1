#include "ksched/snapshot.h"

#include "ksched/strings.h"

namespace ksched {
namespace {

// The value of the node's label `key`; nullptr without the node or the label.
const std::string* LabelOf(const NodeInfo& ni, std::string_view key) {
  if (ni.node() == nullptr) return nullptr;
  const api::StringMap& labels = ni.node()->metadata.labels;
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

}  // namespace

const NodeInfo* Snapshot::Get(std::string_view node_name) const {
  auto it = infos_.find(AsAbsl(node_name));
  return it == infos_.end() ? nullptr : it->second.get();
}

const LabelDomains& Snapshot::NodeLabelDomains(std::string_view key) const {
  absl::MutexLock lock(&label_mu_);
  auto [it, inserted] = label_domains_.try_emplace(AsAbsl(key));
  if (inserted) it->second = std::make_unique<const LabelDomains>(LabelDomains::Of(list_, key));
  return *it->second;
}

int32_t Snapshot::IndexOf(const NodeInfo& node) const {
  auto it = index_.find(&node);
  return it == index_.end() ? -1 : it->second;
}

LabelDomains LabelDomains::Of(const std::vector<const NodeInfo*>& nodes, std::string_view key) {
  LabelDomains out;
  out.domain.reserve(nodes.size());
  absl::flat_hash_map<absl::string_view, int32_t> index;
  for (const NodeInfo* ni : nodes) {
    const std::string* value = LabelOf(*ni, key);
    if (value == nullptr) {
      out.domain.push_back(kNoValue);
      continue;
    }
    auto [it, inserted] =
        index.try_emplace(AsAbsl(*value), static_cast<int32_t>(out.values.size()));
    if (inserted) out.values.push_back(*value);
    out.domain.push_back(it->second);
  }
  return out;
}

int Snapshot::NumNodesWithImage(std::string_view image) const {
  auto it = image_nodes_.find(AsAbsl(image));
  return it == image_nodes_.end() ? 0 : it->second;
}

}  // namespace ksched
