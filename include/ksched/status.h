// Status: the result of a plugin call, with kube-scheduler's codes.
//
//   if (!fits) return Status::Unschedulable("Insufficient cpu");
//   Status s = plugin->Filter(state, pod, node);
//   if (s.IsRejected()) diagnosis.Add(node.name(), s);
//
// A success Status holds no allocation; copies share their representation.
// Thread safety: a Status is immutable once built; WithPlugin returns a new one (or this one,
// when it names that plugin already).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ksched {

// The codes of kube-scheduler's framework.Status, in its order.
enum class Code {
  kSuccess,
  kError,                         // An unexpected failure; the pod is retried with backoff.
  kUnschedulable,                 // The pod does not fit; preemption may help.
  kUnschedulableAndUnresolvable,  // The pod does not fit and preemption cannot help.
  kWait,                          // Permit: the pod waits for approval.
  kSkip,                          // PreFilter/PreScore: skip this plugin's Filter/Score.
  kPending,                       // The pod waits for something outside the scheduler.
};

// "Success", "Unschedulable", ... as upstream prints the codes.
std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // Success.
  Status(Code code, std::vector<std::string> reasons);
  explicit Status(Code code) : Status(code, {}) {}

  static Status Error(std::string message) { return Status(Code::kError, {std::move(message)}); }
  static Status Unschedulable(std::string reason) {
    return Status(Code::kUnschedulable, {std::move(reason)});
  }
  static Status UnschedulableAndUnresolvable(std::string reason) {
    return Status(Code::kUnschedulableAndUnresolvable, {std::move(reason)});
  }
  static Status Skip() { return Status(Code::kSkip); }

  Code code() const { return rep_ ? rep_->code : Code::kSuccess; }
  bool ok() const { return code() == Code::kSuccess; }
  bool IsSkip() const { return code() == Code::kSkip; }
  bool IsWait() const { return code() == Code::kWait; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was rejected, not failed.
  bool IsRejected() const {
    Code c = code();
    return c == Code::kUnschedulable || c == Code::kUnschedulableAndUnresolvable ||
           c == Code::kPending;
  }

  // The reasons, one per failed check; empty for success.
  const std::vector<std::string>& reasons() const;
  // The reasons joined with ", ", as upstream's Status.Message().
  std::string Message() const;

  // More of why than the reasons say, for `simulate --explain` (CycleState::explain): not part of
  // Message(), so not of events and conditions, which say what upstream says. "" when unset.
  std::string_view explanation() const { return rep_ ? std::string_view(rep_->explanation) : ""; }
  // This status with `explanation` (on a success, it stays a success without one).
  Status WithExplanation(std::string explanation) &&;

  // The plugin that returned this status ("" when unset).
  std::string_view plugin() const { return rep_ ? std::string_view(rep_->plugin) : ""; }
  Status WithPlugin(std::string_view plugin) const&;
  // The same, reusing this status's representation when no copy shares it (a plugin's fresh
  // rejection): `return std::move(s).WithPlugin(p->Name());`.
  Status WithPlugin(std::string_view plugin) &&;

 private:
  struct Rep {
    Code code;
    std::vector<std::string> reasons;
    std::string plugin;
    std::string explanation;
  };
  std::shared_ptr<Rep> rep_;  // Not changed once shared.
};

}  // namespace ksched
