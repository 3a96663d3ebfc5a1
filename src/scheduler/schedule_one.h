// The scheduling cycle of one pod and its binding cycle (upstream's schedule_one.go) are
// Scheduler's methods, in schedule_one.cc; this header holds what the cycle computes on its own.
#pragma once

#include <cstdint>

namespace ksched::scheduler {

// How many feasible nodes to find before scoring (upstream's numFeasibleNodesToFind): every node
// below 100, else `percentage` of them (adaptive 50 - n/125, at least 5%, when 0), at least 100.
int32_t NumFeasibleNodesToFind(int32_t percentage, int32_t num_all_nodes);

}  // namespace ksched::scheduler
