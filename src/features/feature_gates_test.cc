#include "src/features/feature_gates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace ksched::features {
namespace {

using ::testing::Contains;
using ::testing::Not;

// The message of the flags' error, or "" when they are taken.
std::string Error(const Flags& flags) {
  absl::StatusOr<FeatureGates> g = FeatureGates::FromFlags(flags);
  return g.ok() ? "" : std::string(g.status().message());
}

TEST(FeatureGatesTest, TheTableIsThePinnedReleasesAndKnowsEveryGateTheSchedulerReads) {
  EXPECT_EQ(FeatureGates::Release(), "v1.37.2");
  EXPECT_EQ(FeatureGates::BinaryVersion(), (Version{1, 37}));
  EXPECT_EQ(FeatureGates::Floor(), (Version{1, 34}));
  const FeatureGates defaults;
  std::vector<std::string> known;
  for (const FeatureGates::Series& s : defaults.MetricSeries()) known.push_back(s.name);
  for (const std::string& gate : FeatureGates::SchedulerGates()) {
    EXPECT_THAT(known, Contains(gate));
  }
}

TEST(FeatureGatesTest, EachGateIsAtItsDefaultOfTheBinarysVersion) {
  const FeatureGates g;
  EXPECT_TRUE(g.Enabled("DRAConsumableCapacity"));                // Beta and on since 1.36.
  EXPECT_TRUE(g.Enabled("StorageCapacityScoring"));               // Beta and on since 1.37.
  EXPECT_FALSE(g.Enabled("TaintTolerationComparisonOperators"));  // Alpha.
  EXPECT_TRUE(g.Enabled("DynamicResourceAllocation"));            // GA.
  EXPECT_FALSE(g.Enabled("NoSuchGate"));
  EXPECT_EQ(g.emulation_version(), (Version{1, 37}));
  EXPECT_EQ(g.min_compatibility_version(), (Version{1, 36}));
  EXPECT_TRUE(g.CheckImplemented().ok());
}

// Each refusal in kube-scheduler's words (component-base's featuregate and compatibility).
TEST(FeatureGatesTest, BadGatesAreRefusedInKubeSchedulersWords) {
  EXPECT_EQ(Error({.feature_gates = {"NoSuchGate=true"}}), "unrecognized feature gate: NoSuchGate");
  EXPECT_EQ(Error({.feature_gates = {"StorageCapacityScoring"}}),
            "missing bool value for StorageCapacityScoring");
  EXPECT_EQ(Error({.feature_gates = {"StorageCapacityScoring=yes"}}),
            "invalid value of StorageCapacityScoring=yes, err: strconv.ParseBool: parsing "
            "\"yes\": invalid syntax");
  EXPECT_EQ(
      Error({.feature_gates = {"DynamicResourceAllocation=false"}}),
      "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true");
  EXPECT_EQ(
      Error({.feature_gates = {"StorageCapacityScoring=true", "kube:PodLevelResources=true"}}),
      "set kube feature gates with default empty prefix or kube: prefix consistently, do not "
      "mix use");
  EXPECT_EQ(Error({.feature_gates = {"wardle:Foo=true"}}), "component not registered: wardle");
  // Two locked gates: both, aggregated.
  EXPECT_EQ(
      Error({.feature_gates = {"DynamicResourceAllocation=false,VolumeAttributesClass=false"}}),
      "[cannot set feature gate DynamicResourceAllocation to false, feature is locked to "
      "true, cannot set feature gate VolumeAttributesClass to false, feature is locked to "
      "true]");
}

TEST(FeatureGatesTest, GatesAreReadAsKubeSchedulerReadsThem) {
  std::vector<Warning> warnings;
  // Spaces, empty items, the kube: prefix, repeated flags (the last value wins), ParseBool's words.
  absl::StatusOr<FeatureGates> g = FeatureGates::FromFlags(
      {.feature_gates = {" kube:StorageCapacityScoring = T ,,kube:ClientsAllowCBOR=1",
                         "kube:ClientsAllowCBOR=False"}},
      &warnings);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->Enabled("StorageCapacityScoring"));
  EXPECT_FALSE(g->Enabled("ClientsAllowCBOR"));
  EXPECT_TRUE(warnings.empty());
  // A GA gate set to its locked default is taken, with upstream's warning.
  g = FeatureGates::FromFlags({.feature_gates = {"DynamicResourceAllocation=true"}}, &warnings);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].gate, "DynamicResourceAllocation");
  EXPECT_EQ(warnings[0].Message(),
            "Warning: setting GA feature gate. It will be removed in a future release.");
}

TEST(FeatureGatesTest, AllBetaSetsEveryBetaGateButThoseSetByName) {
  absl::StatusOr<FeatureGates> g =
      FeatureGates::FromFlags({.feature_gates = {"AllBeta=false,SchedulerPopFromBackoffQ=true"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->Enabled("SchedulerPopFromBackoffQ"));
  EXPECT_FALSE(g->Enabled("DRAConsumableCapacity"));
  EXPECT_FALSE(g->Enabled("AllAlpha"));
  EXPECT_TRUE(g->Enabled("DynamicResourceAllocation"));  // GA: not AllBeta's.
}

TEST(FeatureGatesTest, AnEmulatedVersionGivesThatReleasesDefaultsAndRange) {
  absl::StatusOr<FeatureGates> g = FeatureGates::FromFlags({.emulated_version = {"1.35"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->emulation_version(), (Version{1, 35}));
  EXPECT_EQ(g->min_compatibility_version(), (Version{1, 34}));
  EXPECT_FALSE(g->Enabled("DRAConsumableCapacity"));  // Alpha in 1.35.
  // Not introduced yet at 1.35: absent from the metric, and refused.
  std::vector<std::string> names;
  for (const FeatureGates::Series& s : g->MetricSeries()) names.push_back(s.name);
  EXPECT_THAT(names, Not(Contains("DRAListTypeAttributes")));
  EXPECT_EQ(Error({.feature_gates = {"DRAListTypeAttributes=true"}, .emulated_version = {"1.35"}}),
            "cannot set feature gate DRAListTypeAttributes to true, feature is PreAlpha at "
            "emulated version 1.35, min compatibility version 1.34");
  // The floor of the min-compatibility version holds: 1.34 emulates with 1.34, not 1.33.
  g = FeatureGates::FromFlags({.emulated_version = {"kube=v1.34"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->min_compatibility_version(), (Version{1, 34}));

  EXPECT_EQ(Error({.emulated_version = {"1.38"}}),
            "emulation version 1.38 is not between [1.34, 1.37.0]");
  EXPECT_EQ(Error({.emulated_version = {"1.30"}}),
            "[emulation version 1.30 is not between [1.34, 1.37.0], minCompatibilityVersion "
            "version 1.34 is not between [1.34, 1.30]]");
  EXPECT_EQ(Error({.emulated_version = {"1.35"}, .min_compatibility_version = {"1.36"}}),
            "minCompatibilityVersion version 1.36 is not between [1.34, 1.35]");
  EXPECT_EQ(Error({.emulated_version = {"abc"}}), "could not parse \"abc\" as version");
  EXPECT_EQ(Error({.emulated_version = {"1.foo"}}), "illegal version string \"1.foo\"");
  EXPECT_EQ(Error({.emulated_version = {"01.35"}}),
            "illegal zero-prefixed version component \"01\" in \"01.35\"");
  EXPECT_EQ(Error({.emulated_version = {"1.35.1"}}), "patch version not allowed, got: kube=1.35.1");
  EXPECT_EQ(Error({.emulated_version = {"1.35,kube=1.36"}}),
            "duplicate version flag, kube=1.35 and kube=1.36");
  EXPECT_EQ(Error({.emulated_version = {"wardle=1.2"}}), "component not registered: wardle");
}

// What ksched does not implement is refused by name; gates the scheduler does not read are
// taken, as kube-scheduler takes them.
TEST(FeatureGatesTest, WhatKschedDoesNotImplementIsRefusedByName) {
  absl::StatusOr<FeatureGates> g =
      FeatureGates::FromFlags({.feature_gates = {"TaintTolerationComparisonOperators=true"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->CheckImplemented().message(),
            "feature gate TaintTolerationComparisonOperators=true: ksched does not implement it "
            "yet, and decides as kube-scheduler v1.37.2 does with "
            "TaintTolerationComparisonOperators=false");
  // A gate ksched honours is taken either way.
  g = FeatureGates::FromFlags({.feature_gates = {"StorageCapacityScoring=false"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->CheckImplemented().ok()) << g->CheckImplemented();
  // An emulated version is its gates' defaults: 1.36's differ only in gates ksched honours.
  g = FeatureGates::FromFlags({.emulated_version = {"1.36"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->CheckImplemented().ok()) << g->CheckImplemented();
  EXPECT_FALSE(g->Enabled("DRADeviceTaintRules"));
  // 1.35 and 1.34 turn off gates ksched honours, or whose off it is (DecidedAsOff).
  for (const char* version : {"1.35", "1.34"}) {
    g = FeatureGates::FromFlags({.emulated_version = {version}});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->CheckImplemented().ok()) << version << ": " << g->CheckImplemented();
  }
  EXPECT_FALSE(g->Enabled("NominatedNodeNameForExpectation"));  // Alpha in 1.34.
  EXPECT_FALSE(g->Enabled("OpportunisticBatching"));            // Not yet in 1.34.
  g = FeatureGates::FromFlags({.feature_gates = {"InPlacePodLevelResourcesVerticalScaling=false"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->CheckImplemented().ok()) << g->CheckImplemented();
  g = FeatureGates::FromFlags({.feature_gates = {"ClientsAllowCBOR=true,ContextualLogging=false"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->CheckImplemented().ok()) << g->CheckImplemented();
  // Gangs are done as 1.37 does them, and refused for the releases before.
  g = FeatureGates::FromFlags({.feature_gates = {"GenericWorkload=true"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->CheckImplemented().ok()) << g->CheckImplemented();
  g = FeatureGates::FromFlags(
      {.feature_gates = {"GenericWorkload=true"}, .emulated_version = {"1.36"}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->CheckImplemented().message(),
            "feature gate GenericWorkload=true: ksched does not implement it yet, and decides as "
            "kube-scheduler v1.37.2 does with GenericWorkload=false");
}

TEST(FeatureGatesTest, TheMetricHasEachGateWithItsStageAndValue) {
  absl::StatusOr<FeatureGates> g =
      FeatureGates::FromFlags({.feature_gates = {"TaintTolerationComparisonOperators=true"}});
  ASSERT_TRUE(g.ok());
  auto find = [&](std::string_view name) {
    std::vector<FeatureGates::Series> all = g->MetricSeries();
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& s) { return s.name == name; });
    return it == all.end() ? FeatureGates::Series{} : *it;
  };
  EXPECT_EQ(find("TaintTolerationComparisonOperators").stage, "ALPHA");
  EXPECT_TRUE(find("TaintTolerationComparisonOperators").enabled);
  EXPECT_EQ(find("StorageCapacityScoring").stage, "BETA");
  EXPECT_TRUE(find("StorageCapacityScoring").enabled);
  EXPECT_EQ(find("DynamicResourceAllocation").stage, "");
  EXPECT_EQ(find("AllAlpha").stage, "ALPHA");
  EXPECT_FALSE(find("AllAlpha").enabled);
}

TEST(FeatureGatesTest, TheHelpListsTheAlphaAndBetaGatesAsKubeSchedulersDoes) {
  const std::vector<std::string> known = FeatureGates::KnownFeatures();
  EXPECT_THAT(known, Contains("kube:AllAlpha=true|false (ALPHA - default=false)"));
  EXPECT_THAT(known, Contains("kube:StorageCapacityScoring=true|false (BETA - default=true)"));
  EXPECT_THAT(known, Contains("kube:TaintTolerationComparisonOperators=true|false (ALPHA - "
                              "default=false)"));
  EXPECT_THAT(known, Contains("kube:DRAConsumableCapacity=true|false (BETA - default=true)"));
  for (const std::string& line : known) {
    EXPECT_FALSE(line.starts_with("kube:DynamicResourceAllocation=")) << "GA gates are not listed";
  }
  EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
}

}  // namespace
}  // namespace ksched::features
