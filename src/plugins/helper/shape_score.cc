#include "src/plugins/helper/shape_score.h"

#include <limits>

#include "fmt/format.h"
#include "ksched/plugin.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::helper {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeInt32;
using api::field::ErrorList;
using api::field::Index;
using api::field::Member;

absl::StatusOr<std::vector<UtilizationShapePoint>> DecodeShape(const nlohmann::json& shape,
                                                               std::string_view path) {
  if (!shape.is_array()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a list", path));
  }
  std::vector<UtilizationShapePoint> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string p = Index(path, i);
    KSCHED_RETURN_IF_ERROR(CheckObject(shape[i], p, {"utilization", "score"}));
    UtilizationShapePoint point;
    if (const nlohmann::json* u = Member(shape[i], "utilization")) {
      KSCHED_ASSIGN_OR_RETURN(point.utilization, DecodeInt32(*u, Child(p, "utilization")));
    }
    if (const nlohmann::json* s = Member(shape[i], "score")) {
      KSCHED_ASSIGN_OR_RETURN(point.score, DecodeInt32(*s, Child(p, "score")));
    }
    out.push_back(point);
  }
  return out;
}

void ValidateFunctionShape(const std::vector<UtilizationShapePoint>& shape, std::string_view path,
                           ErrorList& errs) {
  if (shape.empty()) {
    errs.Required(path, "at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.Invalid(Child(Index(path, i), "utilization"), std::to_string(shape[i].utilization),
                   "values must be sorted in increasing order");
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errs.Invalid(Child(Index(path, i), "utilization"), std::to_string(shape[i].utilization),
                   "not in valid range [0, 100]");
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errs.Invalid(Child(Index(path, i), "score"), std::to_string(shape[i].score),
                   fmt::format("not in valid range [0, {}]", kMaxCustomPriorityScore));
    }
  }
}

nlohmann::json ShapeToJson(const std::vector<UtilizationShapePoint>& shape) {
  nlohmann::json out = nlohmann::json::array();
  for (const UtilizationShapePoint& p : shape) {
    out.push_back({{"utilization", p.utilization}, {"score", p.score}});
  }
  return out;
}

std::string ShapeAsGo(const std::vector<UtilizationShapePoint>& shape) {
  std::string out;
  for (const UtilizationShapePoint& p : shape) {
    out += fmt::format("{}{{\"Utilization\":{},\"Score\":{}}}", out.empty() ? "" : ",",
                       p.utilization, p.score);
  }
  return "[" + out + "]";
}

std::function<int64_t(int64_t)> BrokenLinearFunction(std::vector<FunctionShapePoint> shape) {
  return [shape = std::move(shape)](int64_t p) -> int64_t {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (p > shape[i].utilization) continue;
      if (i == 0) return shape[0].score;
      const FunctionShapePoint& lo = shape[i - 1];
      const FunctionShapePoint& hi = shape[i];
      return lo.score +
             (hi.score - lo.score) * (p - lo.utilization) / (hi.utilization - lo.utilization);
    }
    return shape.empty() ? 0 : shape.back().score;
  };
}

std::function<int64_t(int64_t)> ShapeScorer(const std::vector<UtilizationShapePoint>& shape) {
  std::vector<FunctionShapePoint> scaled;
  scaled.reserve(shape.size());
  for (const UtilizationShapePoint& p : shape) {
    scaled.push_back({p.utilization, p.score * (kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  return BrokenLinearFunction(std::move(scaled));
}

}  // namespace ksched::plugins::helper
