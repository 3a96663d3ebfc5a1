// ksched/cel.h where the CEL library cannot be opened (a ksched built without Go): a selector of
// the driver's name alone (and with allowMultipleAllocations) still judges devices; any other names
// the library it lacks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "ksched/cel.h"

namespace ksched::cel {
namespace {

class CelWithoutLibraryTest : public ::testing::Test {
 protected:
  // Before the first selector opens the library (ctest runs each test in a process of its own).
  static void SetUpTestSuite() { setenv("KSCHED_CEL_LIBRARY", "/nonexistent/libksched_cel.so", 1); }
};

TEST_F(CelWithoutLibraryTest, OnlyTheDriverAndSharingAreJudged) {
  absl::StatusOr<std::shared_ptr<const Selector>> driver =
      Selector::Compile("device.driver == \"gpu.example.com\"");
  ASSERT_TRUE(driver.ok()) << driver.status();
  absl::StatusOr<std::shared_ptr<const Devices>> devices =
      Devices::Make({{.driver = "gpu.example.com"},
                     {.driver = "tpu.example.com"},
                     {.driver = "gpu.example.com"}});
  ASSERT_TRUE(devices.ok()) << devices.status();
  absl::StatusOr<std::vector<Match>> verdicts = (*driver)->Evaluate(**devices);
  ASSERT_TRUE(verdicts.ok()) << verdicts.status();
  std::vector<bool> matches;
  for (const Match& m : *verdicts) matches.push_back(m.matches);
  EXPECT_THAT(matches, ::testing::ElementsAre(true, false, true));

  absl::StatusOr<std::shared_ptr<const Selector>> shared = Selector::Compile(
      "device.driver == \"gpu.example.com\" && device.allowMultipleAllocations == true");
  ASSERT_TRUE(shared.ok()) << shared.status();
  absl::StatusOr<std::shared_ptr<const Devices>> nics =
      Devices::Make({{.driver = "gpu.example.com", .allow_multiple_allocations = true},
                     {.driver = "gpu.example.com"},
                     {.driver = "tpu.example.com", .allow_multiple_allocations = true}});
  ASSERT_TRUE(nics.ok()) << nics.status();
  absl::StatusOr<std::vector<Match>> shared_verdicts = (*shared)->Evaluate(**nics);
  ASSERT_TRUE(shared_verdicts.ok()) << shared_verdicts.status();
  matches.clear();
  for (const Match& m : *shared_verdicts) matches.push_back(m.matches);
  EXPECT_THAT(matches, ::testing::ElementsAre(true, false, false));

  absl::StatusOr<std::shared_ptr<const Selector>> model =
      Selector::Compile("device.attributes['gpu.example.com'].model == 'a100'");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(model.status().message(), ::testing::HasSubstr("/nonexistent/libksched_cel.so"));
}

}  // namespace
}  // namespace ksched::cel
