#include "ksched/node_info.h"

#include <algorithm>
#include <string>

#include "ksched/api/field.h"
#include "ksched/api/resources.h"

namespace ksched {
namespace {

int64_t NextGeneration() {
  static std::atomic<int64_t> generation{0};
  return ++generation;
}

constexpr std::string_view kBindAllHostIP = "0.0.0.0";

}  // namespace

bool IsScalarResourceName(std::string_view name) {
  return name != api::kResourceCPU && name != api::kResourceMemory &&
         name != api::kResourceEphemeralStorage && name != api::kResourcePods;
}

// Upstream's v1helper.IsExtendedResourceName: not a native name (one without a '/', or with
// "kubernetes.io/" anywhere in it), not a quota's "requests." name, and a qualified name once a
// quota prefixes it with "requests.".
bool IsExtendedResourceName(std::string_view name) {
  if (name.find('/') == std::string_view::npos ||
      name.find("kubernetes.io/") != std::string_view::npos || name.starts_with("requests.")) {
    return false;
  }
  return api::field::QualifiedNameErrors("requests." + std::string(name)).empty();
}

void Resource::Add(const api::ResourceList& list) {
  for (const auto& [name, q] : list) {
    if (name == api::kResourceCPU) {
      milli_cpu += q.MilliValue();
    } else if (name == api::kResourceMemory) {
      memory += q.Value();
    } else if (name == api::kResourceEphemeralStorage) {
      ephemeral_storage += q.Value();
    } else if (name == api::kResourcePods) {
      allowed_pod_number += q.Value();
    } else {
      scalar[name] += q.Value();
    }
  }
}

void Resource::Add(const Resource& o) {
  milli_cpu += o.milli_cpu;
  memory += o.memory;
  ephemeral_storage += o.ephemeral_storage;
  allowed_pod_number += o.allowed_pod_number;
  for (const auto& [name, v] : o.scalar) scalar[name] += v;
}

void Resource::Subtract(const Resource& o) {
  milli_cpu -= o.milli_cpu;
  memory -= o.memory;
  ephemeral_storage -= o.ephemeral_storage;
  allowed_pod_number -= o.allowed_pod_number;
  for (const auto& [name, v] : o.scalar) scalar[name] -= v;
}

int64_t Resource::Get(std::string_view name) const {
  if (name == api::kResourceCPU) return milli_cpu;
  if (name == api::kResourceMemory) return memory;
  if (name == api::kResourceEphemeralStorage) return ephemeral_storage;
  if (name == api::kResourcePods) return allowed_pod_number;
  auto it = scalar.find(name);
  return it == scalar.end() ? 0 : it->second;
}

Resource Resource::FromList(const api::ResourceList& list) {
  Resource r;
  r.Add(list);
  return r;
}

std::shared_ptr<const PodInfo> PodInfo::Make(std::shared_ptr<const api::Pod> pod) {
  auto info = std::make_shared<PodInfo>();
  info->requests = Resource::FromList(api::PodRequests(*pod));
  api::NonZeroRequests nz = api::NonZeroPodRequests(*pod);
  info->non0_milli_cpu = nz.milli_cpu;
  info->non0_memory = nz.memory;
  if (const auto& a = pod->spec.affinity) {
    info->has_affinity = a->pod_affinity.has_value() || a->pod_anti_affinity.has_value();
    info->has_required_anti_affinity =
        a->pod_anti_affinity &&
        !a->pod_anti_affinity->required_during_scheduling_ignored_during_execution.empty();
  }
  info->has_host_ports = !HostPortsOf(*pod).empty();
  info->pod = std::move(pod);
  return info;
}

void HostPortInfo::Add(std::string_view ip, std::string_view protocol, int32_t port) {
  if (port <= 0) return;
  if (ip.empty()) ip = kBindAllHostIP;
  if (protocol.empty()) protocol = "TCP";
  for (Entry& e : ports_) {
    if (e.port == port && e.ip == ip && e.protocol == protocol) {
      ++e.count;
      return;
    }
  }
  ports_.push_back({std::string(ip), std::string(protocol), port, 1});
}

void HostPortInfo::Remove(std::string_view ip, std::string_view protocol, int32_t port) {
  if (port <= 0) return;
  if (ip.empty()) ip = kBindAllHostIP;
  if (protocol.empty()) protocol = "TCP";
  for (auto it = ports_.begin(); it != ports_.end(); ++it) {
    if (it->port == port && it->ip == ip && it->protocol == protocol) {
      if (--it->count == 0) ports_.erase(it);
      return;
    }
  }
}

bool HostPortInfo::CheckConflict(std::string_view ip, std::string_view protocol,
                                 int32_t port) const {
  if (port <= 0) return false;
  if (ip.empty()) ip = kBindAllHostIP;
  if (protocol.empty()) protocol = "TCP";
  for (const Entry& e : ports_) {
    if (e.port != port || e.protocol != protocol) continue;
    if (ip == kBindAllHostIP || e.ip == kBindAllHostIP || e.ip == ip) return true;
  }
  return false;
}

std::vector<api::ContainerPort> HostPortsOf(const api::Pod& pod) {
  std::vector<api::ContainerPort> out;
  auto collect = [&](const api::Container& c) {
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port > 0) out.push_back(p);
    }
  };
  for (const api::Container& c : pod.spec.init_containers) {
    if (c.restart_policy == api::kContainerRestartPolicyAlways) collect(c);
  }
  for (const api::Container& c : pod.spec.containers) collect(c);
  return out;
}

const std::string& NodeInfo::name() const {
  static const std::string kEmpty;
  return node_ ? node_->metadata.name : kEmpty;
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  node_ = std::move(node);
  allocatable_ = Resource::FromList(node_->status.allocatable);
  image_sizes_.clear();
  for (const api::ContainerImage& image : node_->status.images) {
    for (const std::string& name : image.names) image_sizes_[name] = image.size_bytes;
  }
  generation_ = NextGeneration();
}

void NodeInfo::RemoveNode() {
  node_.reset();
  generation_ = NextGeneration();
}

void NodeInfo::AddPod(std::shared_ptr<const PodInfo> pod) {
  Update(*pod, +1);
  if (pod->has_affinity) pods_with_affinity_.push_back(pod);
  if (pod->has_required_anti_affinity) pods_with_required_anti_affinity_.push_back(pod);
  pods_.push_back(std::move(pod));
}

bool NodeInfo::RemovePod(std::string_view uid) {
  auto same = [&](const std::shared_ptr<const PodInfo>& p) { return p->pod->metadata.uid == uid; };
  auto it = std::find_if(pods_.begin(), pods_.end(), same);
  if (it == pods_.end()) return false;
  Update(**it, -1);
  std::erase_if(pods_with_affinity_, same);
  std::erase_if(pods_with_required_anti_affinity_, same);
  // Order does not matter to the scheduler: swap with the last to keep removal O(1).
  std::swap(*it, pods_.back());
  pods_.pop_back();
  return true;
}

void NodeInfo::Update(const PodInfo& pod, int sign) {
  if (sign > 0) {
    requested_.Add(pod.requests);
  } else {
    requested_.Subtract(pod.requests);
  }
  non_zero_requested_.milli_cpu += sign * pod.non0_milli_cpu;
  non_zero_requested_.memory += sign * pod.non0_memory;
  generation_ = NextGeneration();
  if (!pod.has_host_ports) return;
  for (const api::ContainerPort& p : HostPortsOf(*pod.pod)) {
    if (sign > 0) {
      used_ports_.Add(p.host_ip, p.protocol, p.host_port);
    } else {
      used_ports_.Remove(p.host_ip, p.protocol, p.host_port);
    }
  }
}

}  // namespace ksched
