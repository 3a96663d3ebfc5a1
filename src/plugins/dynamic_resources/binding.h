// Binding conditions (DRADeviceBindingConditions): a device that a controller must attach before
// the pod using it binds. The allocation copies the device's bindingConditions and
// bindingFailureConditions; the driver's controller reports in the claim's status.devices.
//
//   BindingState b = BindingOf(claim, absl::Minutes(10), absl::Now());
//   if (b.state == Binding::kFailed) ...  // b.error: "device binding failed: claim=gpu, ..."
//
//   BindingWaiter waiter;  // one thread, started at the first wait that needs it
//   waiter.Wait([&](absl::Time now) -> std::optional<Status> { ... }, std::move(done));
//
// Thread safety: BindingOf is a plain function; BindingWaiter's methods may be called from any
// thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/api/resource.h"
#include "ksched/status.h"

namespace ksched::plugins::dynamic_resources {

enum class Binding { kReady, kWaiting, kFailed, kTimedOut };
struct BindingState {
  Binding state = Binding::kReady;
  std::string error;  // For kFailed and kTimedOut, in upstream's words.
};

// What the claim's devices with binding conditions say (upstream's isClaimReadyForBinding and
// isClaimTimeout): ready when each has all its binding conditions True in status.devices (or
// none has any); failed when one has a failure condition True; timed out when it is not ready
// `timeout` after status.allocation.allocationTimestamp; else waiting. An unallocated claim is
// waiting.
BindingState BindingOf(const api::ResourceClaim& claim, absl::Duration timeout, absl::Time now);

// Whether one of the claim's allocated devices has binding conditions.
bool HasBindingConditions(const api::ResourceClaim& claim);

// The binding cycles that wait in PreBind for binding conditions: each wait's check runs every
// `interval` on one thread of the waiter's own, until it gives a status, which goes to its `done`
// (on that thread). kube-scheduler polls each pod's claims every 5 s in a goroutine of the pod's.
class BindingWaiter {
 public:
  // nullopt: the wait goes on.
  using Check = std::function<std::optional<Status>(absl::Time now)>;
  explicit BindingWaiter(absl::Duration interval = absl::Milliseconds(500)) : interval_(interval) {}
  // Ends the thread; the waits not ended get "context canceled" first (the scheduler waits for
  // its binding cycles before it destroys its plugins, so none should be left).
  ~BindingWaiter();
  BindingWaiter(const BindingWaiter&) = delete;
  BindingWaiter& operator=(const BindingWaiter&) = delete;

  void Wait(Check check, std::function<void(Status)> done);

 private:
  struct Waiting {
    Check check;
    std::function<void(Status)> done;
  };
  void Loop();

  const absl::Duration interval_;
  absl::Mutex mu_;
  std::vector<Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::plugins::dynamic_resources
