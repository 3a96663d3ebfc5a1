#include "src/plugins/node_resources/balanced_allocation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "src/plugins/helper/signers.h"
#include "src/plugins/node_resources/fit.h"

namespace ksched::plugins::node_resources {
namespace {

struct PreScoreState : StateData {
  std::vector<int64_t> pod_requests;  // Indexed like the configured resources.
  std::shared_ptr<const helper::DraResourceCounter> dra;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};
constexpr StateKey<PreScoreState> kPreScoreStateKey{"PreScoreNodeResourcesBalancedAllocation",
                                                    StateScope::kSchedulingCycle};

// int((1 - std) * MaxNodeScore) over the fractions of the resources with allocatable != 0, in
// float64 as upstream's balancedResourceScore.
int64_t BalanceScore(std::span<const int64_t> used, std::span<const int64_t> allocatable) {
  // The fraction of each resource in use (capped at 1); resources the node lacks are left out.
  constexpr size_t kOnStack = 8;
  std::array<double, kOnStack> stack_buf;
  std::vector<double> heap_buf;
  double* fractions = stack_buf.data();
  if (used.size() > kOnStack) {
    heap_buf.resize(used.size());
    fractions = heap_buf.data();
  }
  size_t count = 0;
  double total = 0;
  for (size_t i = 0; i < used.size(); ++i) {
    if (allocatable[i] == 0) continue;
    fractions[count] =
        std::min(1.0, static_cast<double>(used[i]) / static_cast<double>(allocatable[i]));
    total += fractions[count++];
  }
  double std_dev = 0;
  if (count == 2) {
    std_dev = std::abs((fractions[0] - fractions[1]) / 2);
  } else if (count > 2) {
    const double mean = total / static_cast<double>(count);
    double sum = 0;
    for (size_t i = 0; i < count; ++i) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(count));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

}  // namespace

int64_t BalancedResourceScorer(std::span<const int64_t> requested,
                               std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable) {
  int64_t with_pod = 0, without_pod = 0;
  if (allocatable.size() == 2 && allocatable[0] != 0 && allocatable[1] != 0) {
    // The usual two resources, inline: the same float64 steps as BalanceScore's count == 2.
    auto balance = [&](std::span<const int64_t> used) {
      const double f0 =
          std::min(1.0, static_cast<double>(used[0]) / static_cast<double>(allocatable[0]));
      const double f1 =
          std::min(1.0, static_cast<double>(used[1]) / static_cast<double>(allocatable[1]));
      return static_cast<int64_t>((1 - std::abs((f0 - f1) / 2)) *
                                  static_cast<double>(kMaxNodeScore));
    };
    with_pod = balance(requested);
    without_pod = balance(allocated);
  } else {
    with_pod = BalanceScore(requested, allocatable);
    without_pod = BalanceScore(allocated, allocatable);
  }
  return kMaxNodeScore / 2 + (kMaxNodeScore / 2 + with_pod - without_pod) / 2;
}

BalancedAllocation::BalancedAllocation(BalancedAllocationArgs args, const DraLister* dra)
    : scorer_(std::move(args.resources), {.use_requested = true, .pod_level_resources = true},
              &BalancedResourceScorer),
      dra_(dra) {}

Status BalancedAllocation::PreScore(CycleState& state, const api::Pod& pod,
                                    const std::vector<const NodeInfo*>&) {
  auto s = std::make_unique<PreScoreState>();
  s->pod_requests = scorer_.PodRequests(pod);
  if (IsBestEffort(s->pod_requests)) return Status::Skip();
  s->dra = scorer_.DraCounter(dra_, state);
  state.Write(kPreScoreStateKey, std::move(s));
  return Status();
}

Status BalancedAllocation::Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                                 int64_t* score) {
  if (const PreScoreState* s = state.Read(kPreScoreStateKey)) {
    return scorer_.Score(node, s->pod_requests, score, s->dra.get());
  }
  // PreScore did not run: recompute; a best-effort pod scores 0, as upstream.
  std::vector<int64_t> requests = scorer_.PodRequests(pod);
  if (IsBestEffort(requests)) {
    *score = 0;
    return Status();
  }
  return scorer_.Score(node, requests, score);
}

Status BalancedAllocation::ScoreNodes(const CycleState& state, const api::Pod& pod,
                                      std::span<NodeScore> scores) {
  if (const PreScoreState* s = state.Read(kPreScoreStateKey)) {
    return scorer_.ScoreNodes(scores, s->pod_requests, s->dra.get());
  }
  return ScorePlugin::ScoreNodes(state, pod, scores);
}

absl::StatusOr<std::unique_ptr<Plugin>> NewBalancedAllocation(const BalancedAllocationArgs& args,
                                                              Handle& handle) {
  return std::make_unique<BalancedAllocation>(args, &handle.dra());
}

std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const BalancedAllocationArgs&, Handle&)>
MakeBalancedAllocationFactory(bool dra_extended_resource) {
  return [dra_extended_resource](const BalancedAllocationArgs& args,
                                 Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<BalancedAllocation>(args,
                                                dra_extended_resource ? &handle.dra() : nullptr);
  };
}

Status BalancedAllocation::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kResourcesSigner, SignRequests(pod)});
  return Status();
}

}  // namespace ksched::plugins::node_resources
