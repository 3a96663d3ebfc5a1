// The utilization shape of kube-scheduler's score functions (upstream's helper/shape_score.go and
// the config's UtilizationShapePoint): NodeResourcesFit's RequestedToCapacityRatio and
// VolumeBinding's storage-capacity score both map a utilization in [0, 100] to a score through a
// piecewise-linear function of a few points.
//
//   absl::StatusOr<std::vector<UtilizationShapePoint>> shape = DecodeShape(json, "args.shape");
//   ErrorList errs;
//   ValidateFunctionShape(*shape, "args.shape", errs);
//   std::function<int64_t(int64_t)> score = ShapeScorer(*shape);  // score(60): 0..100
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/api/field.h"
#include "nlohmann/json.hpp"

namespace ksched::plugins::helper {

// The top of a configured shape's score scale (upstream's MaxCustomPriorityScore).
inline constexpr int32_t kMaxCustomPriorityScore = 10;

// A point as configured: utilization in [0, 100] → score in [0, 10].
struct UtilizationShapePoint {
  int32_t utilization = 0;
  int32_t score = 0;
};

// Decodes a list of {utilization, score} strictly (unknown fields and non-int32 values are errors
// naming the field below `path`).
absl::StatusOr<std::vector<UtilizationShapePoint>> DecodeShape(const nlohmann::json& shape,
                                                               std::string_view path);
// validateFunctionShape: at least one point, utilization increasing and in [0, 100], score in
// [0, 10]; the errors name `path`[i].utilization or .score.
void ValidateFunctionShape(const std::vector<UtilizationShapePoint>& shape, std::string_view path,
                           api::field::ErrorList& errs);
// As a v1 document: [{"utilization": 0, "score": 10}, ...].
nlohmann::json ShapeToJson(const std::vector<UtilizationShapePoint>& shape);
// As Go's json.Marshal prints the internal type in a field error: [{"Utilization":0,"Score":10}].
std::string ShapeAsGo(const std::vector<UtilizationShapePoint>& shape);

// A point on the scheduler's 0..100 scale.
struct FunctionShapePoint {
  int64_t utilization = 0;
  int64_t score = 0;
};

// The piecewise-linear function through `shape` (upstream's BuildBrokenLinearFunction): constant
// before the first point and after the last, integer interpolation in between.
std::function<int64_t(int64_t)> BrokenLinearFunction(std::vector<FunctionShapePoint> shape);

// The configured shape's function, scores scaled by 10 to 0..100. `shape` must be validated.
std::function<int64_t(int64_t)> ShapeScorer(const std::vector<UtilizationShapePoint>& shape);

}  // namespace ksched::plugins::helper
