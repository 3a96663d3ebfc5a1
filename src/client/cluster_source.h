// ApiSource: feeds a Scheduler from a real cluster, as kube-scheduler's informers and event
// handlers do. Nodes and assigned pods go to the cache; unassigned pods whose schedulerName a
// profile serves go to the queue (the Scheduler's handlers sort that out). Terminal pods are not
// watched at all (field selector status.phase!=Succeeded,status.phase!=Failed, as upstream).
// Namespaces and PriorityClasses are kept for plugins (Handle::GetNamespace, GetPriorityClass).
// PriorityClasses are optional: system:kube-scheduler may not list them (kube-scheduler does not
// watch them, since admission has already set each pod's priority), so a 403 is logged once and
// ksched goes on without them, trying again with backoff.
//
//   ApiSource source(http, scheduler, writer);
//   source.Start();
//   if (!source.WaitForSync(absl::Minutes(1))) ...   // /readyz stays false until then
//
// A pod that cannot be decoded is left out and, if it waits for one of our profiles, gets a
// Warning FailedScheduling event that says why; the scheduler goes on.
//
// Thread safety: Start/Stop/WaitForSync/HasSynced from any thread. The scheduler's handlers are
// called from the reflectors' threads.
#pragma once

#include "src/client/reflector.h"
#include "src/scheduler/scheduler.h"

namespace ksched::client {

class ApiSource {
 public:
  ApiSource(HttpClient& http, scheduler::Scheduler& scheduler, ClusterWriter& writer);

  void Start();
  void Stop();
  bool WaitForSync(absl::Duration timeout);
  bool HasSynced();

 private:
  scheduler::Scheduler& scheduler_;
  ClusterWriter& writer_;
  Reflector<api::Node> nodes_;
  Reflector<api::Pod> pods_;
  Reflector<api::Namespace> namespaces_;
  Reflector<api::PriorityClass> priority_classes_;
};

}  // namespace ksched::client
