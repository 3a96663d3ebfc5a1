#include "src/scheduler/binding_executor.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace ksched::scheduler {
namespace {

TEST(BindingExecutorTest, WithoutThreadsEveryCycleRunsInline) {
  BindingExecutor inline_executor(0);
  std::vector<int> ran;
  const std::thread::id caller = std::this_thread::get_id();
  for (int i = 0; i < 3; ++i) {
    inline_executor.Run([&, i] {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      ran.push_back(i);
    });
    EXPECT_EQ(ran.size(), static_cast<size_t>(i + 1));  // Done before Run returned.
  }
}

// Cycles that block (on a bind's answer) hold their thread; the next ones wait in order for one.
TEST(BindingExecutorTest, AtMostMaxThreadsCyclesRunAtOnceAndWaitSeesThemAllEnd) {
  BindingExecutor executor(2);
  absl::Notification release;
  std::atomic<int> running{0}, most{0}, done{0};
  for (int i = 0; i < 5; ++i) {
    executor.Run([&] {
      int now = ++running;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      release.WaitForNotification();
      --running;
      ++done;
    });
  }
  while (running.load() < 2) std::this_thread::yield();
  EXPECT_EQ(done.load(), 0);  // Run never waits for a cycle.
  release.Notify();
  executor.Wait();
  EXPECT_EQ(done.load(), 5);
  EXPECT_EQ(most.load(), 2);
}

TEST(BindingExecutorTest, ThreadsAreReusedAfterWait) {
  BindingExecutor executor(4);
  std::atomic<int> done{0};
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) executor.Run([&] { ++done; });
    executor.Wait();
    EXPECT_EQ(done.load(), 4 * (round + 1));
  }
}

}  // namespace
}  // namespace ksched::scheduler
