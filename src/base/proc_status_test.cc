#include "src/base/proc_status.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

namespace ksched {
namespace {

TEST(ProcStatusTest, ResidentMemoryGrowsWhenThisProcessTouchesMore) {
  std::optional<int64_t> before = ProcStatusKib(0, "VmRSS");
  ASSERT_TRUE(before.has_value());
  std::vector<char> block(64 << 20, 1);  // 64 MiB, written.
  std::optional<int64_t> after = ProcStatusKib(getpid(), "VmRSS");
  ASSERT_TRUE(after.has_value());
  EXPECT_GE(*after - *before, 60 << 10) << "KiB";
  EXPECT_GE(*ProcStatusKib(0, "VmHWM"), *after);
  EXPECT_EQ(block[block.size() - 1], 1);
}

TEST(ProcStatusTest, FieldsAreTrimmedAndAbsentOnesAreNone) {
  EXPECT_EQ(ProcStatusField(0, "Pid"), std::to_string(getpid()));
  EXPECT_EQ(ProcStatusField(0, "Vm"), std::nullopt);  // A prefix of VmRSS is not a field.
  EXPECT_EQ(ProcStatusField(0, "NoSuchField"), std::nullopt);
  EXPECT_EQ(ProcStatusKib(0, "Pid"), std::nullopt);  // Not in kB.
  EXPECT_EQ(ProcStatusField(-1, "Pid"), std::nullopt);
}

}  // namespace
}  // namespace ksched
