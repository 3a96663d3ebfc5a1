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
  cheap.Record(1000, ParallelCutoff::Clock::now() - microseconds(10), false, 2);
  EXPECT_FALSE(cheap.Parallel(10'000));

  ParallelCutoff costly;
  // 100 items in at least 1 ms: 10 µs each, so 100 of them hold 1 ms of work; 10 hold 100 µs.
  const auto start = ParallelCutoff::Clock::now();
  std::this_thread::sleep_for(microseconds(1000));
  costly.Record(100, start, false, 2);
  EXPECT_TRUE(costly.Parallel(100));
  EXPECT_FALSE(costly.Parallel(1));
}

TEST(ParallelCutoffTest, TheEstimateFollowsTheWorkWhenItGetsCheaper) {
  ParallelCutoff cutoff;
  const auto start = ParallelCutoff::Clock::now();
  std::this_thread::sleep_for(microseconds(2000));
  cutoff.Record(100, start, false, 2);  // 20 µs an item or more.
  ASSERT_TRUE(cutoff.Parallel(100));
  for (int i = 0; i < 40; ++i) {
    cutoff.Record(100'000, ParallelCutoff::Clock::now() - microseconds(1), false, 2);
  }
  EXPECT_FALSE(cutoff.Parallel(100));
}

}  // namespace
}  // namespace ksched::framework
