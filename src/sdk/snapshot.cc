#include "ksched/snapshot.h"

#include "src/base/strings.h"

namespace ksched {

const NodeInfo* Snapshot::Get(std::string_view node_name) const {
  auto it = infos_.find(AsAbsl(node_name));
  return it == infos_.end() ? nullptr : it->second.get();
}

int Snapshot::NumNodesWithImage(std::string_view image) const {
  auto it = image_nodes_.find(AsAbsl(image));
  return it == image_nodes_.end() ? 0 : it->second;
}

}  // namespace ksched
