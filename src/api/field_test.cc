#include "ksched/api/field.h"

#include <gtest/gtest.h>

namespace ksched::api::field {
namespace {

TEST(MetaTimeTest, PrintsUtcToTheSecondWithZ) {
  EXPECT_EQ(MetaTime(absl::FromUnixSeconds(1764300000)), "2025-11-28T03:20:00Z");
  EXPECT_EQ(MetaTime(absl::FromUnixMillis(1764300000999)), "2025-11-28T03:20:00Z");
}

TEST(GoDurationTest, PrintsAsGoPrints) {
  EXPECT_EQ(GoDuration(absl::ZeroDuration()), "0s");
  EXPECT_EQ(GoDuration(absl::Seconds(15)), "15s");
  EXPECT_EQ(GoDuration(absl::Seconds(90)), "1m30s");
  EXPECT_EQ(GoDuration(absl::Hours(1)), "1h0m0s");
  EXPECT_EQ(GoDuration(absl::Milliseconds(500)), "500ms");
  EXPECT_EQ(GoDuration(-absl::Seconds(2)), "-2s");
}

TEST(GoDurationTest, ParsesWhatGoParsesAndRefusesTheRest) {
  absl::Duration d;
  ASSERT_TRUE(ParseGoDuration("1m30s", &d));
  EXPECT_EQ(d, absl::Seconds(90));
  ASSERT_TRUE(ParseGoDuration("-1.5h", &d));
  EXPECT_EQ(d, -absl::Minutes(90));
  ASSERT_TRUE(ParseGoDuration("0", &d));
  EXPECT_EQ(d, absl::ZeroDuration());
  for (const char* bad : {"", "10", "ten seconds", "inf", "-inf", "5x"}) {
    EXPECT_FALSE(ParseGoDuration(bad, &d)) << bad;
  }
}

TEST(GoDurationTest, DecodingNamesTheFieldOfABadDuration) {
  absl::Duration d = absl::Seconds(10);
  ASSERT_TRUE(DecodeOptionalDuration(nlohmann::json::object(), "args", "timeout", &d).ok());
  EXPECT_EQ(d, absl::Seconds(10));  // Absent: the default stays.
  ASSERT_TRUE(DecodeOptionalDuration({{"timeout", "2m"}}, "args", "timeout", &d).ok());
  EXPECT_EQ(d, absl::Minutes(2));
  EXPECT_EQ(DecodeOptionalDuration({{"timeout", "10"}}, "args", "timeout", &d).message(),
            "args.timeout: time: invalid duration \"10\"");
}

}  // namespace
}  // namespace ksched::api::field
