#include "ksched/cycle_state.h"

#include <algorithm>

namespace ksched {

void CycleState::WriteData(std::string_view key, StateScope scope,
                           std::unique_ptr<StateData> value) {
  for (Entry& e : data_) {
    if (e.key == key) {
      e.scope = scope;
      e.value = std::move(value);
      return;
    }
  }
  data_.push_back({key, scope, std::move(value)});
}

const StateData* CycleState::ReadData(std::string_view key) const {
  // Keys are usually the same literal: compare addresses before contents.
  for (const Entry& e : data_) {
    if (e.key.data() == key.data() && e.key.size() == key.size()) return e.value.get();
  }
  for (const Entry& e : data_) {
    if (e.key == key) return e.value.get();
  }
  return nullptr;
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto out = std::make_unique<CycleState>();
  for (const Entry& e : data_) {
    out->data_.push_back({e.key, e.scope, e.value ? e.value->Clone() : nullptr});
  }
  out->skip_filter_plugins_ = skip_filter_plugins_;
  out->skip_score_plugins_ = skip_score_plugins_;
  out->pod_group_cycle_ = pod_group_cycle_;
  return out;
}

bool CycleState::ShouldSkipFilter(std::string_view plugin) const {
  return std::find(skip_filter_plugins_.begin(), skip_filter_plugins_.end(), plugin) !=
         skip_filter_plugins_.end();
}

bool CycleState::ShouldSkipScore(std::string_view plugin) const {
  return std::find(skip_score_plugins_.begin(), skip_score_plugins_.end(), plugin) !=
         skip_score_plugins_.end();
}

}  // namespace ksched
