// The outcome of one run of upstream's e2e tests on the rig (make e2e): every test the run was
// asked for, read from Ginkgo's JSON report, with the reason of each that did not pass, and the
// summary line and tables written from it.
//
//   auto results = ReadGinkgoReport(text, "\\[sig-scheduling\\]", RigSkips());
//   std::cout << Summary(*results) << "\n";  // "27 passed, 0 failed, 3 skipped"
//
// Pure functions of their arguments; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::e2e {

// Tests every run on the rig leaves out, and why. The reason must be true of the rig (no container
// runtime, a feature gate that is off in the release), never of the scheduler under test.
struct SkipRule {
  std::string pattern;  // A regular expression on the test's full name, as --ginkgo.skip takes.
  std::string reason;
};
const std::vector<SkipRule>& RigSkips();
// The pattern of RigSkips' rule for the tests of off-by-default feature gates.
inline constexpr char kOffByDefault[] = R"(\[Feature:OffByDefault\])";
// The rules' patterns as one --ginkgo.skip expression ("a|b"), without the rule whose pattern is
// `except`.
std::string SkipExpression(const std::vector<SkipRule>& rules, std::string_view except = "");

enum class Outcome { kPassed, kFailed, kSkipped };
std::string_view OutcomeName(Outcome o);  // "passed", "failed", "skipped"

struct SpecResult {
  std::string
      name;  // The full name: "[sig-scheduling] LimitRange should create ... [Conformance]".
  Outcome outcome = Outcome::kPassed;
  double seconds = 0;
  // Why it failed ("[BeforeEach] predicates.go:1041: Timed out after 120.002s.") or was skipped.
  std::string reason;
};

// The tests of Ginkgo's --json-report that `focus` (an ECMAScript regular expression, which reads
// upstream's focus expressions as RE2 does) selects, in the report's order. A test Ginkgo left out
// by a rule of `skips` gets the rule's reason; one that skipped itself (e2eskipper), its message.
// A failure outside any test (a BeforeSuite) is a failed result of its own. The error names what
// is missing from a report of an unexpected shape.
absl::StatusOr<std::vector<SpecResult>> ReadGinkgoReport(std::string_view json,
                                                         std::string_view focus,
                                                         const std::vector<SkipRule>& skips);

// "N passed, N failed, N skipped".
std::string Summary(const std::vector<SpecResult>& results);

// A Markdown page: `title`, the summary, and a table of every test with its outcome, its time and
// its reason.
std::string MarkdownReport(std::string_view title, const std::vector<SpecResult>& results);

// The results as JSON ([{name, outcome, seconds, reason}]) and back, for the comparison of two
// runs.
nlohmann::json ToJson(const std::vector<SpecResult>& results);
absl::StatusOr<std::vector<SpecResult>> FromJson(const nlohmann::json& j);

// A Markdown table of two runs' outcomes side by side (test, `left_name`, `right_name`), every
// test of either in the order of `left` then the others of `right`; a test one run did not have
// shows "-". A test that did not pass shows its reason below the table.
std::string ComparisonTable(std::string_view left_name, const std::vector<SpecResult>& left,
                            std::string_view right_name, const std::vector<SpecResult>& right);

}  // namespace ksched::e2e
