#include "src/plugins/scheduling_gates/scheduling_gates.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::scheduling_gates {
namespace {

using ksched::testing::MakePod;

TEST(SchedulingGatesTest, PreEnqueue) {
  struct Case {
    std::string name;
    api::Pod pod;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"pod without gates", MakePod().Name("p").Obj(), Code::kSuccess, ""},
      {"pod with one gate", MakePod().Name("p").SchedulingGate("foo").Obj(),
       Code::kUnschedulableAndUnresolvable, "waiting for scheduling gates: [foo]"},
      {"pod with gates, in spec order",
       MakePod()
           .Name("p")
           .SchedulingGate("example.com/foo")
           .SchedulingGate("example.com/bar")
           .Obj(),
       Code::kUnschedulableAndUnresolvable,
       "waiting for scheduling gates: [example.com/foo example.com/bar]"},
  };
  SchedulingGates plugin;
  for (const Case& c : cases) {
    Status s = plugin.PreEnqueue(c.pod);
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

TEST(SchedulingGatesTest, EventsToRegister) {
  SchedulingGates plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, EventResource::kPod);
  EXPECT_EQ(events[0].event.action, ActionType::kUpdatePodSchedulingGatesEliminated);
  ASSERT_TRUE(events[0].hint);

  api::Pod target = MakePod().Name("p").UID("uid-p").SchedulingGate("foo").Obj();
  api::Pod same_ungated = MakePod().Name("p").UID("uid-p").Obj();
  api::Pod other_ungated = MakePod().Name("q").UID("uid-q").Obj();
  ClusterEventData same{.old_pod = &target, .new_pod = &same_ungated};
  ClusterEventData other{.old_pod = &other_ungated, .new_pod = &other_ungated};
  EXPECT_EQ(events[0].hint(target, same), QueueingHint::kQueue);
  EXPECT_EQ(events[0].hint(target, other), QueueingHint::kQueueSkip);
}

TEST(SchedulingGatesTest, FactoryBuildsNamedPlugin) {
  ksched::testing::FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "SchedulingGates");
}

}  // namespace
}  // namespace ksched::plugins::scheduling_gates
