#include "src/base/log.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ksched::log {
namespace {

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TZ", "UTC", 1); }
};

TEST_F(LogTest, TextIsKlogsHeaderThenQuotedMessageAndPairs) {
  EXPECT_EQ(FormatLine(Format::kText, 'I', 2, "/src/scheduler/scheduler.cc", 240,
                       "Successfully bound pod to node",
                       {{"pod", "default/web"}, {"node", "n1"}, {"evaluatedNodes", 3}},
                       1795357627123456, 4242),
            "I1122 14:27:07.123456    4242 scheduler.cc:240] \"Successfully bound pod to node\" "
            "pod=\"default/web\" node=\"n1\" evaluatedNodes=3");
}

TEST_F(LogTest, JsonIsComponentBasesFormat) {
  EXPECT_EQ(FormatLine(Format::kJson, 'I', 2, "/src/scheduler/scheduler.cc", 240, "Bound",
                       {{"pod", "default/web"}, {"ok", true}}, 1795357627123456, 1),
            R"({"ts":1795357627123.456,"caller":"scheduler/scheduler.cc:240","msg":"Bound",)"
            R"("v":2,"pod":"default/web","ok":true})");
  // Errors carry no verbosity.
  EXPECT_EQ(FormatLine(Format::kJson, 'E', 0, "a.cc", 1, "Failed", {{"err", "boom"}}, 0, 1),
            R"({"ts":0.0,"caller":"a.cc:1","msg":"Failed","err":"boom"})");
}

TEST_F(LogTest, VerbosityGatesLevels) {
  Init(Format::kText, 2);
  EXPECT_TRUE(Enabled(0));
  EXPECT_TRUE(Enabled(2));
  EXPECT_FALSE(Enabled(3));
  Init(Format::kText, 0);
  EXPECT_FALSE(Enabled(1));
}

}  // namespace
}  // namespace ksched::log
