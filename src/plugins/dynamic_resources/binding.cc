#include "src/plugins/dynamic_resources/binding.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "ksched/api/field.h"

namespace ksched::plugins::dynamic_resources {
namespace {

// The status the device's driver reports, matched as upstream's getAllocatedDeviceStatus does
// (by driver, pool and device; a share's ID is not compared).
const api::AllocatedDeviceStatus* StatusOf(const api::ResourceClaim& claim,
                                           const api::DeviceRequestAllocationResult& r) {
  for (const api::AllocatedDeviceStatus& d : claim.devices) {
    if (d.device == r.device && d.driver == r.driver && d.pool == r.pool) return &d;
  }
  return nullptr;
}

const api::Condition* Find(const api::AllocatedDeviceStatus& status, const std::string& type) {
  for (const api::Condition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

bool HasBindingConditions(const api::ResourceClaim& claim) {
  return claim.allocation &&
         std::any_of(claim.allocation->results.begin(), claim.allocation->results.end(),
                     [](const auto& r) { return !r.binding_conditions.empty(); });
}

BindingState BindingOf(const api::ResourceClaim& claim, absl::Duration timeout, absl::Time now) {
  if (!claim.allocation) return {.state = Binding::kWaiting};
  bool ready = true;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (r.binding_conditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = StatusOf(claim, r);
    if (status == nullptr) {
      ready = false;
      break;
    }
    for (const std::string& type : r.binding_failure_conditions) {
      const api::Condition* c = Find(*status, type);
      if (c != nullptr && c->status == "True") {
        return {
            .state = Binding::kFailed,
            .error = fmt::format("device binding failed: claim={}, reason={}, message={}",
                                 claim.metadata.name, c->reason, api::field::Quote(c->message))};
      }
    }
    ready = std::all_of(r.binding_conditions.begin(), r.binding_conditions.end(),
                        [&](const std::string& type) {
                          const api::Condition* c = Find(*status, type);
                          return c != nullptr && c->status == "True";
                        });
    if (!ready) break;
  }
  if (ready) return {};
  absl::Time allocated;
  std::string parse_error;
  if (!claim.allocation->allocation_timestamp.empty() &&
      absl::ParseTime(absl::RFC3339_full, claim.allocation->allocation_timestamp, &allocated,
                      &parse_error) &&
      allocated + timeout < now) {
    return {.state = Binding::kTimedOut,
            .error = fmt::format("device binding timeout: claim={}", claim.metadata.name)};
  }
  return {.state = Binding::kWaiting};
}

BindingWaiter::~BindingWaiter() {
  std::vector<Waiting> left;
  std::thread thread;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    left = std::exchange(waiting_, {});
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
  for (Waiting& w : left) w.done(Status::Error("context canceled"));
}

void BindingWaiter::Wait(Check check, std::function<void(Status)> done) {
  absl::MutexLock lock(&mu_);
  waiting_.push_back({std::move(check), std::move(done)});
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
}

void BindingWaiter::Loop() {
  for (;;) {
    std::vector<Waiting> round;
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval_);
      if (stopping_) return;
      round = std::exchange(waiting_, {});
    }
    std::vector<Waiting> still;
    const absl::Time now = absl::Now();
    for (Waiting& w : round) {
      if (std::optional<Status> s = w.check(now)) {
        w.done(*std::move(s));
      } else {
        still.push_back(std::move(w));
      }
    }
    absl::MutexLock lock(&mu_);
    waiting_.insert(waiting_.end(), std::make_move_iterator(still.begin()),
                    std::make_move_iterator(still.end()));
  }
}

}  // namespace ksched::plugins::dynamic_resources
