#include "src/scheduler/binding_executor.h"

#include <utility>

#include "src/base/thread_name.h"

namespace ksched::scheduler {

BindingExecutor::~BindingExecutor() {
  Wait();
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
}

void BindingExecutor::Run(std::function<void()> cycle) {
  if (max_threads_ == 0) {
    cycle();
    return;
  }
  absl::MutexLock lock(&mu_);
  queued_.push_back(std::move(cycle));
  if (queued_.size() > idle_ && threads_.size() < max_threads_) {
    threads_.emplace_back([this] { Work(); });
  }
}

void BindingExecutor::Begin() {
  absl::MutexLock lock(&mu_);
  ++busy_;
}

void BindingExecutor::End() {
  absl::MutexLock lock(&mu_);
  --busy_;
}

void BindingExecutor::Wait() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](BindingExecutor* e)
           ABSL_EXCLUSIVE_LOCKS_REQUIRED(e->mu_) { return e->queued_.empty() && e->busy_ == 0; },
      this));
}

void BindingExecutor::Work() {
  NameThisThread("ksched-bind");
  absl::MutexLock lock(&mu_);
  for (;;) {
    ++idle_;
    mu_.Await(absl::Condition(
        +[](BindingExecutor* e)
             ABSL_EXCLUSIVE_LOCKS_REQUIRED(e->mu_) { return e->stopping_ || !e->queued_.empty(); },
        this));
    --idle_;
    if (queued_.empty()) return;  // Stopping.
    std::function<void()> cycle = std::move(queued_.front());
    queued_.pop_front();
    ++busy_;
    mu_.Unlock();
    cycle();
    mu_.Lock();
    --busy_;
  }
}

}  // namespace ksched::scheduler
