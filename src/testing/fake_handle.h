// A Handle for plugin tests: a snapshot built from nodes and pods through the real cache, and a
// writer that records what it was asked to do.
//
//   FakeHandle h({MakeNode().Name("n1").Obj()}, {MakePod().Name("p").Node("n1").Obj()});
//   const NodeInfo& n1 = *h.snapshot().Get("n1");
#pragma once

#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "ksched/handle.h"
#include "src/api/listers.h"
#include "src/cache/cache.h"

namespace ksched::testing {

// Records binds, events and status updates in memory.
class RecordingWriter : public ClusterWriter {
 public:
  struct Event {
    std::string pod;  // namespace/name
    std::string type, reason, action, message;
  };

  absl::Status Bind(const api::Pod& pod, std::string_view node) override {
    absl::MutexLock lock(&mu_);
    if (!bind_error.ok()) return bind_error;
    binds[pod.metadata.namespace_ + "/" + pod.metadata.name] = std::string(node);
    return absl::OkStatus();
  }
  // With hold_binds set, a bind (or a claim's reservation) sent without waiting waits, as one the
  // API server has not answered yet, until AnswerHeldBinds answers it as Bind (or
  // ReserveResourceClaim) would.
  void BindAsync(const api::Pod& pod, std::string_view node,
                 std::function<void(absl::Status)> done) override {
    {
      absl::MutexLock lock(&mu_);
      if (hold_binds) {
        held_.push_back([this, pod, node = std::string(node), done = std::move(done)] {
          done(Bind(pod, node));
        });
        return;
      }
    }
    done(Bind(pod, node));
  }
  void ReserveResourceClaimAsync(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer,
      std::function<void(absl::StatusOr<api::ResourceClaim>)> done) override {
    {
      absl::MutexLock lock(&mu_);
      if (hold_binds) {
        std::optional<api::AllocationResult> a;
        if (allocation != nullptr) a = *allocation;
        held_.push_back([this, claim, a, consumer, done = std::move(done)] {
          done(ReserveResourceClaim(claim, a ? &*a : nullptr, consumer));
        });
        return;
      }
    }
    done(ReserveResourceClaim(claim, allocation, consumer));
  }
  // Answers the held binds, in the order they came; returns how many there were.
  size_t AnswerHeldBinds() {
    std::vector<std::function<void()>> held;
    {
      absl::MutexLock lock(&mu_);
      held.swap(held_);
    }
    for (auto& answer : held) answer();
    return held.size();
  }
  void RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string_view action, std::string message) override {
    absl::MutexLock lock(&mu_);
    events.push_back({pod.metadata.namespace_ + "/" + pod.metadata.name, std::string(type),
                      std::string(reason), std::string(action), std::move(message)});
  }
  absl::Status UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) override {
    absl::MutexLock lock(&mu_);
    if (!condition.type.empty())
      conditions[pod.metadata.namespace_ + "/" + pod.metadata.name] = condition;
    if (nominated_node)
      nominated[pod.metadata.namespace_ + "/" + pod.metadata.name] = *nominated_node;
    return absl::OkStatus();
  }

  absl::Status UpdatePodStatusAndWait(const api::Pod& pod,
                                      const api::PodCondition& condition) override {
    {
      absl::MutexLock lock(&mu_);
      awaited.push_back(pod.metadata.namespace_ + "/" + pod.metadata.name + " " + condition.type);
    }
    return UpdatePodStatus(pod, condition, nullptr);
  }

  // The annotations patched onto each pod, merged.
  absl::Status PatchPodAnnotations(const api::Pod& pod,
                                   const std::map<std::string, std::string>& a) override {
    absl::MutexLock lock(&mu_);
    for (const auto& [k, v] : a)
      annotations[pod.metadata.namespace_ + "/" + pod.metadata.name][k] = v;
    return absl::OkStatus();
  }

  absl::Status DeletePod(const api::Pod& pod) override {
    absl::MutexLock lock(&mu_);
    deleted.push_back(pod.metadata.namespace_ + "/" + pod.metadata.name);
    return absl::OkStatus();
  }

  // Each PodGroup condition written, in order: "namespace/name status reason: message".
  absl::Status SetPodGroupCondition(const api::PodGroup& group, const api::Condition& c,
                                    int64_t /*generation*/) override {
    absl::MutexLock lock(&mu_);
    group_conditions.push_back(fmt::format("{}/{} {} {}: {}", group.metadata.namespace_,
                                           group.metadata.name, c.status, c.reason, c.message));
    return absl::OkStatus();
  }

  // DRA claims' writes, as the API server makes them: the claim gets a new resourceVersion (one
  // more than it had); a conflict if it is not at the version read. Written claims are kept, by
  // namespace/name, and DRA's listers, where set, show them.
  absl::StatusOr<api::ResourceClaim> ReserveResourceClaim(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer) override {
    return WriteClaim(claim, true, [&](api::ResourceClaim& c) {
      if (allocation != nullptr) c.allocation = *allocation;
      c.reserved_for.push_back(consumer);
    });
  }
  absl::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                      std::string_view consumer_uid) override {
    return WriteClaim(claim, false,
                      [&](api::ResourceClaim& c) {
                        std::erase_if(c.reserved_for,
                                      [&](const auto& r) { return r.uid == consumer_uid; });
                      })
        .status();
  }
  absl::Status DeallocateResourceClaim(const api::ResourceClaim& claim) override {
    return WriteClaim(claim, true,
                      [](api::ResourceClaim& c) {
                        c.allocation.reset();
                        c.reserved_for.clear();
                        c.devices.clear();
                      })
        .status();
  }
  absl::StatusOr<api::ResourceClaim> WriteClaim(
      const api::ResourceClaim& read, bool check_version,
      const std::function<void(api::ResourceClaim&)>& change) {
    absl::MutexLock lock(&mu_);
    if (!claim_error.ok()) return claim_error;
    std::shared_ptr<const api::ResourceClaim> current =
        dra ? dra->resource_claims.GetLike(read) : nullptr;
    api::ResourceClaim c = current ? *current : read;
    if (check_version && c.metadata.resource_version != read.metadata.resource_version) {
      return absl::AlreadyExistsError("the object has been modified");
    }
    change(c);
    c.metadata.resource_version =
        std::to_string(std::atoi(c.metadata.resource_version.c_str()) + 1);
    claims[api::KeyOf(c.metadata)] = c;
    if (dra) dra->resource_claims.Set(std::make_shared<const api::ResourceClaim>(c));
    return c;
  }

  // DRA-backed extended resources: a created claim is named from its generateName and a count
  // ("-1", "-2", ...), stored as written claims are; a deleted one leaves both.
  absl::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override {
    absl::MutexLock lock(&mu_);
    if (!claim_error.ok()) return claim_error;
    api::ResourceClaim c = claim;
    c.metadata.name = c.metadata.generate_name + std::to_string(++created_);
    c.metadata.generate_name.clear();
    c.metadata.uid = c.metadata.name + "-uid";
    c.metadata.resource_version = "1";
    claims[api::KeyOf(c.metadata)] = c;
    if (dra) dra->resource_claims.Set(std::make_shared<const api::ResourceClaim>(c));
    return c;
  }
  absl::Status DeleteResourceClaim(const api::ResourceClaim& claim) override {
    absl::MutexLock lock(&mu_);
    deleted_claims.push_back(api::KeyOf(claim.metadata));
    claims.erase(api::KeyOf(claim.metadata));
    if (dra) dra->resource_claims.Remove(claim);
    return absl::OkStatus();
  }
  absl::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override {
    absl::MutexLock lock(&mu_);
    if (!claim_error.ok()) return claim_error;
    extended_statuses[pod.metadata.namespace_ + "/" + pod.metadata.name] = status;
    return absl::OkStatus();
  }
  std::vector<std::string> deleted_claims;                                       // namespace/name
  std::map<std::string, api::PodExtendedResourceClaimStatus> extended_statuses;  // By pod.

  absl::Status bind_error;   // Returned by Bind when not OK.
  absl::Status claim_error;  // Returned by the claims' writes when not OK.
  DraObjects* dra = nullptr;
  std::map<std::string, api::ResourceClaim> claims;  // Written claims, by namespace/name.
  bool hold_binds = false;
  std::map<std::string, std::string> binds;
  std::vector<Event> events;
  std::map<std::string, api::PodCondition> conditions;
  std::map<std::string, std::string> nominated;
  std::vector<std::string> awaited;           // "namespace/name type": UpdatePodStatusAndWait's.
  std::vector<std::string> deleted;           // namespace/name
  std::vector<std::string> group_conditions;  // SetPodGroupCondition's.
  std::map<std::string, std::map<std::string, std::string>> annotations;  // namespace/name → ...

 private:
  absl::Mutex mu_;
  std::vector<std::function<void()>> held_ ABSL_GUARDED_BY(mu_);
  int created_ ABSL_GUARDED_BY(mu_) = 0;
};

// A plugin's own metric, as CountingMetrics keeps it: each series' value (counters and gauges) or
// sum of observations (histograms), by label values.
class RecordedMetric final : public PluginCounter, public PluginGauge, public PluginHistogram {
 public:
  void Add(std::initializer_list<std::string_view> labels, double v) override {
    absl::MutexLock l(&mu_);
    values_[Key(labels)] += v;
  }
  void Set(std::initializer_list<std::string_view> labels, double v) override {
    absl::MutexLock l(&mu_);
    values_[Key(labels)] = v;
  }
  void Observe(std::initializer_list<std::string_view> labels, double v) override {
    Add(labels, v);
  }
  double Value(std::initializer_list<std::string_view> labels = {}) const {
    absl::MutexLock l(&mu_);
    auto it = values_.find(Key(labels));
    return it == values_.end() ? 0 : it->second;
  }

 private:
  static std::vector<std::string> Key(std::initializer_list<std::string_view> labels) {
    return {labels.begin(), labels.end()};
  }
  mutable absl::Mutex mu_;
  std::map<std::vector<std::string>, double> values_ ABSL_GUARDED_BY(mu_);
};

// The metrics plugins record, counted; a plugin's own, by name, whatever their kind.
class CountingMetrics final : public PluginMetrics {
 public:
  absl::StatusOr<PluginCounter*> Counter(const MetricOptions& options) override {
    return &Own(options.name);
  }
  absl::StatusOr<PluginGauge*> Gauge(const MetricOptions& options) override {
    return &Own(options.name);
  }
  absl::StatusOr<PluginHistogram*> Histogram(const MetricOptions& options) override {
    return &Own(options.name);
  }
  // A plugin's own metric by name, made empty if the plugin did not register it.
  RecordedMetric& Own(const std::string& name) {
    absl::MutexLock l(&mu_);
    std::unique_ptr<RecordedMetric>& m = own_[name];
    if (m == nullptr) m = std::make_unique<RecordedMetric>();
    return *m;
  }
  void PreemptionAttempted() override { ++attempts_; }
  void PreemptionVictims(int count) override {
    absl::MutexLock l(&mu_);
    victims_.push_back(count);
  }
  void PreemptionEvaluated(std::string_view preemptor, std::string_view result, double) override {
    absl::MutexLock l(&mu_);
    preemptions_.push_back(fmt::format("evaluated {} {}", preemptor, result));
  }
  void PreemptionExecuted(std::string_view preemptor, std::string_view result, double) override {
    absl::MutexLock l(&mu_);
    preemptions_.push_back(fmt::format("executed {} {}", preemptor, result));
  }
  void PreemptionVictimsChosen(std::string_view preemptor, int64_t pdb_violations,
                               int group_disruptions) override {
    absl::MutexLock l(&mu_);
    preemptions_.push_back(
        fmt::format("chosen {} {} {}", preemptor, pdb_violations, group_disruptions));
  }
  void VolumeSchedulingStageFailed(std::string_view operation) override {
    absl::MutexLock l(&mu_);
    volume_errors_.emplace_back(operation);
  }
  void DraBindingConditionsWaited(std::string_view driver, std::string_view status,
                                  double) override {
    absl::MutexLock l(&mu_);
    binding_waits_.push_back(fmt::format("{}/{}", driver, status));
  }
  void DraBindingConditionsAllocation(std::string_view driver, std::string_view status) override {
    absl::MutexLock l(&mu_);
    binding_allocations_.push_back(fmt::format("{}/{}", driver, status));
  }
  int attempts() const { return attempts_; }
  // DraBindingConditionsWaited's and DraBindingConditionsAllocation's "driver/status", in order.
  std::vector<std::string> binding_waits() const {
    absl::MutexLock l(&mu_);
    return binding_waits_;
  }
  std::vector<std::string> binding_allocations() const {
    absl::MutexLock l(&mu_);
    return binding_allocations_;
  }
  std::vector<int> victims() const {
    absl::MutexLock l(&mu_);
    return victims_;
  }
  // PreemptionEvaluated's "evaluated <preemptor> <result>", PreemptionExecuted's "executed
  // <preemptor> <result>" and PreemptionVictimsChosen's "chosen <preemptor> <pdb violations>
  // <group disruptions>", in order.
  std::vector<std::string> preemptions() const {
    absl::MutexLock l(&mu_);
    return preemptions_;
  }
  // The operations of VolumeSchedulingStageFailed, in order.
  std::vector<std::string> volume_errors() const {
    absl::MutexLock l(&mu_);
    return volume_errors_;
  }

 private:
  std::atomic<int> attempts_{0};
  mutable absl::Mutex mu_;
  std::vector<int> victims_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> preemptions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> volume_errors_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> binding_waits_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> binding_allocations_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<RecordedMetric>> own_ ABSL_GUARDED_BY(mu_);
};

class FakeHandle : public Handle {
 public:
  explicit FakeHandle(const std::vector<api::Node>& nodes = {},
                      const std::vector<api::Pod>& pods = {}) {
    for (const api::Node& n : nodes) cache_.AddNode(std::make_shared<const api::Node>(n));
    for (const api::Pod& p : pods) {
      (void)cache_.AddPod(PodInfo::Make(std::make_shared<const api::Pod>(p)));
    }
    cache_.UpdateSnapshot(&snapshot_);
    writer_.dra = &listers_.dra;
  }

  const Snapshot& snapshot() const override { return snapshot_; }
  ClusterWriter& writer() override { return writer_; }
  int parallelism() const override { return 1; }
  std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view) override { return nullptr; }
  void IterateOverWaitingPods(const std::function<void(WaitingPod&)>&) override {}
  std::shared_ptr<const api::Namespace> GetNamespace(std::string_view name) const override {
    return listers_.namespaces.Get(name);
  }
  std::shared_ptr<const api::PriorityClass> GetPriorityClass(std::string_view name) const override {
    return listers_.priority_classes.Get(name);
  }
  std::vector<std::shared_ptr<const api::Service>> ListServices(
      std::string_view ns) const override {
    return listers_.services.List(ns);
  }
  std::shared_ptr<const api::ReplicationController> GetReplicationController(
      std::string_view ns, std::string_view name) const override {
    return listers_.replication_controllers.Get(ns, name);
  }
  std::shared_ptr<const api::ReplicaSet> GetReplicaSet(std::string_view ns,
                                                       std::string_view name) const override {
    return listers_.replica_sets.Get(ns, name);
  }
  std::shared_ptr<const api::StatefulSet> GetStatefulSet(std::string_view ns,
                                                         std::string_view name) const override {
    return listers_.stateful_sets.Get(ns, name);
  }
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> ListPodDisruptionBudgets()
      const override {
    return listers_.pod_disruption_budgets.ListAll();
  }
  std::shared_ptr<const api::Pod> GetAssignedPod(std::string_view uid) const override {
    return cache_.GetPod(uid);
  }

  // Filters and nominations are the framework's; a FakeHandle has none.
  Status RunFilterPluginsWithNominatedPods(const CycleState&, const api::Pod&,
                                           const NodeInfo&) const override {
    return Status();
  }
  Status RunPreFilterExtensionAddPod(CycleState&, const api::Pod&, const PodInfo&,
                                     const NodeInfo&) const override {
    return Status();
  }
  Status RunPreFilterExtensionRemovePod(CycleState&, const api::Pod&, const PodInfo&,
                                        const NodeInfo&) const override {
    return Status();
  }
  std::vector<std::shared_ptr<const PodInfo>> NominatedPodsForNode(
      std::string_view) const override {
    return {};
  }
  std::string NominatedNodeOf(const api::Pod& pod) const override {
    return pod.status.nominated_node_name;
  }

  // At once; Activate records the pods' names.
  void RunAsync(std::function<void()> fn) override { fn(); }
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) override {
    for (const auto& p : pods) activated.push_back(p->metadata.namespace_ + "/" + p->metadata.name);
  }
  std::vector<std::string> activated;  // namespace/name
  // The storage objects: a test sets them with listers().storage.
  const StorageLister& storage() const override { return listers_.storage; }
  // The DRA objects: a test sets them with listers().dra; the writer's claim writes land there.
  const DraLister& dra() const override { return listers_.dra; }
  const PodGroupLister& pod_groups() const override { return pod_groups_; }
  // The pods: a test sets them with pod_index().Set.
  const PodLister& pods() override { return pods_; }
  PodsByNamespace& pod_index() {
    pods_.Enable();
    return pods_;
  }
  // The custom objects: a test sets them with listers().custom.Watch(r).objects().Set.
  const CustomObjectLister& WatchCustomResource(const CustomResource& resource) override {
    return listers_.custom.Watch(resource);
  }
  PluginMetrics& metrics() override { return metrics_; }
  bool Stopping() const override { return stopping; }
  absl::Time Now() const override { return now; }
  std::atomic<bool> stopping{false};                   // What Stopping answers.
  absl::Time now = absl::FromUnixSeconds(1767225600);  // What Now answers.

  RecordingWriter& recording_writer() { return writer_; }
  CountingMetrics& counting_metrics() { return metrics_; }
  cache::Cache& cache() { return cache_; }
  // The stores GetNamespace, ListServices, ..., storage() read.
  Listers& listers() { return listers_; }
  void Refresh() { cache_.UpdateSnapshot(&snapshot_); }

 private:
  cache::Cache cache_;
  Listers listers_;
  PodsByNamespace pods_;
  cache::PodGroupView pod_groups_{&listers_.pod_groups, &cache_};
  Snapshot snapshot_;
  RecordingWriter writer_;
  CountingMetrics metrics_;
};

}  // namespace ksched::testing
