// The two things a kubelet does for its node that kwok, the rig's fake kubelet, does not do as a
// kubelet would, and that upstream's e2e tests rely on:
//
// - Extended resources. A device plugin's resource appears in a node's status.capacity, and the
//   kubelet copies it into status.allocatable; a test that patches only the capacity
//   ("validates pod overhead is considered along with resource limits", with a fake
//   example.com/beardsecond) expects the node to be able to take it. The stand-in makes every
//   extended resource of a node's allocatable equal to its capacity, and drops it from
//   allocatable once it is gone from capacity.
// - Deletions. A pod deleted gracefully keeps its name until its kubelet deletes it for good.
//   A kubelet does that with the pod's UID as a precondition; kwok deletes by name, so a pod
//   created again under that name in the milliseconds between (upstream's
//   Get2NodesThatCanRunPod does so) is deleted in the old one's place. The stand-in finishes the
//   deletion of every pod on a node with the UID precondition; the rig's kwok runs without its
//   pod-delete stage (WithoutPodDeleteStage). Before that, as a kubelet runs a container's
//   preStop sleep hook (lifecycle.preStop.sleep) within the pod's grace period, it waits the
//   longest such sleep, at most the grace period: preemption's victims then stay terminating
//   as upstream's tests expect ("validates various priority Pods preempt expectedly with the
//   async preemption"). Other hooks (exec, httpGet) would need a container runtime: none waits.
//
//   KubeletStandIn kubelet(http);
//   kubelet.Start();
//   if (!kubelet.WaitForSync(absl::Seconds(30))) ...
//
// Thread safety: Start, Stop and WaitForSync from one thread; the work runs on the reflectors'
// threads, a thread of its own for the deletions that wait, and the client's I/O thread.
#pragma once

#include <string>
#include <string_view>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/client/reflector.h"

namespace ksched::e2e {

// The JSON merge patch of a node's status (the node as the API returns it) that makes its
// allocatable extended resources its capacity's, or null when they already are.
nlohmann::json ExtendedResourcesPatch(const nlohmann::json& node);

// How long a kubelet would take to stop a pod being deleted (the pod as the API returns it): its
// longest preStop sleep hook, at most its deletion grace period; zero without one.
absl::Duration PreStopWait(const nlohmann::json& pod);

// kwok's stages (a multi-document YAML file of kwok.x-k8s.io Stages) without the one named
// pod-delete.
std::string WithoutPodDeleteStage(std::string_view stages);

class KubeletStandIn {
 public:
  explicit KubeletStandIn(client::HttpClient& http);
  KubeletStandIn(const KubeletStandIn&) = delete;
  KubeletStandIn& operator=(const KubeletStandIn&) = delete;
  ~KubeletStandIn();  // Stops.

  void Start();
  bool WaitForSync(absl::Duration timeout);
  void Stop();

 private:
  void SyncNode(const std::string& name);
  void FinishDeletion(const api::Pod& pod);
  void Delete(const std::string& ns, const std::string& name, const std::string& uid);
  void RunDelayedDeletions();

  client::HttpClient& http_;
  client::Reflector<api::Node> nodes_;
  client::Reflector<api::Pod> pods_;

  struct Delayed {
    std::string ns, name;
    absl::Time due;
  };
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Delayed> delayed_ ABSL_GUARDED_BY(mu_);  // By UID.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread delayer_;
};

}  // namespace ksched::e2e
