// ApiWriter: the ClusterWriter of a real cluster. Binds through the pods/binding subresource,
// writes events.k8s.io/v1 Events as client-go's event recorder does for kube-scheduler, and
// patches the pod's PodScheduled condition and nominatedNodeName.
//
//   ApiWriter writer(http, {.hostname = "node-1"});
//   absl::Status st = writer.Bind(pod, "node-a");   // blocks until the server answers
//
// Bind waits for the answer (it runs in a binding cycle, off the scheduling loop). Events and
// status patches are sent without waiting, so that the scheduling loop never waits on the network;
// their failures are logged.
//
// Thread safety: all methods may be called from several threads at once.
#pragma once

#include <functional>
#include <string>

#include "ksched/cluster_writer.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"

namespace ksched::client {

struct ApiWriterOptions {
  // Events carry reportingController = the pod's schedulerName and reportingInstance =
  // "<schedulerName>-<hostname>", as kube-scheduler's recorder sets them.
  std::string hostname;
  // Told of every failed asynchronous write (event or status patch); may be empty.
  std::function<void(const std::string& what, const absl::Status&)> on_write_error;
};

class ApiWriter : public ClusterWriter {
 public:
  ApiWriter(HttpClient& http, ApiWriterOptions options)
      : http_(http), options_(std::move(options)) {}

  absl::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  void RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string_view action, std::string message) override;
  // Skips the patch when the pod already carries the same condition (status, reason, message)
  // and nominated node, as upstream's updatePod does.
  absl::Status UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) override;

  // The bodies, for tests.
  static nlohmann::json BindingBody(const api::Pod& pod, std::string_view node_name);
  nlohmann::json EventBody(const api::Pod& pod, std::string_view type, std::string_view reason,
                           std::string_view action, const std::string& message,
                           absl::Time now) const;
  static nlohmann::json StatusPatch(const api::PodCondition& condition,
                                    const std::string* nominated_node);

 private:
  void SendAsync(HttpRequest request, std::string what);

  HttpClient& http_;
  ApiWriterOptions options_;
};

}  // namespace ksched::client
