// Fluent builders for test objects, as upstream's st.MakePod() / st.MakeNode().
//
//   api::Pod pod = MakePod().Name("p").Req("cpu", "100m").Toleration("k", "Exists").Obj();
//   api::Node node = MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"memory", "32Gi"}}).Obj();
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "ksched/api/objects.h"

namespace ksched::testing {

inline api::Quantity Q(const std::string& s) { return *api::Quantity::Parse(s); }

inline api::ResourceList Resources(
    std::initializer_list<std::pair<std::string, std::string>> items) {
  api::ResourceList out;
  for (const auto& [k, v] : items) out[k] = Q(v);
  return out;
}

class MakePod {
 public:
  MakePod() {
    pod_.metadata.namespace_ = "default";
    pod_.spec.scheduler_name = "default-scheduler";
  }
  // Goes on building `pod`.
  explicit MakePod(api::Pod pod) : pod_(std::move(pod)) {}
  MakePod& Name(std::string n) {
    if (pod_.metadata.uid.empty() || pod_.metadata.uid == pod_.metadata.name) {
      pod_.metadata.uid = n;
    }
    pod_.metadata.name = std::move(n);
    return *this;
  }
  MakePod& Namespace(std::string ns) { return Set(pod_.metadata.namespace_, std::move(ns)); }
  MakePod& UID(std::string uid) { return Set(pod_.metadata.uid, std::move(uid)); }
  MakePod& Label(std::string k, std::string v) {
    pod_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  MakePod& Annotation(std::string k, std::string v) {
    pod_.metadata.annotations[std::move(k)] = std::move(v);
    return *this;
  }
  MakePod& SchedulerName(std::string s) { return Set(pod_.spec.scheduler_name, std::move(s)); }
  MakePod& Node(std::string n) { return Set(pod_.spec.node_name, std::move(n)); }
  MakePod& Priority(int32_t p) {
    pod_.spec.priority = p;
    return *this;
  }
  MakePod& NodeSelector(std::string k, std::string v) {
    pod_.spec.node_selector[std::move(k)] = std::move(v);
    return *this;
  }
  // Adds a container requesting the given resources.
  MakePod& Container(std::initializer_list<std::pair<std::string, std::string>> requests,
                     std::string image = "") {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    c.image = std::move(image);
    c.resources.requests = Resources(requests);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  // A one-container pod's request: Req("cpu", "100m").Req("memory", "1Gi").
  MakePod& Req(const std::string& name, const std::string& value) {
    if (pod_.spec.containers.empty()) Container({});
    pod_.spec.containers[0].resources.requests[name] = Q(value);
    return *this;
  }
  MakePod& InitContainer(std::initializer_list<std::pair<std::string, std::string>> requests,
                         bool sidecar = false) {
    api::Container c;
    c.name = "init" + std::to_string(pod_.spec.init_containers.size());
    c.resources.requests = Resources(requests);
    if (sidecar) c.restart_policy = "Always";
    pod_.spec.init_containers.push_back(std::move(c));
    return *this;
  }
  MakePod& HostPort(int32_t port, std::string protocol = "TCP", std::string ip = "") {
    if (pod_.spec.containers.empty()) Container({});
    pod_.spec.containers[0].ports.push_back({.container_port = port,
                                             .host_port = port,
                                             .host_ip = std::move(ip),
                                             .protocol = std::move(protocol)});
    return *this;
  }
  MakePod& Toleration(std::string key, std::string op, std::string value = "",
                      std::string effect = "") {
    pod_.spec.tolerations.push_back({.key = std::move(key),
                                     .op = std::move(op),
                                     .value = std::move(value),
                                     .effect = std::move(effect)});
    return *this;
  }
  MakePod& SchedulingGate(std::string name) {
    pod_.spec.scheduling_gates.push_back({std::move(name)});
    return *this;
  }
  // spec.schedulingGroup.podGroupName.
  MakePod& PodGroup(std::string name) {
    pod_.spec.pod_group_name = std::move(name);
    return *this;
  }
  MakePod& NodeAffinityIn(std::string key, std::vector<std::string> values) {
    auto& na = Affinity().node_affinity;
    if (!na) na.emplace();
    auto& req = na->required_during_scheduling_ignored_during_execution;
    if (!req) req.emplace();
    req->node_selector_terms.push_back(
        {.match_expressions = {{std::move(key), "In", std::move(values)}}});
    return *this;
  }
  MakePod& PreferredNodeAffinityIn(int32_t weight, std::string key,
                                   std::vector<std::string> values) {
    auto& na = Affinity().node_affinity;
    if (!na) na.emplace();
    na->preferred_during_scheduling_ignored_during_execution.push_back(
        {weight, {.match_expressions = {{std::move(key), "In", std::move(values)}}}});
    return *this;
  }
  // A required podAntiAffinity term: no two pods labelled key=value in one `topology_key` domain.
  MakePod& RequiredAntiAffinity(std::string key, std::string value, std::string topology_key) {
    auto& anti = Affinity().pod_anti_affinity;
    if (!anti) anti.emplace();
    anti->required_during_scheduling_ignored_during_execution.push_back(
        {.label_selector = api::LabelSelector{.match_labels = {{std::move(key), std::move(value)}}},
         .topology_key = std::move(topology_key)});
    return *this;
  }
  MakePod& SpreadConstraint(int32_t max_skew, std::string topology_key,
                            std::string when_unsatisfiable = "DoNotSchedule") {
    pod_.spec.topology_spread_constraints.push_back(
        {.max_skew = max_skew,
         .topology_key = std::move(topology_key),
         .when_unsatisfiable = std::move(when_unsatisfiable)});
    return *this;
  }
  MakePod& Image(std::string image) {
    if (pod_.spec.containers.empty()) Container({});
    pod_.spec.containers[0].image = std::move(image);
    return *this;
  }
  MakePod& Overhead(std::initializer_list<std::pair<std::string, std::string>> r) {
    pod_.spec.overhead = Resources(r);
    return *this;
  }

  api::Pod Obj() const { return pod_; }
  std::shared_ptr<const api::Pod> Ptr() const { return std::make_shared<const api::Pod>(pod_); }

 private:
  MakePod& Set(std::string& field, std::string v) {
    field = std::move(v);
    return *this;
  }
  api::Affinity& Affinity() {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    return *pod_.spec.affinity;
  }
  api::Pod pod_;
};

class MakeNode {
 public:
  MakeNode& Name(std::string n) {
    node_.metadata.labels["kubernetes.io/hostname"] = n;
    node_.metadata.uid = n;
    node_.metadata.name = std::move(n);
    return *this;
  }
  MakeNode& Label(std::string k, std::string v) {
    node_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  MakeNode& Annotation(std::string k, std::string v) {
    node_.metadata.annotations[std::move(k)] = std::move(v);
    return *this;
  }
  // Sets both capacity and allocatable.
  MakeNode& Capacity(std::initializer_list<std::pair<std::string, std::string>> r) {
    node_.status.capacity = node_.status.allocatable = Resources(r);
    return *this;
  }
  MakeNode& Taint(std::string key, std::string value, std::string effect) {
    node_.spec.taints.push_back(
        {.key = std::move(key), .value = std::move(value), .effect = std::move(effect)});
    return *this;
  }
  MakeNode& Unschedulable(bool u = true) {
    node_.spec.unschedulable = u;
    return *this;
  }
  MakeNode& Image(std::string name, int64_t size_bytes) {
    node_.status.images.push_back({.names = {std::move(name)}, .size_bytes = size_bytes});
    return *this;
  }

  api::Node Obj() const { return node_; }
  std::shared_ptr<const api::Node> Ptr() const { return std::make_shared<const api::Node>(node_); }

 private:
  api::Node node_;
};

}  // namespace ksched::testing
