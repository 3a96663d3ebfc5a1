#include "src/client/leader_election.h"

#include "absl/random/random.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/base/log.h"
#include "src/base/thread_name.h"

namespace ksched::client {
namespace {

using nlohmann::json;

std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace

LeaderElector::LeaderElector(HttpClient& http, LeaderElectionOptions options)
    : http_(http), options_(std::move(options)) {}

LeaderElector::~LeaderElector() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (renewer_.joinable()) renewer_.join();
}

std::string LeaderElector::LeasePath() const {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", options_.namespace_,
                     options_.name);
}

json LeaderElector::LeaseSpec(absl::Time now, bool new_holder, int transitions) const {
  json spec = {{"holderIdentity", options_.identity},
               {"leaseDurationSeconds", absl::ToInt64Seconds(options_.lease_duration)},
               {"renewTime", MicroTime(now)},
               {"leaseTransitions", transitions}};
  spec["acquireTime"] =
      new_holder || !observed_.contains("spec") || !observed_["spec"].contains("acquireTime")
          ? json(MicroTime(now))
          : observed_["spec"]["acquireTime"];
  return spec;
}

absl::Status LeaderElector::TryAcquireOrRenew(absl::Time now) {
  // No call outlasts the renew deadline, by which a leader that cannot renew must give up.
  const absl::Duration timeout = options_.renew_deadline;
  HttpResponse got = http_.Call({.path = LeasePath(), .timeout = timeout});
  if (got.status == 404) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", options_.name}, {"namespace", options_.namespace_}}},
                  {"spec", LeaseSpec(now, true, 0)}};
    HttpResponse created =
        http_.Call({.method = "POST",
                    .path = fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases",
                                        options_.namespace_),
                    .body = lease.dump(),
                    .timeout = timeout});
    if (!created.ok()) return created.ToStatus();
    observed_ = json::parse(created.body, nullptr, false);
    observed_spec_ = observed_["spec"].dump();
    observed_unix_nanos_ = absl::ToUnixNanos(now);
    renewed_unix_nanos_ = absl::ToUnixNanos(now);
    leader_ = true;
    return absl::OkStatus();
  }
  if (!got.ok()) return got.ToStatus();
  json lease = json::parse(got.body, nullptr, /*allow_exceptions=*/false);
  if (!lease.is_object() || !lease.contains("spec")) {
    return absl::DataLossError(fmt::format("{}: not a Lease", LeasePath()));
  }
  const json& spec = lease["spec"];
  if (spec.dump() != observed_spec_) {
    observed_spec_ = spec.dump();
    observed_unix_nanos_ = absl::ToUnixNanos(now);
  }
  observed_ = lease;
  std::string holder = spec.value("holderIdentity", "");
  int64_t duration = spec.value("leaseDurationSeconds", int64_t{0});
  if (!holder.empty() && holder != options_.identity &&
      ObservedTime() + absl::Seconds(duration) > now) {
    leader_ = false;
    return absl::UnavailableError(
        fmt::format("the lease is held by {} and has not yet expired", holder));
  }
  bool new_holder = holder != options_.identity;
  int transitions = spec.value("leaseTransitions", 0) + (new_holder ? 1 : 0);
  lease["spec"] = LeaseSpec(now, new_holder, transitions);
  HttpResponse put =
      http_.Call({.method = "PUT", .path = LeasePath(), .body = lease.dump(), .timeout = timeout});
  if (!put.ok()) {  // 409: somebody else updated it first.
    if (new_holder) leader_ = false;
    return put.ToStatus();
  }
  observed_ = json::parse(put.body, nullptr, false);
  observed_spec_ = observed_["spec"].dump();
  observed_unix_nanos_ = absl::ToUnixNanos(now);
  renewed_unix_nanos_ = absl::ToUnixNanos(now);
  leader_ = true;
  return absl::OkStatus();
}

bool LeaderElector::Acquire(const std::function<bool()>& stop) {
  absl::BitGen rng;
  KLOG(0, "Attempting to acquire leader lease",
       {"lease", options_.namespace_ + "/" + options_.name});
  while (!stop()) {
    absl::Status st = TryAcquireOrRenew(absl::Now());
    if (st.ok()) {
      KLOG(0, "Successfully acquired lease", {"lease", options_.namespace_ + "/" + options_.name});
      return true;
    }
    KLOG(4, "Failed to acquire lease", {"err", std::string(AsStd(st.message()))});
    // client-go waits retryPeriod with a jitter factor of 1.2.
    absl::Time until = absl::Now() + options_.retry_period * (1 + absl::Uniform(rng, 0.0, 1.2));
    while (absl::Now() < until && !stop()) absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

void LeaderElector::KeepRenewing(std::function<void()> on_lost) {
  renewer_ = std::thread([this, on_lost = std::move(on_lost)] {
    NameThisThread("ksched-lease");
    auto stopping = [this] {
      absl::MutexLock lock(&mu_);
      return stopping_;
    };
    while (!stopping()) {
      absl::Time until = absl::Now() + options_.retry_period;
      while (absl::Now() < until && !stopping()) absl::SleepFor(absl::Milliseconds(50));
      if (stopping()) return;
      absl::Status st = TryAcquireOrRenew(absl::Now());
      if (st.ok()) continue;
      KLOG(2, "Failed to renew lease", {"err", std::string(AsStd(st.message()))});
      if (!Leading().ok()) {
        leader_ = false;
        on_lost();
        return;
      }
    }
  });
}

void LeaderElector::Release() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (renewer_.joinable()) renewer_.join();
  if (!leader_ || !observed_.is_object()) return;
  json lease = observed_;
  absl::Time now = absl::Now();
  lease["spec"] = {{"leaseDurationSeconds", 1},
                   {"renewTime", MicroTime(now)},
                   {"acquireTime", MicroTime(now)},
                   {"leaseTransitions", observed_["spec"].value("leaseTransitions", 0)}};
  HttpResponse put = http_.Call({.method = "PUT", .path = LeasePath(), .body = lease.dump()});
  if (!put.ok()) {
    KLOG_ERROR("Failed to release lock", {"err", std::string(AsStd(put.ToStatus().message()))});
  }
  leader_ = false;
}

absl::Status LeaderElector::Leading() const {
  if (!IsLeader()) return absl::FailedPreconditionError("not the leader");
  const absl::Duration since = absl::Now() - absl::FromUnixNanos(renewed_unix_nanos_.load());
  if (since >= options_.renew_deadline) {
    return absl::FailedPreconditionError(fmt::format(
        "not the leader any more: the lease was last renewed {} ago", absl::FormatDuration(since)));
  }
  return absl::OkStatus();
}

absl::Status LeaderElector::Check(absl::Duration tolerance) const {
  if (!IsLeader()) return absl::OkStatus();
  if (absl::Now() - ObservedTime() > options_.lease_duration + tolerance) {
    return absl::UnavailableError(
        fmt::format("failed election to renew leadership on lease {}", options_.name));
  }
  return absl::OkStatus();
}

}  // namespace ksched::client
