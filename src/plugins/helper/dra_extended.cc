#include "src/plugins/helper/dra_extended.h"

#include <algorithm>

#include "ksched/api/resources.h"
#include "ksched/api/selectors.h"
#include "ksched/node_info.h"

namespace ksched::plugins::helper {

bool IsDraExtendedResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || name.starts_with(kDeviceClassResourcePrefix);
}

DraRequested DraRequestedBy(const api::Pod& pod, const DraLister& dra) {
  DraRequested out;
  // Most pods name no extended resource at all: they skip summing their requests (DynamicResources'
  // PreFilter asks for every pod).
  auto names_one = [](const api::ResourceList& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const auto& entry) { return IsDraExtendedResourceName(entry.first); });
  };
  bool candidate = names_one(pod.spec.overhead);
  for (const auto* containers : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *containers) {
      candidate = candidate || names_one(c.resources.requests) || names_one(c.resources.limits);
    }
  }
  if (!candidate) return out;
  for (const auto& [name, quantity] : api::PodRequests(pod)) {
    if (!quantity.IsZero() && IsDraExtendedResourceName(name)) {
      (dra.ExtendedResourceClass(name) != nullptr ? out.backed : out.unbacked).push_back(name);
    }
  }
  return out;
}

std::vector<std::string> DraBacked(const api::Pod& pod, const DraLister* dra) {
  return dra != nullptr ? DraRequestedBy(pod, *dra).backed : std::vector<std::string>();
}

bool NodeMatches(const api::Node& node, const std::optional<std::string>& node_name, bool all_nodes,
                 const std::optional<api::NodeSelector>& selector) {
  if (node_name && !node_name->empty()) return node.metadata.name == *node_name;
  if (all_nodes) return true;
  if (selector) return api::Matches(*selector, node);
  return false;
}

std::shared_ptr<const DraResourceCounter> DraResourceCounter::Make(
    const std::vector<std::string>& resources, const DraLister& dra, const CycleState& state,
    SelectorCache& selectors) {
  std::shared_ptr<DraResourceCounter> out(new DraResourceCounter(selectors));
  bool any = false;
  for (const std::string& name : resources) {
    out->classes_.push_back(IsDraExtendedResourceName(name) ? dra.ExtendedResourceClass(name)
                                                            : nullptr);
    any = any || out->classes_.back() != nullptr;
  }
  if (!any) return nullptr;
  out->slices_ = dra.ListResourceSlices();
  selectors.Retain(out->slices_);
  for (const auto& slice : out->slices_) {
    if (slice->node_name && !slice->node_name->empty() && !slice->per_device_node_selection) {
      out->on_node_[*slice->node_name].push_back(slice.get());
    } else {
      out->others_.push_back(slice.get());
    }
  }
  const DevicesInUse* in_use = state.Read(kDevicesInUseKey);
  out->held_ = in_use != nullptr ? in_use->held : HeldViews{.allocated = dra.Allocated()};
  return out;
}

DraResourceCounter::Amounts DraResourceCounter::On(size_t i, const api::Node& node) const {
  if (i >= classes_.size() || classes_[i] == nullptr) return {};
  return Count(*classes_[i], node).value_or(Amounts{});
}

std::optional<DraResourceCounter::Amounts> DraResourceCounter::Count(const api::DeviceClass& cls,
                                                                     const api::Node& node) const {
  Amounts out;
  auto count = [&](const api::ResourceSlice& slice) -> bool {
    // Each selector's verdicts on the slice's devices; a device must match every one.
    std::vector<std::shared_ptr<const std::vector<cel::Match>>> verdicts;
    for (const std::string& expression : cls.selectors) {
      auto v = selectors_.Evaluate(expression, slice);
      if (!v.ok()) return false;
      verdicts.push_back(*std::move(v));
    }
    const HeldInPool held = held_.In(slice.driver, slice.pool);
    for (size_t d = 0; d < slice.devices.size(); ++d) {
      const api::Device& device = slice.devices[d];
      if (slice.per_device_node_selection &&
          !NodeMatches(node, device.node_name, device.all_nodes.value_or(false),
                       device.node_selector)) {
        continue;
      }
      bool matches = true;
      for (const auto& v : verdicts) {
        if (!(*v)[d].error.empty()) return false;
        matches = matches && (*v)[d].matches;
        if (!matches) break;
      }
      if (!matches) continue;
      ++out.allocatable;
      if (held.Contains(device.name) || held.Shared(device.name)) ++out.allocated;
    }
    return true;
  };
  if (auto it = on_node_.find(node.metadata.name); it != on_node_.end()) {
    for (const api::ResourceSlice* slice : it->second) {
      if (!count(*slice)) return std::nullopt;
    }
  }
  for (const api::ResourceSlice* slice : others_) {
    if (!slice->per_device_node_selection &&
        !NodeMatches(node, slice->node_name, slice->all_nodes, slice->node_selector)) {
      continue;
    }
    if (!count(*slice)) return std::nullopt;
  }
  return out;
}

}  // namespace ksched::plugins::helper
