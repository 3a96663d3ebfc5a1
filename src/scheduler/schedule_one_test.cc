#include "src/scheduler/schedule_one.h"

#include <gtest/gtest.h>

#include <vector>

namespace ksched::scheduler {
namespace {

struct SampleCase {
  int32_t percentage, nodes, want;
};

TEST(NumFeasibleNodesToFindTest, UpstreamTable) {
  for (const SampleCase& c : std::vector<SampleCase>{{0, 10, 10},
                                                     {0, 99, 99},
                                                     {0, 100, 100},
                                                     {0, 500, 230},   // 46%
                                                     {0, 1000, 420},  // 42%
                                                     {0, 5000, 500},  // 10%
                                                     {0, 6000, 300},  // floor of 5%
                                                     {0, 20000, 1000},
                                                     {30, 1000, 300},
                                                     {1, 1000, 100},  // at least 100
                                                     {100, 1000, 1000}}) {
    EXPECT_EQ(NumFeasibleNodesToFind(c.percentage, c.nodes), c.want)
        << c.percentage << "% of " << c.nodes;
  }
}

}  // namespace
}  // namespace ksched::scheduler
