#include "ksched/status.h"

#include <utility>

#include "absl/strings/str_join.h"

namespace ksched {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

Status::Status(Code code, std::vector<std::string> reasons) {
  if (code == Code::kSuccess && reasons.empty()) return;
  rep_ = std::make_shared<Rep>(Rep{code, std::move(reasons), {}, {}});
}

const std::vector<std::string>& Status::reasons() const {
  static const std::vector<std::string> kNone;
  return rep_ ? rep_->reasons : kNone;
}

std::string Status::Message() const { return absl::StrJoin(reasons(), ", "); }

Status Status::WithPlugin(std::string_view plugin) const& {
  if (rep_ != nullptr && rep_->plugin == plugin) return *this;  // Shared as it is.
  Status out;
  out.rep_ = std::make_shared<Rep>(Rep{code(), rep_ ? rep_->reasons : std::vector<std::string>{},
                                       std::string(plugin), std::string(explanation())});
  return out;
}

Status Status::WithExplanation(std::string explanation) && {
  if (rep_ == nullptr) return std::move(*this);
  if (rep_.use_count() != 1) rep_ = std::make_shared<Rep>(*rep_);
  rep_->explanation = std::move(explanation);
  return std::move(*this);
}

Status Status::WithPlugin(std::string_view plugin) && {
  if (rep_ == nullptr || rep_.use_count() != 1) return std::as_const(*this).WithPlugin(plugin);
  rep_->plugin = plugin;
  return std::move(*this);
}

}  // namespace ksched
