// TokenBucket: the client-side rate limit of requests to the API server (clientConnection.qps
// and burst), as client-go's flowcontrol.NewTokenBucketRateLimiter.
//
//   TokenBucket bucket(/*qps=*/50, /*burst=*/100);
//   absl::Time go_at = bucket.Reserve(absl::Now());  // the request waits until then
//
// Thread safety: Reserve may be called from any thread.
#pragma once

#include <algorithm>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ksched::client {

// client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter), as reservations: each request
// is given the time at which it may go. No Debian library offers one.
class TokenBucket {
 public:
  TokenBucket(float qps, int burst) : qps_(qps), burst_(std::max(burst, 1)), tokens_(burst_) {}

  // Takes a token, and returns when the request that takes it may go: `now`, or later when the
  // bucket is empty.
  absl::Time Reserve(absl::Time now) {
    if (qps_ <= 0) return now;  // A negative qps turns the limit off, as in client-go.
    absl::MutexLock lock(&mu_);
    tokens_ = std::min<double>(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
    last_ = now;
    tokens_ -= 1;
    if (tokens_ >= 0) return now;
    return now + absl::Seconds(-tokens_ / qps_);
  }

 private:
  const double qps_;
  const int burst_;
  absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::Now();
};

}  // namespace ksched::client
