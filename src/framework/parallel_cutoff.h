// ParallelCutoff: whether a loop over nodes is worth handing to oneTBB's workers. Waking a worker
// and its spinning afterwards cost tens of microseconds of CPU per loop, more than filtering or
// scoring a few hundred nodes through the default plugins does (about 0.1 µs a node): run in
// parallel, such a cycle used 70% more CPU for 17% more pods/s in process, and in `ksched run`,
// where the API server sets the pace, none. So a loop runs in parallel only when the work it is
// expected to hold, at the cost per node seen in recent loops, is large (pod affinity, spreading
// over many nodes, plugins of one's own that cost more).
//
//   ParallelCutoff cutoff;                       // one per loop site, used by one thread
//   ParallelCutoff::Busy busy;                   // one per loop
//   auto run = [&](size_t b, size_t e) { busy.Run(body, b, e); };
//   if (cutoff.Parallel(n)) tbb::parallel_for(..., run); else run(0, n);
//   cutoff.Record(n, busy.total());
//
// The cost is the time each run of items took where it ran, summed: not the loop's wall time
// times the threads, which on a busy machine counts a worker that never came (another thread had
// the core) as busy, makes the next loops look costlier, and keeps them parallel.
//
// Not thread-safe, but for Busy::Run: each instance belongs to the thread that runs its loop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ksched::framework {

class ParallelCutoff {
 public:
  using Clock = std::chrono::steady_clock;
  // The least work, in nanoseconds of one thread, that is shared among the workers.
  static constexpr double kMinParallelNs = 200'000;

  // Whether `items` items make enough work to share, by the cost per item seen so far (none at
  // first: the first loop runs on the calling thread and measures).
  bool Parallel(size_t items) const {
    return static_cast<double>(items) * ns_per_item_ >= kMinParallelNs;
  }

  // The time a loop's runs took, each timed on the thread it ran on.
  class Busy {
   public:
    // Runs body(begin, end), and counts its time.
    template <typename Body>
    void Run(const Body& body, size_t begin, size_t end) {
      const Clock::time_point start = Clock::now();
      body(begin, end);
      ns_.fetch_add((Clock::now() - start).count(), std::memory_order_relaxed);
    }
    std::chrono::nanoseconds total() const {
      return std::chrono::nanoseconds(ns_.load(std::memory_order_relaxed));
    }

   private:
    std::atomic<int64_t> ns_{0};
  };

  // Records that a loop over `items` items took `busy` of its threads' time. The estimate follows
  // the last few loops.
  void Record(size_t items, std::chrono::nanoseconds busy) {
    if (items == 0) return;
    const double per_item = static_cast<double>(busy.count()) / static_cast<double>(items);
    ns_per_item_ = ns_per_item_ == 0 ? per_item : 0.75 * ns_per_item_ + 0.25 * per_item;
  }

 private:
  double ns_per_item_ = 0;
};

}  // namespace ksched::framework
