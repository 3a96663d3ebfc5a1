// NodeInfo: one node and the pods on it, with the aggregates the plugins need ready to use.
//
//   const NodeInfo& ni = ...;
//   int64_t free_cpu = ni.allocatable().milli_cpu - ni.requested().milli_cpu;
//   if (ni.used_ports().CheckConflict("", "TCP", 80)) ...
//
// Plugins receive `const NodeInfo&` from the cycle's Snapshot and never change it. The cache owns
// the mutable copies. Thread safety: a snapshot NodeInfo is immutable during a cycle and may be
// read from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/objects.h"

namespace ksched {

// Resources as integers: milli-CPU, bytes, and whole units for the rest.
struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;
  // Extended resources (example.com/gpu), hugepages-*, and the like, by name.
  std::map<std::string, int64_t, std::less<>> scalar;

  // Adds a ResourceList: cpu as milli-units, "pods" to allowed_pod_number, the rest as units.
  void Add(const api::ResourceList& list);
  void Add(const Resource& other);
  void Subtract(const Resource& other);
  int64_t Get(std::string_view name) const;  // By resource name: "cpu" is milli-CPU.
  static Resource FromList(const api::ResourceList& list);
};

// Whether a resource name is a scalar one (neither cpu, memory, ephemeral-storage nor pods).
bool IsScalarResourceName(std::string_view name);
// Extended resources: a domain-prefixed name outside *kubernetes.io/ ("example.com/gpu").
bool IsExtendedResourceName(std::string_view name);

// A pod with its derived scheduling data, computed once when it enters the scheduler.
struct PodInfo {
  std::shared_ptr<const api::Pod> pod;
  Resource requests;           // api::PodRequests: what the pod uses on its node.
  int64_t non0_milli_cpu = 0;  // api::NonZeroPodRequests, for scoring.
  int64_t non0_memory = 0;
  bool has_affinity = false;                // podAffinity or podAntiAffinity terms.
  bool has_required_anti_affinity = false;  // requiredDuringScheduling podAntiAffinity terms.
  bool has_host_ports = false;              // HostPortsOf(*pod) is not empty.

  static std::shared_ptr<const PodInfo> Make(std::shared_ptr<const api::Pod> pod);
};

// Host ports in use on a node, keyed by host IP, protocol and port, as upstream's HostPortInfo.
class HostPortInfo {
 public:
  void Add(std::string_view ip, std::string_view protocol, int32_t port);
  void Remove(std::string_view ip, std::string_view protocol, int32_t port);
  // Whether (ip, protocol, port) conflicts: 0.0.0.0 (or "") conflicts with any IP on the same
  // protocol and port; another IP conflicts with itself and with 0.0.0.0. Port <= 0 never does.
  bool CheckConflict(std::string_view ip, std::string_view protocol, int32_t port) const;
  size_t size() const { return ports_.size(); }

 private:
  struct Entry {
    std::string ip;
    std::string protocol;
    int32_t port;
    int count;  // Several pods may hold the same entry (hostNetwork-less duplicates).
  };
  std::vector<Entry> ports_;
};

class NodeInfo {
 public:
  NodeInfo() = default;

  // The node; nullptr for a NodeInfo that only holds pods of a deleted node.
  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  const std::string& name() const;

  const std::vector<std::shared_ptr<const PodInfo>>& pods() const { return pods_; }
  // Pods with podAffinity/podAntiAffinity terms, and with required anti-affinity terms.
  const std::vector<std::shared_ptr<const PodInfo>>& pods_with_affinity() const {
    return pods_with_affinity_;
  }
  const std::vector<std::shared_ptr<const PodInfo>>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }

  const Resource& allocatable() const { return allocatable_; }
  const Resource& requested() const { return requested_; }
  // Requested CPU and memory, counting 100m / 200Mi for containers that request none.
  const Resource& non_zero_requested() const { return non_zero_requested_; }
  const HostPortInfo& used_ports() const { return used_ports_; }
  // Image name (as the node reports it) → size in bytes.
  const std::map<std::string, int64_t, std::less<>>& image_sizes() const { return image_sizes_; }
  // Bumped on every change: a plugin that keeps what it computed from a node can tell whether the
  // node changed since.
  int64_t generation() const { return generation_; }

  // --- Mutation, for the cache and for what-if evaluation (preemption, PreFilter AddPod). ---
  void SetNode(std::shared_ptr<const api::Node> node);
  void RemoveNode();
  void AddPod(std::shared_ptr<const PodInfo> pod);
  // Removes the pod with this UID; false if it is not on the node.
  bool RemovePod(std::string_view uid);
  std::unique_ptr<NodeInfo> Clone() const { return std::make_unique<NodeInfo>(*this); }

 private:
  void Update(const PodInfo& pod, int sign);

  std::shared_ptr<const api::Node> node_;
  std::vector<std::shared_ptr<const PodInfo>> pods_;
  std::vector<std::shared_ptr<const PodInfo>> pods_with_affinity_;
  std::vector<std::shared_ptr<const PodInfo>> pods_with_required_anti_affinity_;
  Resource allocatable_;
  Resource requested_;
  Resource non_zero_requested_;
  HostPortInfo used_ports_;
  std::map<std::string, int64_t, std::less<>> image_sizes_;
  int64_t generation_ = 0;
};

// The host ports a pod asks for: those with hostPort > 0 of its sidecar init containers, then of
// its containers (upstream's GetHostPorts).
std::vector<api::ContainerPort> HostPortsOf(const api::Pod& pod);

}  // namespace ksched
