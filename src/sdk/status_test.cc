#include "ksched/status.h"

#include <gtest/gtest.h>

#include "ksched/cycle_state.h"
#include "ksched/events.h"
#include "ksched/registry.h"
#include "ksched/version.h"
#include "src/sdk/cycle_state_access.h"
#include "src/testing/fake_handle.h"

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

TEST(StatusTest, WithPluginOnATemporaryLeavesItsCopiesAlone) {
  const Status shared = Status::Unschedulable("node(s) were full");
  Status copy = shared;
  Status tagged = std::move(copy).WithPlugin("NodeResourcesFit");
  EXPECT_EQ(tagged.plugin(), "NodeResourcesFit");
  EXPECT_EQ(shared.plugin(), "");  // A plugin's cached status keeps no plugin name.
  Status fresh = std::move(Status::Unschedulable("taint")).WithPlugin("TaintToleration");
  EXPECT_EQ(fresh.plugin(), "TaintToleration");
  EXPECT_EQ(fresh.Message(), "taint");
  EXPECT_EQ(fresh.code(), Code::kUnschedulable);
  // Tagging again, with the same plugin or another.
  Status again = fresh.WithPlugin("TaintToleration");
  EXPECT_EQ(again.plugin(), "TaintToleration");
  EXPECT_EQ(again.Message(), "taint");
  EXPECT_EQ(again.WithPlugin("NodeName").plugin(), "NodeName");
  EXPECT_EQ(again.plugin(), "TaintToleration");
}

TEST(StatusTest, AnExplanationIsNotPartOfTheMessageAndSurvivesThePluginsName) {
  const Status plain = Status::UnschedulableAndUnresolvable("cannot allocate all claims");
  Status copy = plain;
  Status explained = std::move(copy).WithExplanation("request gpu: 3 wanted, 2 free");
  EXPECT_EQ(explained.Message(), "cannot allocate all claims");
  EXPECT_EQ(explained.explanation(), "request gpu: 3 wanted, 2 free");
  EXPECT_EQ(plain.explanation(), "");  // Its copies keep none.
  Status tagged = explained.WithPlugin("DynamicResources");
  EXPECT_EQ(tagged.explanation(), "request gpu: 3 wanted, 2 free");
  EXPECT_EQ(tagged.plugin(), "DynamicResources");
  EXPECT_TRUE(Status().WithExplanation("why").ok());
  EXPECT_EQ(Status().WithExplanation("why").explanation(), "");
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
  internal::CycleStateAccess::SkipFilter(state, "NodePorts");
  EXPECT_TRUE(state.ShouldSkipFilter("NodePorts"));
  EXPECT_FALSE(state.ShouldSkipScore("NodePorts"));
}

constexpr StateKey<Counter> kCycleCounter{"cycle-counter", StateScope::kSchedulingCycle};

TEST(CycleStateTest, SchedulingCycleValuesAreFreedWhenTheCycleEnds) {
  CycleState state;
  state.Write(kCounter, std::make_unique<Counter>());
  state.Write(kCycleCounter, std::make_unique<Counter>());
  auto copy = state.Clone();  // Preemption's copy keeps both.
  ASSERT_NE(copy->Read(kCycleCounter), nullptr);
  internal::CycleStateAccess::EndSchedulingCycle(state);
  EXPECT_NE(state.Read(kCounter), nullptr);
  EXPECT_EQ(state.Read(kCycleCounter), nullptr);
  internal::CycleStateAccess::EndSchedulingCycle(*copy);
  EXPECT_EQ(copy->Read(kCycleCounter), nullptr);
  EXPECT_NE(copy->Read(kCounter), nullptr);
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
  PluginFactory f = [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return absl::UnimplementedError("unused");
  };
  ASSERT_TRUE(r.Register("A", f).ok());
  absl::Status dup = r.Register("A", f);
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(std::string(dup.message()), "a plugin named A already exists");
  EXPECT_NE(r.Find("A"), nullptr);
  EXPECT_EQ(r.Find("B"), nullptr);
}

// Typed args: decoded once into the plugin's own type, which its factory receives; JSON again
// only for the effective configuration.
struct WeightArgs {
  int weight = 1;
};

absl::StatusOr<WeightArgs> ParseWeightArgs(const nlohmann::json& doc, std::string_view path) {
  WeightArgs out;
  if (doc.contains("weight")) {
    if (!doc["weight"].is_number_integer()) {
      return absl::InvalidArgumentError(std::string(path) + ".weight: expected an integer");
    }
    out.weight = doc["weight"].get<int>();
  }
  return out;
}

nlohmann::json WeightArgsToJson(const WeightArgs& args) { return {{"weight", args.weight}}; }

class Weighted : public Plugin {
 public:
  explicit Weighted(int weight) : weight_(weight) {}
  std::string_view Name() const override { return "Weighted"; }
  int weight() const { return weight_; }

 private:
  int weight_;
};

absl::StatusOr<std::unique_ptr<Plugin>> NewWeighted(const WeightArgs& a, Handle&) {
  return std::make_unique<Weighted>(a.weight);
}

TEST(RegistryTest, TypedArgsAreDecodedOnceAndReachTheFactoryTyped) {
  const PluginSpec spec =
      MakePluginSpec("Weighted", ParseWeightArgs, WeightArgsToJson, NewWeighted);
  const ArgsDecoder& decode = spec.args;
  const PluginFactory& factory = spec.factory;
  absl::StatusOr<std::shared_ptr<const PluginArgs>> args = decode({{"weight", 7}}, "args");
  ASSERT_TRUE(args.ok()) << args.status();
  ASSERT_NE(ArgsAs<WeightArgs>(**args), nullptr);
  EXPECT_EQ(ArgsAs<WeightArgs>(**args)->weight, 7);
  EXPECT_EQ((*decode(nlohmann::json::object(), ""))->ToJson().dump(), R"({"weight":1})");
  EXPECT_EQ(decode({{"weight", "heavy"}}, "args").status().message(),
            "args.weight: expected an integer");

  testing::FakeHandle handle;
  absl::StatusOr<std::unique_ptr<Plugin>> plugin = factory(**args, handle);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ(dynamic_cast<Weighted&>(**plugin).weight(), 7);
  // Args of another type (as written, for a plugin registered without its decoder) are refused.
  EXPECT_EQ(factory(JsonArgs(nlohmann::json{{"weight", 7}}), handle).status().message(),
            "the plugin's args are not of the type its factory takes");
  EXPECT_EQ(ArgsAs<WeightArgs>(JsonArgs()), nullptr);
}

TEST(RegistryTest, OneSpecCarriesTheFactoryAndTheArgsDecoder) {
  Registry r;
  ASSERT_TRUE(
      r.Register(MakePluginSpec("Weighted", ParseWeightArgs, WeightArgsToJson, NewWeighted)).ok());
  ASSERT_TRUE(r.Register("AsWritten",
                         [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                           return std::make_unique<Weighted>(0);
                         })
                  .ok());
  EXPECT_EQ(
      r.Register(MakePluginSpec("Weighted", ParseWeightArgs, WeightArgsToJson, NewWeighted)).code(),
      absl::StatusCode::kAlreadyExists);
  Registry merged;
  ASSERT_TRUE(merged.Merge(r).ok());
  EXPECT_EQ(merged.Names(), (std::vector<std::string>{"AsWritten", "Weighted"}));
  ASSERT_NE(merged.FindArgs("Weighted"), nullptr);
  EXPECT_EQ((*(*merged.FindArgs("Weighted"))({{"weight", 3}}, ""))->ToJson().dump(),
            R"({"weight":3})");
  EXPECT_EQ(merged.FindArgs("AsWritten"), nullptr);  // Its factory gets JsonArgs.
  EXPECT_EQ(merged.FindArgs("Other"), nullptr);
  EXPECT_EQ(merged.Merge(r).code(), absl::StatusCode::kAlreadyExists);
}

TEST(VersionTest, TheRunningSdkIsTheOneTheseHeadersDescribe) {
  EXPECT_EQ(SdkVersion(), KSCHED_SDK_VERSION);
  EXPECT_GE(SdkVersion(), 1);
}

}  // namespace
}  // namespace ksched
