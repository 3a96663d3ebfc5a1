#include "src/framework/simulator_trace.h"

#include <gtest/gtest.h>

namespace ksched::framework {
namespace {

std::string Key(const std::string& name) { return kSimulatorAnnotationPrefix + name; }

// The shapes kube-scheduler-simulator's resultstore writes
// (simulator/scheduler/plugin/resultstore): per plugin "success" or the message, per node and
// plugin "passed" or the message, scores as strings, Go's sorted keys and escaping.
TEST(SimulatorTraceTest, AnnotationsHaveTheSimulatorsShapes) {
  SimulatorTrace t;
  t.Plugin(metrics::Point::kPreFilter, "NodeResourcesFit", Status());
  t.Plugin(metrics::Point::kPreFilter, "NodeAffinity", Status(Code::kSkip));
  t.PreFilterResult("NodeAffinity", {"node-a", "node-b"});
  t.Filter("node-a", "NodeResourcesFit",
           Status(Code::kUnschedulable, {"Insufficient cpu", "Insufficient memory"}));
  t.Filter("node-b", "NodeResourcesFit", Status());
  t.Filter("node-b", "TaintToleration",
           Status::UnschedulableAndUnresolvable("node(s) had untolerated taint {a: <b>}"));
  t.PostFilter("DefaultPreemption", {"node-a", "node-b"}, "node-a");
  t.Plugin(metrics::Point::kPreScore, "TaintToleration", Status());
  t.Score("node-a", "NodeResourcesFit", 73);
  t.FinalScore("node-a", "NodeResourcesFit", 73);
  t.FinalScore("node-a", "TaintToleration", 300);
  t.SelectedNode("node-a");
  t.Plugin(metrics::Point::kReserve, "VolumeBinding", Status());
  t.Plugin(metrics::Point::kPermit, "Coscheduling", Status(Code::kWait));
  t.PermitTimeout("Coscheduling", absl::Seconds(90));
  t.Plugin(metrics::Point::kBind, "DefaultBinder", Status());

  const std::map<std::string, std::string> a = t.Annotations();
  EXPECT_EQ(a.size(), 13u);
  EXPECT_EQ(a.at(Key("prefilter-result-status")),
            R"({"NodeAffinity":"","NodeResourcesFit":"success"})");
  EXPECT_EQ(a.at(Key("prefilter-result")), R"({"NodeAffinity":["node-a","node-b"]})");
  EXPECT_EQ(a.at(Key("filter-result")),
            R"({"node-a":{"NodeResourcesFit":"Insufficient cpu, Insufficient memory"},)"
            R"("node-b":{"NodeResourcesFit":"passed",)"
            R"("TaintToleration":"node(s) had untolerated taint {a: \u003cb\u003e}"}})");
  EXPECT_EQ(a.at(Key("postfilter-result")),
            R"({"node-a":{"DefaultPreemption":"preemption victim"},"node-b":{}})");
  EXPECT_EQ(a.at(Key("prescore-result")), R"({"TaintToleration":"success"})");
  EXPECT_EQ(a.at(Key("score-result")), R"({"node-a":{"NodeResourcesFit":"73"}})");
  EXPECT_EQ(a.at(Key("finalscore-result")),
            R"({"node-a":{"NodeResourcesFit":"73","TaintToleration":"300"}})");
  EXPECT_EQ(a.at(Key("reserve-result")), R"({"VolumeBinding":"success"})");
  EXPECT_EQ(a.at(Key("permit-result")), R"({"Coscheduling":"wait"})");
  EXPECT_EQ(a.at(Key("permit-result-timeout")), R"({"Coscheduling":"1m30s"})");
  EXPECT_EQ(a.at(Key("prebind-result")), "{}");
  EXPECT_EQ(a.at(Key("bind-result")), R"({"DefaultBinder":"success"})");
  EXPECT_EQ(a.at(Key("selected-node")), "node-a");
}

TEST(SimulatorTraceTest, ACopyForPreemptionsWhatIfLeavesTheOriginalAlone) {
  SimulatorTrace t;
  t.Filter("node-a", "NodeResourcesFit", Status::Unschedulable("Insufficient cpu"));
  std::unique_ptr<StateData> copy = t.Clone();
  static_cast<const SimulatorTrace&>(*copy).Filter("node-a", "NodeResourcesFit", Status());
  EXPECT_EQ(t.Annotations().at(Key("filter-result")),
            R"({"node-a":{"NodeResourcesFit":"Insufficient cpu"}})");
}

TEST(SimulatorTraceTest, TheHistoryGetsOneEntryPerAttempt) {
  const std::map<std::string, std::string> first = {{Key("selected-node"), ""}};
  const std::string once = AppendResultHistory("", first);
  EXPECT_EQ(once, R"([{"kube-scheduler-simulator.sigs.k8s.io/selected-node":""}])");
  const std::string twice = AppendResultHistory(once, {{Key("selected-node"), "node-a"}});
  EXPECT_EQ(twice, R"([{"kube-scheduler-simulator.sigs.k8s.io/selected-node":""},)"
                   R"({"kube-scheduler-simulator.sigs.k8s.io/selected-node":"node-a"}])");
  EXPECT_EQ(AppendResultHistory("not json", first), "not json");  // As the simulator leaves it.
}

}  // namespace
}  // namespace ksched::framework
