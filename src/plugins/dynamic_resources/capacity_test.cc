#include "src/plugins/dynamic_resources/capacity.h"

#include <gtest/gtest.h>

namespace ksched::plugins::dynamic_resources {
namespace {

api::Quantity Q(std::string_view s) { return *api::Quantity::Parse(s); }

// A device with 10Gi of memory under `policy`.
api::Device Memory(std::optional<api::CapacityRequestPolicy> policy = std::nullopt) {
  api::Device d{.name = "d", .capacity = {{"memory", Q("10Gi")}}};
  if (policy) d.request_policies["memory"] = *policy;
  return d;
}

// What TakeCapacity gives of the memory: "none" when the device cannot, the error's message when
// it fails.
std::string Took(const api::Device& d, std::map<std::string, std::string> requests,
                 std::string in_use = "0", bool fractional = true) {
  Amounts asked;
  for (const auto& [name, value] : requests) asked[name] = Q(value);
  absl::StatusOr<std::optional<Amounts>> out =
      TakeCapacity(d, asked, {{"memory", Q(in_use)}}, fractional);
  if (!out.ok()) return std::string(out.status().message());
  if (!out->has_value()) return "none";
  return (*out)->at("memory").String();
}

TEST(TakeCapacityTest, WithoutAPolicyARequestTakesWhatItAsksAndNoRequestTakesAll) {
  EXPECT_EQ(Took(Memory(), {{"memory", "4Gi"}}), "4Gi");
  EXPECT_EQ(Took(Memory(), {}), "10Gi");  // Nothing asked: the whole capacity.
  EXPECT_EQ(Took(Memory(), {{"memory", "4Gi"}}, "6Gi"), "4Gi");  // Just fits beside 6Gi.
  EXPECT_EQ(Took(Memory(), {{"memory", "4Gi"}}, "7Gi"), "none");
  EXPECT_EQ(Took(Memory(), {{"memory", "11Gi"}}), "none");
  EXPECT_EQ(Took(Memory(), {{"cores", "1"}}), "none");  // A capacity the device lacks.
  EXPECT_EQ(Took(Memory(), {{"memory", "-1Gi"}}),
            "capacity \"memory\": capacity value is negative");
}

TEST(TakeCapacityTest, ARangeRoundsUpToItsStepsFromMinAndStopsAtMax) {
  const api::Device d =
      Memory(api::CapacityRequestPolicy{.default_value = Q("1Gi"),
                                        .valid_range = api::CapacityRequestRange{
                                            .min = Q("1Gi"), .max = Q("8Gi"), .step = Q("2Gi")}});
  EXPECT_EQ(Took(d, {}), "1Gi");                     // The default.
  EXPECT_EQ(Took(d, {{"memory", "100Mi"}}), "1Gi");  // Up to min.
  EXPECT_EQ(Took(d, {{"memory", "2Gi"}}), "3Gi");    // 1Gi + one step.
  EXPECT_EQ(Took(d, {{"memory", "7Gi"}}), "7Gi");
  EXPECT_EQ(Took(d, {{"memory", "7500Mi"}}), "none");  // 9Gi: above max.
  // Without DRAFractionalCapacityRange the same, in whole units.
  EXPECT_EQ(Took(d, {{"memory", "2Gi"}}, "0", /*fractional=*/false), "3Gi");
}

TEST(TakeCapacityTest, FractionalStepsRoundInMilliUnitsOnlyWithTheGate) {
  api::Device d{.name = "d", .capacity = {{"memory", Q("4")}}};
  d.request_policies["memory"] = {
      .default_value = Q("200m"),
      .valid_range = api::CapacityRequestRange{.min = Q("200m"), .step = Q("100m")}};
  EXPECT_EQ(Took(d, {{"memory", "250m"}}), "300m");
  EXPECT_EQ(Took(d, {{"memory", "1200m"}}), "1200m");
  // Whole units without it: 250m is 1, min 1, step 1.
  EXPECT_EQ(Took(d, {{"memory", "250m"}}, "0", /*fractional=*/false), "1");
  // A request finer than a milli-unit cannot be rounded in them: upstream's fatal error.
  EXPECT_EQ(Took(d, {{"memory", "1.0001"}}),
            "capacity \"memory\": capacity request cannot be represented in the device's range "
            "arithmetic: request 1000100u is not a representable milli value");
}

TEST(TakeCapacityTest, ValidValuesRoundUpToTheNextAndNothingAboveTheLast) {
  const api::Device d = Memory(api::CapacityRequestPolicy{
      .default_value = Q("1Gi"), .valid_values = {Q("1Gi"), Q("2Gi"), Q("4Gi")}});
  EXPECT_EQ(Took(d, {{"memory", "1500Mi"}}), "2Gi");
  EXPECT_EQ(Took(d, {{"memory", "4Gi"}}), "4Gi");
  EXPECT_EQ(Took(d, {{"memory", "5Gi"}}), "none");
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
