#include "test/e2e/report.h"

#include <regex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace ksched::e2e {
namespace {

using nlohmann::json;

// Ginkgo's states (types.SpecState) that are a failure.
bool IsFailure(std::string_view state) {
  return state == "failed" || state == "panicked" || state == "timedout" ||
         state == "interrupted" || state == "aborted";
}

// The first line of a failure message and where it happened: "[BeforeEach] predicates.go:1041:
// Timed out after 120.002s."
std::string FailureReason(const json& failure) {
  std::string message = failure.value("Message", "");
  std::string first(absl::StripAsciiWhitespace(message.substr(0, message.find('\n'))));
  const json& where = failure.value("Location", json::object());
  std::string file = where.value("FileName", "");
  file = file.substr(file.rfind('/') + 1);
  std::string node = failure.value("FailureNodeType", "");
  std::string at;
  if (!node.empty() && node != "It") at = fmt::format("[{}] ", node);
  if (!file.empty()) at += fmt::format("{}:{}: ", file, where.value("LineNumber", 0));
  return at + first;
}

// A field holding a list of strings, or none: Ginkgo writes null for an empty list.
std::vector<std::string> Strings(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return {};
  return it->get<std::vector<std::string>>();
}

// A Markdown table cell: no line breaks, no column separators.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += (c == '\n' ? ' ' : c);
    }
  }
  return out;
}

}  // namespace

const std::vector<SkipRule>& RigSkips() {
  static const auto* rules = new std::vector<SkipRule>{
      {.pattern = kOffByDefault,
       .reason = "needs a feature gate that is off by default in v1.37, and the rig runs the "
                 "release's defaults (but for --feature-gates)"},
  };
  return *rules;
}

std::string SkipExpression(const std::vector<SkipRule>& rules, std::string_view except) {
  std::vector<std::string> patterns;
  for (const SkipRule& r : rules) {
    if (r.pattern != except) patterns.push_back(r.pattern);
  }
  return absl::StrJoin(patterns, "|");
}

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPassed:
      return "passed";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kSkipped:
      return "skipped";
  }
  return "?";
}

absl::StatusOr<std::vector<SpecResult>> ReadGinkgoReport(std::string_view text,
                                                         std::string_view focus,
                                                         const std::vector<SkipRule>& skips) {
  json report = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!report.is_array()) {
    return absl::InvalidArgumentError("not a Ginkgo JSON report: not an array of suite reports");
  }
  std::regex focus_re;
  std::vector<std::regex> skip_res;
  try {
    focus_re = std::regex(std::string(focus));
    for (const SkipRule& r : skips) skip_res.emplace_back(r.pattern);
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(fmt::format("a focus or skip expression: {}", e.what()));
  }
  std::vector<SpecResult> results;
  try {
    for (const json& suite : report) {
      if (!suite.contains("SpecReports") || !suite["SpecReports"].is_array()) {
        return absl::InvalidArgumentError("a suite report without SpecReports");
      }
      for (const json& spec : suite["SpecReports"]) {
        std::vector<std::string> parts = Strings(spec, "ContainerHierarchyTexts");
        parts.push_back(spec.value("LeafNodeText", ""));
        SpecResult r{.name = absl::StrJoin(parts, " "),
                     .seconds = spec.value("RunTime", 0.0) / 1e9};
        std::string state = spec.value("State", "");
        if (spec.value("LeafNodeType", "") != "It") {
          // Suite-level nodes (BeforeSuite, ReportAfterSuite) count only when they fail.
          if (!IsFailure(state)) continue;
          r.name = std::string(absl::StripAsciiWhitespace(
              fmt::format("[{}] {}", spec.value("LeafNodeType", ""), r.name)));
          r.outcome = Outcome::kFailed;
          r.reason = FailureReason(spec.value("Failure", json::object()));
          results.push_back(std::move(r));
          continue;
        }
        if (!std::regex_search(r.name, focus_re)) continue;
        if (state == "passed") {
          r.outcome = Outcome::kPassed;
        } else if (IsFailure(state)) {
          r.outcome = Outcome::kFailed;
          r.reason = FailureReason(spec.value("Failure", json::object()));
        } else if (state == "skipped" || state == "pending") {
          r.outcome = Outcome::kSkipped;
          std::string message = spec.value("Failure", json::object()).value("Message", "");
          if (state == "pending") {
            r.reason = "marked pending upstream";
          } else if (!message.empty()) {
            r.reason = std::string(absl::StripAsciiWhitespace(message));
          } else {
            for (size_t i = 0; i < skips.size() && r.reason.empty(); ++i) {
              if (std::regex_search(r.name, skip_res[i])) r.reason = skips[i].reason;
            }
            if (r.reason.empty()) r.reason = "not run (the run was interrupted, or --ginkgo.skip)";
          }
        } else {
          return absl::InvalidArgumentError(
              fmt::format("test \"{}\" has a state Ginkgo does not write: \"{}\"", r.name, state));
        }
        results.push_back(std::move(r));
      }
    }
  } catch (const json::exception& e) {  // A field of another type than Ginkgo writes.
    return absl::InvalidArgumentError(fmt::format("not a Ginkgo JSON report: {}", e.what()));
  }
  return results;
}

std::string Summary(const std::vector<SpecResult>& results) {
  int count[3] = {0, 0, 0};
  for (const SpecResult& r : results) ++count[static_cast<int>(r.outcome)];
  return fmt::format("{} passed, {} failed, {} skipped", count[0], count[1], count[2]);
}

std::string MarkdownReport(std::string_view title, const std::vector<SpecResult>& results) {
  std::string out =
      fmt::format("# {}\n\n{}\n\n| Test | Outcome | Seconds | Reason |\n|---|---|---|---|\n", title,
                  Summary(results));
  for (const SpecResult& r : results) {
    out += fmt::format("| {} | {} | {:.1f} | {} |\n", Cell(r.name), OutcomeName(r.outcome),
                       r.seconds, Cell(r.reason));
  }
  return out;
}

json ToJson(const std::vector<SpecResult>& results) {
  json out = json::array();
  for (const SpecResult& r : results) {
    out.push_back({{"name", r.name},
                   {"outcome", OutcomeName(r.outcome)},
                   {"seconds", r.seconds},
                   {"reason", r.reason}});
  }
  return out;
}

absl::StatusOr<std::vector<SpecResult>> FromJson(const json& j) {
  if (!j.is_array()) return absl::InvalidArgumentError("not an array of results");
  std::vector<SpecResult> out;
  for (const json& e : j) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) {
      return absl::InvalidArgumentError("a result without a name");
    }
    SpecResult r{
        .name = e["name"], .seconds = e.value("seconds", 0.0), .reason = e.value("reason", "")};
    std::string outcome = e.value("outcome", "");
    if (outcome == "passed") {
      r.outcome = Outcome::kPassed;
    } else if (outcome == "failed") {
      r.outcome = Outcome::kFailed;
    } else if (outcome == "skipped") {
      r.outcome = Outcome::kSkipped;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "result \"{}\": outcome \"{}\" is none of passed, failed, skipped", r.name, outcome));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string ComparisonTable(std::string_view left_name, const std::vector<SpecResult>& left,
                            std::string_view right_name, const std::vector<SpecResult>& right) {
  absl::flat_hash_map<std::string, const SpecResult*> in_left, in_right;
  for (const SpecResult& r : left) in_left[r.name] = &r;
  for (const SpecResult& r : right) in_right[r.name] = &r;
  std::vector<std::string> names;
  for (const SpecResult& r : left) names.push_back(r.name);
  for (const SpecResult& r : right) {
    if (!in_left.contains(r.name)) names.push_back(r.name);
  }
  std::string out = fmt::format("| Test | {} | {} |\n|---|---|---|\n", left_name, right_name);
  std::string notes;
  auto cell = [&](const absl::flat_hash_map<std::string, const SpecResult*>& in,
                  const std::string& name, std::string_view who) -> std::string {
    auto it = in.find(name);
    if (it == in.end()) return "-";
    if (it->second->outcome != Outcome::kPassed) {
      notes += fmt::format("- {}, {}: {}\n", Cell(name), who, Cell(it->second->reason));
    }
    return std::string(OutcomeName(it->second->outcome));
  };
  for (const std::string& name : names) {
    std::string l = cell(in_left, name, left_name);
    std::string r = cell(in_right, name, right_name);
    out += fmt::format("| {} | {} | {} |\n", Cell(name), l, r);
  }
  out += fmt::format("| **Total** | {} | {} |\n", Summary(left), Summary(right));
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

}  // namespace ksched::e2e
