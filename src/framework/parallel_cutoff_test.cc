#include "src/framework/parallel_cutoff.h"

#include <gtest/gtest.h>

#include <thread>

namespace ksched::framework {
namespace {

using std::chrono::microseconds;

TEST(ParallelCutoffTest, TheFirstLoopRunsOnTheCallingThread) {
  ParallelCutoff cutoff;
  EXPECT_FALSE(cutoff.Parallel(1'000'000));
}

TEST(ParallelCutoffTest, CheapItemsStayOnOneThreadAndCostlyOnesAreShared) {
  ParallelCutoff cheap;
  // 1000 items in about 10 µs of one thread: 0.01 µs each, far below the cutoff even at 10000.
  cheap.Record(1000, microseconds(10));
  EXPECT_FALSE(cheap.Parallel(10'000));

  ParallelCutoff costly;
  // 100 items in 1 ms: 10 µs each, so 100 of them hold 1 ms of work; 10 hold 100 µs.
  costly.Record(100, microseconds(1000));
  EXPECT_TRUE(costly.Parallel(100));
  EXPECT_FALSE(costly.Parallel(1));
}

TEST(ParallelCutoffTest, TheEstimateFollowsTheWorkWhenItGetsCheaper) {
  ParallelCutoff cutoff;
  cutoff.Record(100, microseconds(2000));  // 20 µs an item.
  ASSERT_TRUE(cutoff.Parallel(100));
  for (int i = 0; i < 40; ++i) cutoff.Record(100'000, microseconds(1));
  EXPECT_FALSE(cutoff.Parallel(100));
}

// A loop's cost is the time of its runs, summed over the threads they ran on: two runs of 50
// items, each 1 ms on its own thread, are 2 ms of work, 20 µs an item. A worker that never came
// adds nothing (the loop's wall time times its threads would count it).
TEST(ParallelCutoffTest, BusyCountsTheTimeOfEachRunWhereItRan) {
  ParallelCutoff::Busy busy;
  auto run = [](size_t begin, size_t end) {
    std::this_thread::sleep_for(microseconds(20) * (end - begin));
  };
  std::thread other([&] { busy.Run(run, 0, 50); });
  busy.Run(run, 50, 100);
  other.join();
  EXPECT_GE(busy.total(), microseconds(2000));
  ParallelCutoff cutoff;
  cutoff.Record(100, busy.total());
  EXPECT_TRUE(cutoff.Parallel(10));  // 200 µs or more.

  ParallelCutoff::Busy idle;
  EXPECT_EQ(idle.total(), microseconds(0));
}

}  // namespace
}  // namespace ksched::framework
