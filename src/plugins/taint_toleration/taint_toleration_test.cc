#include "src/plugins/taint_toleration/taint_toleration.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/scoring.h"

namespace ksched::plugins::taint_toleration {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

constexpr char kUntolerated[] = "node(s) had untolerated taint(s)";

// The cases of upstream's TestTaintTolerationFilter.
TEST(TaintTolerationTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"no tolerations, NoSchedule taint", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj(),
       Code::kUnschedulableAndUnresolvable, kUntolerated},
      {"toleration matches key, value and effect",
       MakePod().Name("p").Toleration("dedicated", "Equal", "user1", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj(), Code::kSuccess, ""},
      {"toleration value differs",
       MakePod().Name("p").Toleration("dedicated", "Equal", "user2", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj(),
       Code::kUnschedulableAndUnresolvable, kUntolerated},
      {"Exists tolerates any value",
       MakePod().Name("p").Toleration("foo", "Exists", "", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("foo", "bar", "NoSchedule").Obj(), Code::kSuccess, ""},
      {"all of several taints tolerated",
       MakePod()
           .Name("p")
           .Toleration("dedicated", "Equal", "user2", "NoSchedule")
           .Toleration("foo", "Exists", "", "NoSchedule")
           .Obj(),
       MakeNode()
           .Name("n")
           .Taint("dedicated", "user2", "NoSchedule")
           .Taint("foo", "bar", "NoSchedule")
           .Obj(),
       Code::kSuccess, ""},
      {"second of several taints untolerated",
       MakePod().Name("p").Toleration("dedicated", "Equal", "user2", "NoSchedule").Obj(),
       MakeNode()
           .Name("n")
           .Taint("dedicated", "user2", "NoSchedule")
           .Taint("foo", "bar", "NoSchedule")
           .Obj(),
       Code::kUnschedulableAndUnresolvable, kUntolerated},
      {"toleration effect differs",
       MakePod().Name("p").Toleration("foo", "Equal", "bar", "PreferNoSchedule").Obj(),
       MakeNode().Name("n").Taint("foo", "bar", "NoSchedule").Obj(),
       Code::kUnschedulableAndUnresolvable, kUntolerated},
      {"empty toleration effect matches NoSchedule",
       MakePod().Name("p").Toleration("foo", "Equal", "bar").Obj(),
       MakeNode().Name("n").Taint("foo", "bar", "NoSchedule").Obj(), Code::kSuccess, ""},
      {"PreferNoSchedule taint never rejects",
       MakePod().Name("p").Toleration("dedicated", "Equal", "user2", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "PreferNoSchedule").Obj(), Code::kSuccess,
       ""},
      {"no tolerations, PreferNoSchedule taint", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "PreferNoSchedule").Obj(), Code::kSuccess,
       ""},
      {"no tolerations, NoExecute taint", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoExecute").Obj(),
       Code::kUnschedulableAndUnresolvable, kUntolerated},
      {"empty key with Exists tolerates every taint",
       MakePod().Name("p").Toleration("", "Exists").Obj(),
       MakeNode().Name("n").Taint("a", "b", "NoExecute").Taint("c", "", "NoSchedule").Obj(),
       Code::kSuccess, ""},
  };
  for (const Case& c : cases) {
    FakeHandle handle({c.node});
    CycleState state;
    TaintToleration plugin;
    Status s = plugin.Filter(state, c.pod, *handle.snapshot().Get("n"));
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

// Runs PreScore (unless skipped), Score and NormalizeScore over every node, as the framework does.
std::map<std::string, int64_t> ScoreAll(const api::Pod& pod, const std::vector<api::Node>& nodes,
                                        bool run_pre_score = true) {
  FakeHandle handle(nodes);
  TaintToleration plugin;
  CycleState state;
  if (run_pre_score) {
    Status s = plugin.PreScore(state, pod, handle.snapshot().nodes());
    EXPECT_TRUE(s.ok()) << s.Message();
  }
  NodeScoreList scores;
  std::vector<int64_t> raw = testing::ScoreEach(plugin, state, pod, handle.snapshot().nodes());
  for (size_t i = 0; i < raw.size(); ++i) scores.push_back({handle.snapshot().nodes()[i], raw[i]});
  EXPECT_NE(dynamic_cast<ScoreExtensions*>(&plugin), nullptr);  // Normalized.
  EXPECT_TRUE(plugin.NormalizeScore(state, pod, scores).ok());
  std::map<std::string, int64_t> out;
  for (const NodeScore& s : scores) out[s.node->name()] = s.score;
  return out;
}

// The cases of upstream's TestTaintTolerationScore.
TEST(TaintTolerationTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::map<std::string, int64_t> want;
  };
  const std::vector<Case> cases = {
      {"tolerated taints score higher than intolerable ones",
       MakePod().Name("p").Toleration("foo", "Equal", "bar", "PreferNoSchedule").Obj(),
       {MakeNode().Name("a").Taint("foo", "bar", "PreferNoSchedule").Obj(),
        MakeNode().Name("b").Taint("foo", "blah", "PreferNoSchedule").Obj()},
       {{"a", 100}, {"b", 0}}},
      {"all taints tolerated: the same score however many",
       MakePod()
           .Name("p")
           .Toleration("cpu-type", "Equal", "arm64", "PreferNoSchedule")
           .Toleration("disk-type", "Equal", "ssd", "PreferNoSchedule")
           .Obj(),
       {MakeNode().Name("a").Obj(),
        MakeNode().Name("b").Taint("cpu-type", "arm64", "PreferNoSchedule").Obj(),
        MakeNode()
            .Name("c")
            .Taint("cpu-type", "arm64", "PreferNoSchedule")
            .Taint("disk-type", "ssd", "PreferNoSchedule")
            .Obj()},
       {{"a", 100}, {"b", 100}, {"c", 100}}},
      {"more intolerable taints, lower score",
       MakePod().Name("p").Toleration("foo", "Equal", "bar", "PreferNoSchedule").Obj(),
       {MakeNode().Name("a").Obj(),
        MakeNode().Name("b").Taint("cpu-type", "arm64", "PreferNoSchedule").Obj(),
        MakeNode()
            .Name("c")
            .Taint("cpu-type", "arm64", "PreferNoSchedule")
            .Taint("disk-type", "ssd", "PreferNoSchedule")
            .Obj()},
       {{"a", 100}, {"b", 50}, {"c", 0}}},
      {"only PreferNoSchedule taints and matching tolerations count",
       MakePod()
           .Name("p")
           .Toleration("cpu-type", "Equal", "arm64", "NoSchedule")
           .Toleration("disk-type", "Equal", "ssd", "NoSchedule")
           .Obj(),
       {MakeNode().Name("a").Obj(),
        MakeNode().Name("b").Taint("cpu-type", "arm64", "NoSchedule").Obj(),
        MakeNode()
            .Name("c")
            .Taint("cpu-type", "arm64", "PreferNoSchedule")
            .Taint("disk-type", "ssd", "PreferNoSchedule")
            .Obj()},
       {{"a", 100}, {"b", 100}, {"c", 0}}},
      {"no taints and no tolerations",
       MakePod().Name("p").Obj(),
       {MakeNode().Name("a").Obj(),
        MakeNode().Name("b").Taint("cpu-type", "arm64", "PreferNoSchedule").Obj()},
       {{"a", 100}, {"b", 0}}},
      {"empty-effect toleration tolerates PreferNoSchedule",
       MakePod().Name("p").Toleration("foo", "Exists").Obj(),
       {MakeNode().Name("a").Taint("foo", "x", "PreferNoSchedule").Obj(),
        MakeNode().Name("b").Taint("bar", "x", "PreferNoSchedule").Obj()},
       {{"a", 100}, {"b", 0}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ScoreAll(c.pod, c.nodes), c.want) << c.name;
    EXPECT_EQ(ScoreAll(c.pod, c.nodes, /*run_pre_score=*/false), c.want)
        << c.name << " (without PreScore)";
  }
}

TEST(TaintTolerationTest, RawScoreCountsIntolerablePreferNoScheduleTaints) {
  api::Pod pod = MakePod().Name("p").Toleration("a", "Exists", "", "PreferNoSchedule").Obj();
  FakeHandle handle({MakeNode()
                         .Name("n")
                         .Taint("a", "1", "PreferNoSchedule")
                         .Taint("b", "1", "PreferNoSchedule")
                         .Taint("c", "1", "PreferNoSchedule")
                         .Taint("d", "1", "NoSchedule")
                         .Obj()});
  TaintToleration plugin;
  CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, pod, handle.snapshot().nodes()).ok());
  int64_t score = -1;
  ASSERT_TRUE(plugin.Score(state, pod, *handle.snapshot().Get("n"), &score).ok());
  EXPECT_EQ(score, 2);
}

TEST(TaintTolerationTest, NodeChangeHint) {
  TaintToleration plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, EventResource::kNode);
  EXPECT_EQ(events[0].event.action, ActionType::kAdd | ActionType::kUpdateNodeTaint);
  const QueueingHintFn& hint = events[0].hint;

  api::Pod pod = MakePod().Name("p").Toleration("foo", "Equal", "bar", "NoSchedule").Obj();
  api::Node clean = MakeNode().Name("n").Obj();
  api::Node tolerated = MakeNode().Name("n").Taint("foo", "bar", "NoSchedule").Obj();
  api::Node untolerated = MakeNode().Name("n").Taint("baz", "bar", "NoSchedule").Obj();
  struct Case {
    std::string name;
    const api::Node* old_node;
    const api::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"tolerated node added", nullptr, &tolerated, QueueingHint::kQueue},
      {"untolerated node added", nullptr, &untolerated, QueueingHint::kQueueSkip},
      {"untolerated taint removed", &untolerated, &clean, QueueingHint::kQueue},
      {"untolerated taint replaced by a tolerated one", &untolerated, &tolerated,
       QueueingHint::kQueue},
      {"tolerated node stays tolerated", &clean, &tolerated, QueueingHint::kQueueSkip},
      {"tolerated node becomes untolerated", &tolerated, &untolerated, QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    ClusterEventData e{.old_node = c.old_node, .new_node = c.new_node};
    EXPECT_EQ(hint(pod, e), c.want) << c.name;
  }
}

TEST(TaintTolerationTest, PodTolerationChangeHint) {
  TaintToleration plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].event.resource, EventResource::kPod);
  EXPECT_EQ(events[1].event.action, ActionType::kUpdatePodToleration);
  api::Pod pod = MakePod().Name("p").UID("u1").Obj();
  api::Pod same = MakePod().Name("p").UID("u1").Toleration("foo", "Exists").Obj();
  api::Pod other = MakePod().Name("q").UID("u2").Toleration("foo", "Exists").Obj();
  ClusterEventData same_event{.old_pod = &pod, .new_pod = &same};
  ClusterEventData other_event{.old_pod = &other, .new_pod = &other};
  EXPECT_EQ(events[1].hint(pod, same_event), QueueingHint::kQueue);
  EXPECT_EQ(events[1].hint(pod, other_event), QueueingHint::kQueueSkip);
}

TEST(TaintTolerationTest, FactoryBuildsNamedPlugin) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "TaintToleration");
}

}  // namespace
}  // namespace ksched::plugins::taint_toleration
