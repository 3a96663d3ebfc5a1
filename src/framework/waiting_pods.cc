#include "src/framework/waiting_pods.h"

#include <algorithm>

#include "fmt/format.h"
#include "ksched/api/field.h"

namespace ksched::framework {
namespace {

// Stateless, so one serves every framework, and it outlives them all.
const RealClock kRealClock;

}  // namespace

WaitingPodImpl::WaitingPodImpl(const api::Pod& pod, std::map<std::string, absl::Duration> timeouts,
                               const Clock& clock)
    : pod_(pod), clock_(clock), timeouts_(std::move(timeouts)) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  for (const auto& [plugin, timeout] : timeouts_) deadlines_[plugin] = now + timeout;
}

std::vector<std::string> WaitingPodImpl::PendingPlugins() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, deadline] : deadlines_) out.push_back(name);
  return out;
}

void WaitingPodImpl::Allow(std::string_view plugin) {
  absl::MutexLock lock(&mu_);
  deadlines_.erase(std::string(plugin));
}

void WaitingPodImpl::Reject(std::string_view plugin, std::string message) {
  absl::MutexLock lock(&mu_);
  if (!result_) result_ = Status::Unschedulable(std::move(message)).WithPlugin(plugin);
}

Status WaitingPodImpl::Wait() {
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return result_.has_value() || deadlines_.empty();
  };
  while (true) {
    if (result_) return *result_;
    if (deadlines_.empty()) return Status();
    auto first = std::min_element(deadlines_.begin(), deadlines_.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    if (!clock_.AwaitWithDeadline(mu_, absl::Condition(&done), first->second)) {
      return Status::Unschedulable(
                 fmt::format("rejected due to timeout after waiting {} at plugin {}",
                             api::field::GoDuration(timeouts_.at(first->first)), first->first))
          .WithPlugin(first->first);
    }
  }
}

bool WaitingPodImpl::Decided() const {
  const absl::Time deadline = Deadline();
  absl::MutexLock lock(&mu_);
  return result_.has_value() || deadlines_.empty() || clock_.Now() >= deadline;
}

absl::Time WaitingPodImpl::Deadline() const {
  absl::MutexLock lock(&mu_);
  absl::Time first = absl::InfiniteFuture();
  for (const auto& [plugin, deadline] : deadlines_) first = std::min(first, deadline);
  return first;
}

WaitingPods::WaitingPods(const Clock* clock) : clock_(clock ? *clock : kRealClock) {}

void WaitingPods::Add(const api::Pod& pod, const std::map<std::string, absl::Duration>& timeouts) {
  auto wp = std::make_shared<WaitingPodImpl>(pod, timeouts, clock_);
  absl::MutexLock lock(&mu_);
  pods_[pod.metadata.uid] = std::move(wp);
}

std::shared_ptr<WaitingPodImpl> WaitingPods::Get(std::string_view uid) const {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

void WaitingPods::Remove(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  if (auto it = pods_.find(uid); it != pods_.end()) pods_.erase(it);
}

void WaitingPods::Iterate(const std::function<void(WaitingPod&)>& fn) const {
  std::vector<std::shared_ptr<WaitingPodImpl>> pods;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [uid, wp] : pods_) pods.push_back(wp);
  }
  for (const auto& wp : pods) fn(*wp);
}

}  // namespace ksched::framework
