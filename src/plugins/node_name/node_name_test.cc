#include "src/plugins/node_name/node_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::node_name {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

// The cases of upstream's node_name_test.go.
TEST(NodeNameTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"no host specified", MakePod().Name("p").Obj(), Code::kSuccess, ""},
      {"host matches", MakePod().Name("p").Node("foo").Obj(), Code::kSuccess, ""},
      {"host doesn't match", MakePod().Name("p").Node("bar").Obj(),
       Code::kUnschedulableAndUnresolvable, "node(s) didn't match the requested node name"},
  };
  FakeHandle handle({MakeNode().Name("foo").Obj()});
  for (const Case& c : cases) {
    CycleState state;
    NodeName plugin;
    Status s = plugin.Filter(state, c.pod, *handle.snapshot().Get("foo"));
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

TEST(NodeNameTest, EventsToRegister) {
  NodeName plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, EventResource::kNode);
  EXPECT_EQ(events[0].event.action, ActionType::kAdd);
  EXPECT_FALSE(events[0].hint);  // Always Queue.
}

TEST(NodeNameTest, FactoryBuildsNamedPlugin) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "NodeName");
}

}  // namespace
}  // namespace ksched::plugins::node_name
