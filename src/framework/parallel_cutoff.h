// ParallelCutoff: whether a loop over nodes is worth handing to oneTBB's workers. Waking a worker
// and its spinning afterwards cost tens of microseconds of CPU per loop, more than filtering or
// scoring a few hundred nodes through the default plugins does (about 0.1 µs a node): run in
// parallel, such a cycle used 70% more CPU for 17% more pods/s in process, and in `ksched run`,
// where the API server sets the pace, none. So a loop runs in parallel only when the work it is
// expected to hold, at the cost per node seen in recent loops, is large (pod affinity, spreading
// over many nodes, plugins of one's own that cost more).
//
//   ParallelCutoff cutoff;                       // one per loop site, used by one thread
//   const auto t0 = ParallelCutoff::Clock::now();
//   const bool parallel = cutoff.Parallel(n);
//   if (parallel) tbb::parallel_for(...); else Run(0, n);
//   cutoff.Record(n, t0, parallel, fw.concurrency());
//
// Not thread-safe: each instance belongs to the thread that runs its loop.
#pragma once

#include <chrono>
#include <cstddef>

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

  // Records that a loop over `items` items started at `start`; a parallel one is counted as if
  // each of the `concurrency` threads it ran on was busy throughout. The estimate follows the
  // last few loops.
  void Record(size_t items, Clock::time_point start, bool parallel, int concurrency) {
    if (items == 0) return;
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (parallel) ns *= concurrency;
    const double per_item = ns / static_cast<double>(items);
    ns_per_item_ = ns_per_item_ == 0 ? per_item : 0.75 * ns_per_item_ + 0.25 * per_item;
  }

 private:
  double ns_per_item_ = 0;
};

}  // namespace ksched::framework
