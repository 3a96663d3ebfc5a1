// Score normalisation shared by the in-tree score plugins (upstream's
// pkg/scheduler/framework/plugins/helper/normalize_score.go).
//
//   Status NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) override {
//     helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/true, scores);
//     return Status();
//   }
#pragma once

#include <cstdint>

#include "ksched/plugin.h"

namespace ksched::plugins::helper {

// Rescales `scores` in place so that the highest becomes `max_priority` (integer division, as
// upstream: score = max_priority * score / max). With `reverse`, each score becomes
// max_priority - score afterwards. When every score is <= 0 the scores are left unchanged, or
// with `reverse` all set to `max_priority`.
void DefaultNormalizeScore(int64_t max_priority, bool reverse, NodeScoreList& scores);

}  // namespace ksched::plugins::helper
