#include "ksched/status.h"

#include <gtest/gtest.h>

#include "ksched/cycle_state.h"
#include "ksched/events.h"
#include "ksched/registry.h"

namespace ksched {
namespace {

TEST(StatusTest, SuccessByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kSuccess);
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.Message(), "");
}

TEST(StatusTest, ReasonsJoinIntoMessage) {
  Status s(Code::kUnschedulable, {"Insufficient cpu", "Insufficient memory"});
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsRejected());
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory");
  Status tagged = s.WithPlugin("NodeResourcesFit");
  EXPECT_EQ(tagged.plugin(), "NodeResourcesFit");
  EXPECT_EQ(tagged.Message(), s.Message());
  EXPECT_EQ(s.plugin(), "");
}

TEST(StatusTest, RejectedCodes) {
  EXPECT_TRUE(Status(Code::kUnschedulableAndUnresolvable).IsRejected());
  EXPECT_TRUE(Status(Code::kPending).IsRejected());
  EXPECT_FALSE(Status::Error("boom").IsRejected());
  EXPECT_FALSE(Status::Skip().IsRejected());
  EXPECT_TRUE(Status::Skip().IsSkip());
  EXPECT_EQ(CodeName(Code::kUnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
}

struct Counter : StateData {
  int n = 0;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<Counter>(*this); }
};
constexpr StateKey<Counter> kCounter{"counter"};

TEST(CycleStateTest, TypedReadWriteAndClone) {
  CycleState state;
  EXPECT_EQ(state.Read(kCounter), nullptr);
  auto c = std::make_unique<Counter>();
  c->n = 3;
  state.Write(kCounter, std::move(c));
  ASSERT_NE(state.Read(kCounter), nullptr);
  EXPECT_EQ(state.Read(kCounter)->n, 3);
  auto copy = state.Clone();
  state.ReadMutable(kCounter)->n = 4;
  EXPECT_EQ(copy->Read(kCounter)->n, 3);
  state.skip_filter_plugins.push_back("NodePorts");
  EXPECT_TRUE(state.ShouldSkipFilter("NodePorts"));
  EXPECT_FALSE(state.ShouldSkipScore("NodePorts"));
}

TEST(EventsTest, MatchesByResourceAndActionBits) {
  ClusterEvent node_add{EventResource::kNode, kAdd};
  ClusterEvent node_taint{EventResource::kNode, kUpdateNodeTaint};
  ClusterEvent registered{EventResource::kNode, kAdd | kUpdateNodeLabel};
  EXPECT_TRUE(Matches(registered, node_add));
  EXPECT_FALSE(Matches(registered, node_taint));
  EXPECT_TRUE(Matches({EventResource::kWildCard, kAll}, node_taint));
  EXPECT_TRUE(Matches({EventResource::kPod, kDelete}, {EventResource::kAssignedPod, kDelete}));
  EXPECT_FALSE(Matches({EventResource::kAssignedPod, kDelete}, {EventResource::kNode, kDelete}));
}

TEST(RegistryTest, DuplicateNameIsAnError) {
  Registry r;
  PluginFactory f = [](const nlohmann::json&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return absl::UnimplementedError("unused");
  };
  ASSERT_TRUE(r.Register("A", f).ok());
  absl::Status dup = r.Register("A", f);
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(std::string(dup.message()), "a plugin named A already exists");
  EXPECT_NE(r.Find("A"), nullptr);
  EXPECT_EQ(r.Find("B"), nullptr);
}

TEST(RegistryTest, ArgsDecodersAreFoundAndMergedWithoutFactories) {
  Registry r;
  ArgsDecoder d = [](const nlohmann::json& args,
                     std::string_view) -> absl::StatusOr<nlohmann::json> {
    nlohmann::json out = args;
    out["defaulted"] = true;
    return out;
  };
  ASSERT_TRUE(r.RegisterArgs("Later", d).ok());
  EXPECT_EQ(r.RegisterArgs("Later", d).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(r.Find("Later"), nullptr);  // Args known before the plugin lands.
  Registry merged;
  ASSERT_TRUE(merged.Merge(r).ok());
  ASSERT_NE(merged.FindArgs("Later"), nullptr);
  EXPECT_EQ((*merged.FindArgs("Later"))(nlohmann::json::object(), "")->dump(),
            R"({"defaulted":true})");
  EXPECT_EQ(merged.FindArgs("Other"), nullptr);
}

}  // namespace
}  // namespace ksched
