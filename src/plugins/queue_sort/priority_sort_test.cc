#include "src/plugins/queue_sort/priority_sort.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::queue_sort {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakePod;

QueuedPodInfo Queued(std::optional<int32_t> priority, int64_t queued_at_seconds) {
  MakePod pod;
  pod.Name("p");
  if (priority) pod.Priority(*priority);
  return QueuedPodInfo{.pod_info = PodInfo::Make(pod.Ptr()),
                       .timestamp = absl::FromUnixSeconds(queued_at_seconds)};
}

// The cases of upstream's priority_sort_test.go, plus an absent priority.
TEST(PrioritySortTest, Less) {
  struct Case {
    std::string name;
    QueuedPodInfo a, b;
    bool want;
  };
  const std::vector<Case> cases = {
      {"p1.priority less than p2.priority", Queued(1, 0), Queued(2, 0), false},
      {"p1.priority greater than p2.priority", Queued(2, 0), Queued(1, 0), true},
      {"equal priority, p1 queued earlier", Queued(1, 0), Queued(1, 1), true},
      {"equal priority, p1 queued later", Queued(1, 1), Queued(1, 0), false},
      {"equal priority and time", Queued(1, 0), Queued(1, 0), false},
      {"absent priority counts as 0 against -1", Queued(std::nullopt, 5), Queued(-1, 0), true},
      {"absent priority counts as 0 against 1", Queued(std::nullopt, 0), Queued(1, 5), false},
      {"absent equals 0, earlier first", Queued(std::nullopt, 0), Queued(0, 1), true},
  };
  PrioritySort plugin;
  for (const Case& c : cases) {
    EXPECT_EQ(plugin.Less(c.a, c.b), c.want) << c.name;
  }
}

TEST(PrioritySortTest, FactoryBuildsNamedPlugin) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "PrioritySort");
  EXPECT_NE(dynamic_cast<QueueSortPlugin*>(plugin->get()), nullptr);
}

}  // namespace
}  // namespace ksched::plugins::queue_sort
