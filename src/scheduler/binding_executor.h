// BindingExecutor: runs binding cycles off the scheduling thread, as kube-scheduler runs each one
// in a goroutine of its own, so that the scheduling loop never waits on the network.
//
//   BindingExecutor binds(64);
//   binds.Run([&] { RunBindingCycle(...); });  // returns at once
//   binds.Wait();                              // every cycle handed over has finished
//
//   binds.Begin();                    // a cycle that an asynchronous answer finishes
//   ... binds.End();                  // when it has
//
// A binding cycle blocks: on Permit's wait and on the API server's answer to the bind. oneTBB's
// workers are as many as the cores and run Filter and Score, so blocking cycles get threads of
// their own: up to `max_threads`, started when more cycles are queued than threads are idle, and
// kept until the executor goes. Past that, cycles wait in order: unbounded, thousands of threads
// (and as many requests in the HTTP client at once) piled up when the API server was the
// bottleneck. Hand-written: neither abseil nor oneTBB has an executor for blocking work.
//
// With max_threads 0 every cycle runs inline, inside Run: `ksched simulate` binds at once on the
// embedded cluster, through the same path.
//
// Thread safety: Run and Wait from any thread. The destructor waits for every cycle.
#pragma once

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace ksched::scheduler {

class BindingExecutor {
 public:
  explicit BindingExecutor(size_t max_threads) : max_threads_(max_threads) {}
  ~BindingExecutor();
  BindingExecutor(const BindingExecutor&) = delete;
  BindingExecutor& operator=(const BindingExecutor&) = delete;

  void Run(std::function<void()> cycle);
  // A cycle that runs elsewhere (a bind on its way, whose answer finishes it): Wait waits for it
  // too, until End.
  void Begin();
  void End();
  // Blocks until no cycle is queued or running.
  void Wait();

 private:
  // A thread's loop: runs queued cycles until the executor stops.
  void Work();

  const size_t max_threads_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queued_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
  size_t idle_ ABSL_GUARDED_BY(mu_) = 0;  // Threads waiting for a cycle.
  size_t busy_ ABSL_GUARDED_BY(mu_) = 0;  // Threads running one, and cycles begun elsewhere.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ksched::scheduler
