#include "src/framework/batch.h"

#include <algorithm>
#include <utility>

#include "src/base/log.h"
#include "src/framework/framework.h"

namespace ksched::framework {
namespace {

const RealClock kBatchRealClock;

// Upstream's reasons (metrics.BatchFlush*) and results (metrics.BatchAttempt*).
constexpr char kPodSkipped[] = "pod_skipped";
constexpr char kPodNominated[] = "pod_nominated";
constexpr char kPodIncompatible[] = "pod_incompatible";
constexpr char kExpired[] = "expired";
constexpr char kNodeMissing[] = "node_missing";
constexpr char kFilterError[] = "filter_error";
constexpr char kPreScoreError[] = "prescore_error";
constexpr char kRescoreError[] = "rescore_error";
constexpr char kNormalizeError[] = "normalize_error";
constexpr char kEmptyList[] = "empty_list";
constexpr char kPodNotBatchable[] = "pod_not_batchable";

// The batch's latency histograms.
metrics::HistogramFamily& GetNodeHintSeconds(metrics::SchedulerMetrics& m) {
  return m.get_node_hint_duration;
}
metrics::HistogramFamily& StoreResultsSeconds(metrics::SchedulerMetrics& m) {
  return m.store_schedule_results_duration;
}
metrics::HistogramFamily& RescoreSeconds(metrics::SchedulerMetrics& m) {
  return m.batch_rescore_duration;
}

}  // namespace

OpportunisticBatch::OpportunisticBatch(Framework& fw, const Clock* clock)
    : fw_(fw), clock_(clock != nullptr ? *clock : kBatchRealClock) {}

std::string OpportunisticBatch::GetNodeHint(CycleState& state, const api::Pod& pod,
                                            const std::optional<std::string>& signature,
                                            int64_t cycle) {
  const auto start = std::chrono::steady_clock::now();
  if (!Compatible(pod, signature, cycle) || !Refresh(state, pod)) {
    CountAttempt("no_hint");
    Observe(GetNodeHintSeconds, start, "no_hint");
    return "";
  }
  Observe(GetNodeHintSeconds, start, "hint");
  std::string hint = std::move(batch_->sorted.back().node);
  batch_->sorted.pop_back();
  KLOG(3, "OpportunisticBatch provided node hint", {"profile", fw_.profile_name()},
       {"pod", pod.metadata.namespace_ + "/" + pod.metadata.name}, {"cycleCount", cycle},
       {"hint", hint}, {"remainingNodes", batch_->sorted.size()});
  return hint;
}

void OpportunisticBatch::StoreScheduleResults(const std::optional<std::string>& signature,
                                              std::string_view hinted, std::string_view chosen,
                                              const ScoreTable* scores, size_t chosen_index,
                                              int64_t cycle, const api::Pod& pod) {
  const Timer timer{*this, StoreResultsSeconds};
  last_cycle_ = cycle;
  last_chosen_ = std::string(chosen);
  if (!hinted.empty() && hinted == chosen) {  // The batch goes on, one node shorter.
    CountAttempt("hint_used");
    return;
  }
  if (!hinted.empty()) CountAttempt("hint_not_used");
  const size_t others = scores != nullptr ? scores->nodes.size() - 1 : 0;
  if (!signature || others == 0) {
    Unusable(others == 0 ? kEmptyList : kPodNotBatchable);
    batch_.reset();
    return;
  }
  batch_ = Batch{.pod = pod.metadata.namespace_ + "/" + pod.metadata.name,
                 .signature = *signature,
                 .plugins = {scores->plugins.begin(), scores->plugins.end()},
                 .sorted = Sorted(*scores, chosen_index),
                 .created = clock_.Now()};
}

bool OpportunisticBatch::Compatible(const api::Pod& pod,
                                    const std::optional<std::string>& signature, int64_t cycle) {
  if (!batch_ || batch_->sorted.empty()) return false;
  // Another pod was popped in between (of another profile, or skipped).
  if (cycle != last_cycle_ + 1) return Unusable(kPodSkipped);
  if (!fw_.NominatedNodeOf(pod).empty()) return Unusable(kPodNominated);
  if (!signature || *signature != batch_->signature) return Unusable(kPodIncompatible);
  if (clock_.Now() > batch_->created + kMaxBatchAge) return Unusable(kExpired);
  return true;
}

bool OpportunisticBatch::Refresh(CycleState& state, const api::Pod& pod) {
  const NodeInfo* last = fw_.snapshot().Get(last_chosen_);
  if (last == nullptr) return Unusable(kNodeMissing);
  Status st = fw_.RunFilterPlugins(state, pod, *last);
  if (st.ok()) return Rescore(state, pod, *last);
  if (!st.IsRejected()) return Unusable(kFilterError);
  return true;  // The pod no longer fits there: the list is used as it is.
}

bool OpportunisticBatch::Rescore(CycleState& state, const api::Pod& pod, const NodeInfo& last) {
  const Timer timer{*this, RescoreSeconds};
  if (fw_.deps_.metrics != nullptr) {
    fw_.deps_.metrics->batch_rescore_attempts.With({fw_.profile_name()})->Inc();
  }
  ScoreTable table;
  for (const Candidate& c : batch_->sorted) {
    const NodeInfo* ni = fw_.snapshot().Get(c.node);
    if (ni == nullptr) return Unusable(kNodeMissing);
    table.nodes.push_back(ni);
  }
  table.nodes.push_back(&last);
  // PreScore sees every candidate; what it writes stays in a copy of the pod's state.
  std::unique_ptr<CycleState> rescore = state.Clone();
  if (!fw_.RunPreScorePlugins(*rescore, pod, table.nodes).ok()) {
    return Unusable(kPreScoreError);
  }
  std::vector<int64_t> fresh;
  if (!fw_.RunRawScorePlugins(*rescore, pod, last, &table.plugins, &fresh).ok()) {
    return Unusable(kRescoreError);
  }
  // The candidates' raw scores of the full cycle, by the plugins that score now (0 for one that
  // did not then), and the last node's fresh ones, are normalized together.
  const size_t n = table.nodes.size();
  table.raw.assign(table.plugins.size() * n, 0);
  for (size_t j = 0; j < table.plugins.size(); ++j) {
    auto at = std::find(batch_->plugins.begin(), batch_->plugins.end(), table.plugins[j]);
    if (at != batch_->plugins.end()) {
      const size_t k = static_cast<size_t>(at - batch_->plugins.begin());
      for (size_t i = 0; i + 1 < n; ++i) table.raw[j * n + i] = batch_->sorted[i].raw[k];
    }
    table.raw[j * n + n - 1] = fresh[j];
  }
  if (!fw_.NormalizeScores(*rescore, pod, &table).ok()) return Unusable(kNormalizeError);
  batch_->plugins.assign(table.plugins.begin(), table.plugins.end());
  batch_->sorted = Sorted(table, n);
  return true;
}

std::vector<OpportunisticBatch::Candidate> OpportunisticBatch::Sorted(const ScoreTable& scores,
                                                                      size_t skip) {
  const size_t n = scores.nodes.size();
  std::vector<Candidate> candidates;
  candidates.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (i == skip) continue;
    Candidate c{.node = scores.nodes[i]->name(), .total = scores.totals[i]};
    c.raw.reserve(scores.plugins.size());
    for (size_t j = 0; j < scores.plugins.size(); ++j) c.raw.push_back(scores.raw[j * n + i]);
    candidates.push_back(std::move(c));
  }
  // Best last; among equals, the earlier in the list is popped first (upstream's heap breaks
  // such ties in an order of its own: kube-scheduler picks any of them).
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.total > b.total; });
  std::reverse(candidates.begin(), candidates.end());
  return candidates;
}

bool OpportunisticBatch::Unusable(std::string_view reason) {
  if (fw_.deps_.metrics != nullptr) {
    fw_.deps_.metrics->batch_cache_flushed.With({fw_.profile_name(), reason})->Inc();
  }
  KLOG(4, "OpportunisticBatch found unusable state", {"profile", fw_.profile_name()},
       {"cycleCount", last_cycle_ + 1}, {"reason", reason});
  return false;
}

void OpportunisticBatch::Observe(Histogram family, std::chrono::steady_clock::time_point start,
                                 std::string_view hinted) {
  if (fw_.deps_.metrics == nullptr) return;
  metrics::HistogramFamily& f = family(*fw_.deps_.metrics);
  const double seconds = metrics::SecondsSince(start);
  if (hinted.empty()) {
    f.With({fw_.profile_name()})->Observe(seconds);
  } else {
    f.With({hinted, fw_.profile_name()})->Observe(seconds);
  }
}

void OpportunisticBatch::CountAttempt(std::string_view result) {
  if (fw_.deps_.metrics != nullptr) {
    fw_.deps_.metrics->batch_attempts.With({fw_.profile_name(), result})->Inc();
  }
}

}  // namespace ksched::framework
