// Clock: the time source of the queue and the cache, so that tests and `ksched simulate` can move
// time forward without waiting.
//
//   FakeClock clock(absl::UnixEpoch());
//   clock.Advance(absl::Seconds(10));  // every backoff of up to 10s has now expired
#pragma once

#include <atomic>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ksched {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

class RealClock : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
};

// Thread-safe; time moves only through Advance / Set.
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch()) : nanos_(absl::ToUnixNanos(start)) {}
  absl::Time Now() const override { return absl::FromUnixNanos(nanos_.load()); }
  void Advance(absl::Duration d) { nanos_ += absl::ToInt64Nanoseconds(d); }
  void Set(absl::Time t) { nanos_ = absl::ToUnixNanos(t); }

 private:
  std::atomic<int64_t> nanos_;
};

}  // namespace ksched
