#include "ksched/cycle_state.h"

#include <algorithm>

namespace ksched {

void CycleState::WriteData(std::string_view key, std::unique_ptr<StateData> value) {
  for (auto& [k, v] : data_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  data_.emplace_back(key, std::move(value));
}

const StateData* CycleState::ReadData(std::string_view key) const {
  // Keys are usually the same literal: compare addresses before contents.
  for (const auto& [k, v] : data_) {
    if (k.data() == key.data() && k.size() == key.size()) return v.get();
  }
  for (const auto& [k, v] : data_) {
    if (k == key) return v.get();
  }
  return nullptr;
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto out = std::make_unique<CycleState>();
  for (const auto& [k, v] : data_) out->data_.emplace_back(k, v ? v->Clone() : nullptr);
  out->skip_filter_plugins_ = skip_filter_plugins_;
  out->skip_score_plugins_ = skip_score_plugins_;
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
