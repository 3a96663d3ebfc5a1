#include "ksched/snapshot.h"

#include "src/base/strings.h"

namespace ksched {

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

LabelDomains LabelDomains::Of(const std::vector<const NodeInfo*>& nodes, std::string_view key) {
  LabelDomains out;
  out.domain.reserve(nodes.size());
  absl::flat_hash_map<absl::string_view, int32_t> index;
  for (const NodeInfo* ni : nodes) {
    const api::Node* node = ni->node();
    auto label =
        node == nullptr ? api::StringMap::const_iterator() : node->metadata.labels.find(key);
    if (node == nullptr || label == node->metadata.labels.end()) {
      out.domain.push_back(kNoValue);
      continue;
    }
    auto [it, inserted] =
        index.try_emplace(AsAbsl(label->second), static_cast<int32_t>(out.values.size()));
    if (inserted) out.values.push_back(label->second);
    out.domain.push_back(it->second);
  }
  return out;
}

int Snapshot::NumNodesWithImage(std::string_view image) const {
  auto it = image_nodes_.find(AsAbsl(image));
  return it == image_nodes_.end() ? 0 : it->second;
}

}  // namespace ksched
