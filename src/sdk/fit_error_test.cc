#include "ksched/fit_error.h"

#include <gtest/gtest.h>

namespace ksched {
namespace {

TEST(FitErrorTest, CountsReasonsAndSortsThemAsGoStrings) {
  FitError fe{.num_all_nodes = 12};
  for (int i = 0; i < 10; ++i) {
    fe.diagnosis.node_to_status.statuses["cpu-" + std::to_string(i)] =
        Status::Unschedulable("Insufficient cpu");
  }
  fe.diagnosis.node_to_status.statuses["t"] =
      Status::UnschedulableAndUnresolvable("node(s) had untolerated taint(s)");
  fe.diagnosis.node_to_status.statuses["both"] =
      Status(Code::kUnschedulable, {"Insufficient cpu", "Insufficient memory"});
  // Byte-wise order puts "11 ..." before "1 ...", as kube-scheduler does.
  EXPECT_EQ(fe.Error(),
            "0/12 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), "
            "11 Insufficient cpu.");
}

TEST(FitErrorTest, AbsentNodesTakeTheAbsentStatus) {
  FitError fe{.num_all_nodes = 3};
  fe.diagnosis.node_to_status.statuses["a"] = Status::Unschedulable("Insufficient cpu");
  fe.diagnosis.node_to_status.absent =
      Status::UnschedulableAndUnresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]");
  EXPECT_EQ(fe.Error(),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity].");
}

TEST(FitErrorTest, PreFilterMessageReplacesCountsAndPostFilterIsAppended) {
  FitError fe{.num_all_nodes = 5};
  fe.diagnosis.pre_filter_msg = "pod affinity terms conflict";
  fe.diagnosis.post_filter_msg = "preemption: not eligible due to preemptionPolicy=Never.";
  EXPECT_EQ(fe.Error(),
            "0/5 nodes are available: pod affinity terms conflict. preemption: not eligible due "
            "to preemptionPolicy=Never.");
}

TEST(DiagnosisTest, RecordsRejectingPlugins) {
  Diagnosis d;
  d.AddPluginStatus(Status::Unschedulable("x").WithPlugin("A"));
  d.AddPluginStatus(Status(Code::kPending, {"y"}).WithPlugin("B"));
  d.AddPluginStatus(Status::Error("z").WithPlugin("C"));  // errors are not rejections
  d.AddPluginStatus(Status::Unschedulable("no plugin"));
  EXPECT_EQ(d.unschedulable_plugins, (std::set<std::string, std::less<>>{"A", "B"}));
  EXPECT_EQ(d.pending_plugins, (std::set<std::string, std::less<>>{"B"}));
}

TEST(TruncateEventMessageTest, LongNotesEndInEllipsis) {
  EXPECT_EQ(TruncateEventMessage("short"), "short");
  std::string long_msg(2000, 'x');
  std::string t = TruncateEventMessage(long_msg);
  EXPECT_EQ(t.size(), 1024u);
  EXPECT_EQ(t.substr(1020), " ...");
}

}  // namespace
}  // namespace ksched
