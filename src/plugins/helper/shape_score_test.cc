#include "src/plugins/helper/shape_score.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace ksched::plugins::helper {
namespace {

TEST(BrokenLinearFunctionTest, Points) {
  struct Case {
    std::vector<FunctionShapePoint> points;
    std::vector<std::pair<int64_t, int64_t>> at;  // {p, want}
  };
  const std::vector<Case> cases = {
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2}, {0, 2}, {20, 2}, {30, 2}, {40, 2}, {70, 2}, {100, 2}, {110, 2}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    auto f = BrokenLinearFunction(cases[i].points);
    for (const auto& [p, want] : cases[i].at) {
      EXPECT_EQ(f(p), want) << "case " << i << " p=" << p;
    }
  }
}

TEST(ShapeTest, DecodesValidatesAndPrints) {
  absl::StatusOr<std::vector<UtilizationShapePoint>> shape = DecodeShape(
      nlohmann::json::parse(R"([{"utilization": 0, "score": 10}, {"utilization": 100}])"),
      "args.shape");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(ShapeAsGo(*shape), R"([{"Utilization":0,"Score":10},{"Utilization":100,"Score":0}])");
  EXPECT_EQ(ShapeToJson(*shape).dump(),
            R"([{"score":10,"utilization":0},{"score":0,"utilization":100}])");
  api::field::ErrorList errs;
  ValidateFunctionShape(*shape, "args.shape", errs);
  EXPECT_TRUE(errs.ToStatus().ok());
  // The default storage-capacity shape: an empty volume scores 100, a full one 0.
  auto f = ShapeScorer(*shape);
  EXPECT_EQ(f(0), 100);
  EXPECT_EQ(f(25), 75);
  EXPECT_EQ(f(100), 0);

  EXPECT_EQ(DecodeShape(nlohmann::json::parse(R"([{"utilisation": 0}])"), "args.shape")
                .status()
                .message(),
            "unknown field \"args.shape[0].utilisation\"");
  ValidateFunctionShape({{50, 11}, {40, 1}}, "args.shape", errs);
  EXPECT_EQ(errs.ToStatus().message(),
            "[args.shape[1].utilization: Invalid value: 40: values must be sorted in increasing "
            "order, args.shape[0].score: Invalid value: 11: not in valid range [0, 10]]");
}

}  // namespace
}  // namespace ksched::plugins::helper
