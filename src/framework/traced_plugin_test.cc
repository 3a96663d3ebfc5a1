#include "src/framework/traced_plugin.h"

#include <gtest/gtest.h>

#include "ksched/async_bind_plugin.h"
#include "src/framework/simulator_trace.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::framework {
namespace {

using ::ksched::testing::FakeHandle;
using ::ksched::testing::MakeNode;
using ::ksched::testing::MakePod;

std::string Key(const std::string& name) { return kSimulatorAnnotationPrefix + name; }

// Filters out node n1, and binds asynchronously, answering when told.
class FilterAndBind : public FilterPlugin, public BindPlugin, public AsyncBindPlugin {
 public:
  std::string_view Name() const override { return "FilterAndBind"; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo& node) override {
    return node.name() == "n1" ? Status::Unschedulable("not n1") : Status();
  }
  Status Bind(CycleState&, const api::Pod&, std::string_view) override { return Status(); }
  void BindAsync(CycleState&, const api::Pod&, std::string_view,
                 std::function<void(Status)> done) override {
    answer = std::move(done);
  }
  std::function<void(Status)> answer;
};

TEST(TracedPluginTest, ServesWhatThePluginServesAndRecordsItsOutcomes) {
  auto own = std::make_unique<FilterAndBind>();
  FilterAndBind* inner = own.get();
  std::unique_ptr<Plugin> traced = TracePlugin(std::move(own));
  EXPECT_EQ(traced->Name(), "FilterAndBind");
  ASSERT_NE(PluginAs<FilterPlugin>(traced.get()), nullptr);
  ASSERT_NE(PluginAs<AsyncBindPlugin>(traced.get()), nullptr);
  EXPECT_EQ(PluginAs<ScorePlugin>(traced.get()), nullptr);
  EXPECT_EQ(PluginAs<PreFilterPlugin>(traced.get()), nullptr);
  EXPECT_EQ(PluginAs<ScoreExtensions>(traced.get()), nullptr);
  EXPECT_EQ(PluginAs<AsyncPreBindPlugin>(traced.get()), nullptr);

  FakeHandle h({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  const api::Pod pod = MakePod().Name("p").Obj();
  CycleState untraced;  // No trace in the state: the answers only.
  EXPECT_FALSE(
      PluginAs<FilterPlugin>(traced.get())->Filter(untraced, pod, *h.snapshot().Get("n1")).ok());

  CycleState state;
  state.Write(kSimulatorTraceKey, std::make_unique<SimulatorTrace>());
  EXPECT_EQ(
      PluginAs<FilterPlugin>(traced.get())->Filter(state, pod, *h.snapshot().Get("n1")).Message(),
      "not n1");
  EXPECT_TRUE(
      PluginAs<FilterPlugin>(traced.get())->Filter(state, pod, *h.snapshot().Get("n2")).ok());
  Status bound = Status::Error("not answered");
  PluginAs<AsyncBindPlugin>(traced.get())->BindAsync(state, pod, "n2", [&](Status s) {
    bound = s;
  });
  EXPECT_EQ(state.Read(kSimulatorTraceKey)->Annotations().at(Key("bind-result")), "{}");
  inner->answer(Status());  // The bind's answer arrives: recorded, then passed on.
  EXPECT_TRUE(bound.ok());

  const std::map<std::string, std::string> a = state.Read(kSimulatorTraceKey)->Annotations();
  EXPECT_EQ(a.at(Key("filter-result")),
            R"({"n1":{"FilterAndBind":"not n1"},"n2":{"FilterAndBind":"passed"}})");
  EXPECT_EQ(a.at(Key("bind-result")), R"({"FilterAndBind":"success"})");
}

}  // namespace
}  // namespace ksched::framework
