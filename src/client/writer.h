// ApiWriter: the ClusterWriter of a real cluster. Binds through the pods/binding subresource,
// writes events through its EventRecorder (event_recorder.h), patches the pod's PodScheduled
// condition and nominatedNodeName, and writes what the volume and DRA plugins bind.
//
//   ApiWriter writer(http, {.hostname = "node-1"});
//   absl::Status st = writer.Bind(pod, "node-a");   // blocks until the server answers
//   writer.BindAsync(pod, "node-a", [](absl::Status st) { ... });  // returns at once
//
// Bind waits for the answer (it runs in a binding cycle, off the scheduling loop). Events and
// status patches are sent without waiting, so that the scheduling loop never waits on the network;
// their failures are logged.
//
// Thread safety: all methods may be called from several threads at once.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/cluster_writer.h"
#include "nlohmann/json.hpp"
#include "src/client/event_recorder.h"
#include "src/client/http.h"

namespace ksched::client {

struct ApiWriterOptions {
  // Events carry reportingController = the pod's schedulerName and reportingInstance =
  // "<schedulerName>-<hostname>", as kube-scheduler's recorder sets them.
  std::string hostname;
  // Told of every failed asynchronous write (event or status patch); may be empty.
  WriteErrorHandler on_write_error;
  // While the API server cannot be reached, an event is sent again 11 times, each after this (to
  // 1.25 times it), as client-go's recorder does.
  absl::Duration event_retry_delay = absl::Seconds(10);
  // While the API server cannot be reached, a status patch is sent again 5 times, each after
  // this (to 1.25 times it): the patch is idempotent, and a pod left in the unschedulable queue
  // may not be tried again for minutes.
  absl::Duration status_retry_delay = absl::Seconds(5);
  // Binds and deletions (preemption's) go out only while this is OK, checked as each leaves (the
  // HttpRequest's guard): the leader election's fence (LeaderElector::Leading), so that a leader
  // whose renewals stalled, or that was stopped and resumed, writes nothing once a standby may
  // have taken over. Empty: always.
  std::function<absl::Status()> may_write;
  // The client events go through, as kube-scheduler gives its event broadcaster a client (and a
  // rate limit) of its own; nullptr: the writer's.
  HttpClient* events = nullptr;
};

class ApiWriter : public ClusterWriter {
 public:
  ApiWriter(HttpClient& http, ApiWriterOptions options)
      : http_(http),
        options_(std::move(options)),
        events_(options_.events ? *options_.events : http_,
                {.hostname = options_.hostname,
                 .on_write_error = options_.on_write_error,
                 .retry_delay = options_.event_retry_delay}) {}

  // A pod's bind goes after its status patch on the way, if any, and in place of one that
  // waited, as upstream's API dispatcher keeps one call of a pod on the way and lets a binding
  // supersede a status patch: the API server refuses a nominated node on a bound pod.
  absl::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  // `done` runs on the HTTP client's I/O thread.
  void BindAsync(const api::Pod& pod, std::string_view node_name,
                 std::function<void(absl::Status)> done) override;
  void RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string_view action, std::string message) override {
    RecordEventAt(pod, type, reason, action, message, absl::Now());
  }
  void RecordEventAt(const api::Pod& pod, std::string_view type, std::string_view reason,
                     std::string_view action, const std::string& message, absl::Time now) {
    events_.Record(pod, type, reason, action, message, now);
  }
  // The events' series (EventRecorder::FinishSeries), and the status patches' memory of what the
  // server took over a minute ago.
  void FinishSeries(absl::Time now);
  void RefreshSeries() { events_.RefreshSeries(); }

  // Skips the patch when the pod already carries the same condition (status, reason, message)
  // and nominated node, as upstream's updatePod does. A pod has one patch on the way at a time, as
  // upstream's asynchronous API dispatcher keeps it: a newer one waits in its place (replacing
  // any that waited), and one equal to the patch on the way, or to the last one the server took
  // less than a minute ago, is not sent again (the watch may not have shown it yet).
  absl::Status UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) override;
  absl::Status UpdatePodStatusAndWait(const api::Pod& pod,
                                      const api::PodCondition& condition) override;

  // DELETE with preconditions.uid; blocks until the API server answers.
  absl::Status DeletePod(const api::Pod& pod) override;
  // A merge patch of metadata.annotations, sent without waiting; a failure is reported as the
  // other writes' are (but a pod gone meanwhile).
  absl::Status SetPodGroupCondition(const api::PodGroup& group, const api::Condition& condition,
                                    int64_t generation) override;
  absl::Status PatchPodAnnotations(const api::Pod& pod,
                                   const std::map<std::string, std::string>& annotations) override;

  // JSON merge patches with metadata.resourceVersion as the precondition; block until the API
  // server answers.
  absl::StatusOr<api::PersistentVolume> BindVolumeToClaim(
      const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) override;
  absl::StatusOr<api::PersistentVolumeClaim> SetSelectedNode(
      const api::PersistentVolumeClaim& claim, std::string_view node) override;
  // Strategic merge patches (reservedFor merges by uid, as the finalizers do), with
  // metadata.resourceVersion as the precondition where the writer promises one.
  absl::StatusOr<api::ResourceClaim> ReserveResourceClaim(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer) override;
  // `done` runs on the HTTP client's I/O thread.
  void ReserveResourceClaimAsync(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer,
      std::function<void(absl::StatusOr<api::ResourceClaim>)> done) override;
  absl::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                      std::string_view consumer_uid) override;
  absl::Status DeallocateResourceClaim(const api::ResourceClaim& claim) override;
  absl::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override;
  absl::Status DeleteResourceClaim(const api::ResourceClaim& claim) override;
  // A strategic merge patch of the pod's status subresource.
  absl::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override;
  // The claim a scheduler makes for a pod's extended resources, as created, for tests.
  static nlohmann::json ExtendedResourceClaimJson(const api::ResourceClaim& claim);
  // status.allocation as the API writes it, for tests.
  static nlohmann::json AllocationJson(const api::AllocationResult& allocation);
  // The patches' bodies, for tests.
  static nlohmann::json VolumeBindingPatch(const api::PersistentVolume& pv,
                                           const api::PersistentVolumeClaim& claim);
  static nlohmann::json SelectedNodePatch(const api::PersistentVolumeClaim& claim,
                                          std::string_view node);

  // The bodies, for tests.
  static std::string BindingBody(const api::Pod& pod, std::string_view node_name);
  nlohmann::json EventBody(const api::Pod& pod, std::string_view type, std::string_view reason,
                           std::string_view action, const std::string& message,
                           absl::Time now) const {
    return events_.EventBody(pod, type, reason, action, message, now);
  }
  static nlohmann::json StatusPatch(const api::PodCondition& condition,
                                    const std::string* nominated_node);
  static nlohmann::json DeleteBody(const api::Pod& pod);

 private:
  HttpRequest BindingRequest(const api::Pod& pod, std::string_view node_name) const;
  struct Reservation;
  // One try of ReserveResourceClaimAsync: over `claim`'s resourceVersion.
  void ReserveOnce(std::shared_ptr<Reservation> r, const api::ResourceClaim& claim);
  // After a conflict: reads the claim again, 10 ms on, and tries over it.
  void ReserveAgain(std::shared_ptr<Reservation> r);

  // The status patches of each pod (by uid), shared with their callbacks, which may outlive the
  // writer.
  struct StatusPatches {
    struct OfPod {
      bool in_flight = false;
      std::string body;  // On the way, or the last the server took.
      absl::Time at;     // When it was sent.
      std::optional<HttpRequest> next;
      std::string next_what;
      std::function<void()> bind;  // Sends the pod's bind, which waits for the patch on the way.
    };
    absl::Mutex mu;
    absl::flat_hash_map<std::string, OfPod> pods ABSL_GUARDED_BY(mu);
  };
  static void SendStatusPatch(std::shared_ptr<StatusPatches> patches, HttpClient& http,
                              HttpRequest request, WriteErrorHandler report, std::string what,
                              std::string uid);

  HttpClient& http_;
  ApiWriterOptions options_;
  EventRecorder events_;
  std::shared_ptr<StatusPatches> patches_ = std::make_shared<StatusPatches>();
};

}  // namespace ksched::client
