// Clock: the time source of the queue, the cache and the Permit waits, so that tests and
// `ksched simulate` can move time forward without waiting.
//
//   FakeClock clock(absl::UnixEpoch());
//   clock.Advance(absl::Seconds(10));  // every backoff of up to 10s has now expired
#pragma once

#include <algorithm>
#include <atomic>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ksched {

// `t` truncated to its whole second, as Go's Time.Truncate(time.Second).
inline absl::Time TruncateToSecond(absl::Time t) {
  return absl::FromUnixSeconds(absl::ToUnixSeconds(t));
}

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;

  // absl::Mutex::AwaitWithDeadline on this clock's time: waits until `cond` holds or Now() reaches
  // `deadline`, and returns whether `cond` holds. The caller holds `mu`; it is released while
  // waiting and held whenever `cond` is evaluated.
  //
  // This default is for clocks that move without notice (FakeClock): it looks at the clock every
  // millisecond. It also gives up once as much real time has passed as `deadline` was ahead when
  // the wait began, so that a program whose only thread is the waiter (`ksched simulate`, where
  // nothing advances the clock meanwhile) cannot hang.
  virtual bool AwaitWithDeadline(absl::Mutex& mu, const absl::Condition& cond,
                                 absl::Time deadline) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const absl::Time real_deadline = absl::Now() + (deadline - Now());
    while (!cond.Eval()) {
      if (Now() >= deadline || absl::Now() >= real_deadline) return false;
      (void)mu.AwaitWithDeadline(cond,
                                 std::min(absl::Now() + absl::Milliseconds(1), real_deadline));
    }
    return true;
  }
};

class RealClock : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  bool AwaitWithDeadline(absl::Mutex& mu, const absl::Condition& cond,
                         absl::Time deadline) const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return mu.AwaitWithDeadline(cond, deadline);
  }
};

// Thread-safe; time moves only through Advance / Set. Its waits (Clock::AwaitWithDeadline) also
// end in real time, after as long as they were given.
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
