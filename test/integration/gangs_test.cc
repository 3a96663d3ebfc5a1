// Gangs on the real control plane (--feature-gates=GenericWorkload=true, as kube-apiserver serves
// scheduling.k8s.io/v1beta1 PodGroups): ksched holds a gang until minCount of its pods exist,
// places none of it while minCount do not fit, says why on each pod, and places it once its
// PodGroup's minCount is lowered to what fits; the PodGroup's condition says which, as upstream's.
// A gang of higher priority preempts a gang disrupted as a whole, and the metrics count it. A
// standby that takes over from a leader killed mid-gang binds the gang whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "src/testing/metrics_text.h"
#include "src/testing/toxiproxy.h"
#include "test/integration/ksched_process_test.h"
#include "test/integration/serve.h"

namespace ksched::testing {
namespace {

const bool kServesPodGroups =
    (SharedControlPlaneOptions().apiserver_flags =
         "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true "
         "--runtime-config=scheduling.k8s.io/v1beta1=true",
     true);

json Gang(const std::string& ns, const std::string& name, int min_count) {
  return {{"apiVersion", "scheduling.k8s.io/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", min_count}}}}}}}};
}

json Member(const std::string& ns, const std::string& name, const std::string& group) {
  json pod = Pod(ns, name, "1");
  pod["spec"]["schedulingGroup"] = {{"podGroupName", group}};
  return pod;
}

class GangsTest : public KschedProcessTest {
 protected:
  std::string NodeOf(const std::string& ns, const std::string& pod) {
    return Get({"pod", pod, "-n", ns})["spec"].value("nodeName", "");
  }
  // The PodGroup's PodGroupInitiallyScheduled condition once its status is `status`; null if it
  // did not come to that.
  json InitiallyScheduled(const std::string& ns, const std::string& group,
                          const std::string& status) {
    json cond;
    Eventually([&] {
      for (const json& c :
           Get({"podgroup", group, "-n", ns})["status"].value("conditions", json::array())) {
        if (c["type"] == "PodGroupInitiallyScheduled" && c["status"] == status) cond = c;
      }
      return cond.is_object();
    });
    return cond;
  }
};

TEST_F(GangsTest, AGangIsPlacedWholeOrNotAtAll) {
  ASSERT_TRUE(kServesPodGroups);
  const std::string ns = "gangs";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  Create(Node("gangs-a", "2"));
  StartKsched({"--feature-gates=GenericWorkload=true"});
  Create(Gang(ns, "train", 3));
  Create(Member(ns, "train-0", "train"));
  Create(Member(ns, "train-1", "train"));
  // Two of three: held at PreEnqueue, with nothing said on the pods, as upstream.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_TRUE(Events(ns).empty());
  EXPECT_EQ(NodeOf(ns, "train-0"), "");

  // The third arrives; two fit the node's 2 CPUs, the gang needs three: none is placed.
  Create(Member(ns, "train-2", "train"));
  const json fitted = PodScheduledCondition(ns, "train-0");
  ASSERT_TRUE(fitted.is_object());
  EXPECT_EQ(fitted.value("reason", ""), "Unschedulable");
  EXPECT_EQ(fitted.value("message", ""),
            "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 "
            "remaining, pod group preemption: No preemption victims found for incoming preemptor");
  const json left = PodScheduledCondition(ns, "train-2");
  ASSERT_TRUE(left.is_object());
  EXPECT_EQ(left.value("message", ""), "0/1 nodes are available: 1 Insufficient cpu.");
  for (const char* pod : {"train-0", "train-1", "train-2"}) EXPECT_EQ(NodeOf(ns, pod), "") << pod;
  const json unschedulable = InitiallyScheduled(ns, "train", "False");
  ASSERT_TRUE(unschedulable.is_object());
  EXPECT_EQ(unschedulable.value("reason", ""), "Unschedulable");
  EXPECT_EQ(unschedulable.value("message", ""),
            "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No "
            "preemption victims found for incoming preemptor");

  // minCount lowered to what fits: two are placed, the third still says why it is not.
  CommandResult r = cluster().Kubectl({"patch", "podgroup", "train", "-n", ns, "--type=merge", "-p",
                                       R"({"spec":{"schedulingPolicy":{"gang":{"minCount":2}}}})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Eventually([&] {
    int placed = 0;
    for (const char* pod : {"train-0", "train-1", "train-2"}) placed += !NodeOf(ns, pod).empty();
    return placed == 2;
  }));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  int placed = 0;
  for (const char* pod : {"train-0", "train-1", "train-2"}) placed += !NodeOf(ns, pod).empty();
  EXPECT_EQ(placed, 2);
  const json scheduled = InitiallyScheduled(ns, "train", "True");
  ASSERT_TRUE(scheduled.is_object());
  EXPECT_EQ(scheduled.value("reason", ""), "Scheduled");
}

// With TopologyAwareWorkloadScheduling on (in the API server too, or it drops the field), a gang
// confined to a rack lands in one rack, the one it fills most (3 CPUs of r1's 4, against 3 of
// r2's 6), and the placements tried are counted. The API server refuses what simulate's check of
// the constraints refuses, in the same words (src/sim/validation_test.cc).
TEST_F(GangsTest, AGangConfinedToARackLandsInTheRackItFillsMost) {
  ASSERT_TRUE(kServesPodGroups);
  const std::string ns = "gangs-tas";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  std::map<std::string, std::string> rack_of;
  for (const auto& [name, rack] :
       {std::pair{"tas-a1", "r1"}, std::pair{"tas-a2", "r1"}, std::pair{"tas-b1", "r2"},
        std::pair{"tas-b2", "r2"}, std::pair{"tas-b3", "r2"}}) {
    json node = Node(name, "2");
    node["metadata"]["labels"]["example.com/rack"] = rack;
    Create(node);
    rack_of[name] = rack;
  }
  const std::vector<std::pair<json, std::string>> refusals = {
      {json::array({{{"key", ""}}, {{"key", "example.com/rack"}}}),
       "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"},
      {json::array({{{"key", ""}}}), "spec.schedulingConstraints.topology[0].key: Required value"},
      {json::array({{{"key", "Rack!"}}}),
       "spec.schedulingConstraints.topology[0].key: Invalid value: \"Rack!\": name part must "
       "consist of alphanumeric characters"}};
  for (const auto& [topology, message] : refusals) {
    json bad = Gang(ns, "bad", 1);
    bad["spec"]["schedulingConstraints"] = {{"topology", topology}};
    CommandResult refused = cluster().Kubectl({"create", "-f", "-"}, bad.dump());
    ASSERT_NE(refused.exit_code, 0) << bad.dump();
    EXPECT_THAT(refused.err, ::testing::HasSubstr(message));
  }

  StartKsched({"--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true",
               "--authorization-always-allow-paths=/metrics"});
  json train = Gang(ns, "train", 3);
  train["spec"]["schedulingConstraints"] = {{"topology", {{{"key", "example.com/rack"}}}}};
  Create(train);
  const std::vector<std::string> pods = {"train-0", "train-1", "train-2"};
  for (const std::string& p : pods) Create(Member(ns, p, "train"));
  ASSERT_TRUE(Eventually([&] {
    for (const std::string& p : pods) {
      if (NodeOf(ns, p).empty()) return false;
    }
    return true;
  }));
  for (const std::string& p : pods) EXPECT_EQ(rack_of[NodeOf(ns, p)], "r1") << p;
  EXPECT_TRUE(InitiallyScheduled(ns, "train", "True").is_object());

  httplib::Result m = ServeHttps(secure_port_, "/metrics");
  ASSERT_TRUE(m) << "no /metrics";
  // Each rack tried (and the pods earlier tests left pending here, in one placement each).
  EXPECT_GE(Sample(m->body, R"(scheduler_generated_placements_total{profile="default-scheduler"})"),
            2);
  EXPECT_GE(Sample(m->body, R"(scheduler_placement_evaluations_total{profile="default-scheduler",)"
                            R"(result="feasible"})"),
            2);
}

// upstream's WorkloadAwarePreemption e2e test's shape: the gang victim (priority 100, disrupted
// as a whole) fills a node; the one pod of the gang pre (priority 1000) fits only there. Both of
// victim's pods go, with events that name pre's PodGroup, and pre's pod takes the node.
TEST_F(GangsTest, AGangPreemptsALowerPriorityGangWhole) {
  ASSERT_TRUE(kServesPodGroups);
  const std::string ns = "gang-preemption";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  for (auto [name, value] : {std::pair{"gangs-low", 100}, std::pair{"gangs-high", 1000}}) {
    Create({{"apiVersion", "scheduling.k8s.io/v1"},
            {"kind", "PriorityClass"},
            {"metadata", {{"name", name}}},
            {"value", value}});
  }
  Create(Node("gangs-b", "2"));
  json victim = Gang(ns, "victim", 2);
  victim["spec"]["priorityClassName"] = "gangs-low";
  victim["spec"]["disruptionMode"] = {{"all", json::object()}};
  Create(victim);
  for (const char* name : {"v-0", "v-1"}) {
    json pod = Member(ns, name, "victim");
    pod["spec"]["priorityClassName"] = "gangs-low";
    pod["spec"]["nodeName"] = "gangs-b";
    pod["spec"]["terminationGracePeriodSeconds"] = 0;  // No kubelet here finishes a deletion.
    Create(pod);
  }
  StartKsched(
      {"--feature-gates=GenericWorkload=true", "--authorization-always-allow-paths=/metrics"});
  json pre = Gang(ns, "pre", 1);
  pre["spec"]["priorityClassName"] = "gangs-high";
  Create(pre);
  json hp = Member(ns, "hp-0", "pre");
  hp["spec"]["priorityClassName"] = "gangs-high";
  hp["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "gangs-b"}};
  Create(hp);

  ASSERT_TRUE(Eventually([&] { return NodeOf(ns, "hp-0") == "gangs-b"; }));
  for (const char* name : {"v-0", "v-1"}) {
    CommandResult r = cluster().Kubectl({"get", "pod", name, "-n", ns});
    EXPECT_NE(r.exit_code, 0) << name << " is still there";
  }
  const std::string uid = Get({"podgroup", "pre", "-n", ns})["metadata"].value("uid", "");
  int preempted = 0;
  for (const json& e : Events(ns)) {
    if (e["reason"] != "Preempted") continue;
    ++preempted;
    EXPECT_EQ(e.value("note", ""), "Preempted by podgroup " + uid + " on node cluster");
  }
  EXPECT_EQ(preempted, 2);
  EXPECT_TRUE(InitiallyScheduled(ns, "pre", "True").is_object());

  httplib::Result m = ServeHttps(secure_port_, "/metrics");
  ASSERT_TRUE(m) << "no /metrics";
  // One preemption (a cycle while the victims went may have found it still going: Success too),
  // of two pods, one PodGroup.
  EXPECT_GE(Sample(m->body, R"(scheduler_workload_preemption_attempts_total{result="Success"})"),
            1);
  EXPECT_EQ(Sample(m->body, "scheduler_workload_preemption_victims_sum"), 2);
  EXPECT_EQ(
      Sample(m->body, R"(scheduler_preemption_workload_disruptions_sum{preemptor="podgroup"})"), 1);
  const std::string attempts =
      R"(scheduler_podgroup_schedule_attempts_total{profile="default-scheduler",result=)";
  EXPECT_GE(Sample(m->body, attempts + R"("waiting_on_preemption"})"), 1);
  EXPECT_GE(
      Sample(
          m->body,
          R"(scheduler_preemption_evaluation_duration_seconds_count{preemptor="podgroup",result="Success"})"),
      1);
  EXPECT_EQ(
      Sample(
          m->body,
          R"(scheduler_preemption_execution_duration_seconds_count{preemptor="podgroup",result="success"})"),
      1);
  EXPECT_GE(Sample(m->body, attempts + R"("scheduled"})"), 1);
}

// A leader killed while a gang of four is on its way to the API server (placed, its binds held
// back by a slow link): the standby takes the lease and binds the gang whole, whatever of it the
// dead leader's binds left.
TEST_F(GangsTest, ANewLeaderBindsTheWholeGangThatItsKilledPredecessorHadPlaced) {
  ASSERT_TRUE(kServesPodGroups);
  const std::string ns = "gang-leader";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  Create(Node("gangs-c", "4"));
  Create(Node("gangs-d", "4"));
  absl::StatusOr<std::unique_ptr<Toxiproxy>> proxy =
      Toxiproxy::Start(cluster().api_port(), cluster().dir() + "/toxiproxy-gang-leader.log");
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  const std::vector<std::string> election = {
      "--feature-gates=GenericWorkload=true",       "--leader-elect=true",
      "--leader-elect-resource-name=gang-leader",   "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=5s",           "--leader-elect-retry-period=1s",
      "--authorization-always-allow-paths=/metrics"};
  std::vector<std::string> slow = election;
  slow.push_back(fmt::format("--master=https://127.0.0.1:{}", (*proxy)->port()));
  Process* leader = StartKsched(slow);
  const int leader_port = secure_port_;
  ASSERT_TRUE(Eventually(
      [&] { return leader->Log().find("Successfully acquired lease") != std::string::npos; }));
  Process* standby = StartKsched(election);
  ASSERT_TRUE(Eventually([&] {
    return standby->Log().find("Attempting to acquire leader lease") != std::string::npos;
  }));
  // Every request of the leader now reaches the API server a second late.
  ASSERT_TRUE((*proxy)
                  ->Call("POST", "/proxies/apiserver/toxics",
                         {{"name", "late"},
                          {"type", "latency"},
                          {"stream", "upstream"},
                          {"attributes", {{"latency", 1000}}}})
                  .is_object());

  Create(Gang(ns, "train", 4));
  const std::vector<std::string> members = {"w-0", "w-1", "w-2", "w-3"};
  for (const std::string& name : members) Create(Member(ns, name, "train"));
  auto bound = [&] {
    int n = 0;
    const json pods = Get({"pods", "-n", ns});
    for (const json& p : pods["items"]) n += p["spec"].contains("nodeName");
    return n;
  };
  // The leader has placed the gang: it is killed before its binds land.
  const std::string placed =
      R"(scheduler_podgroup_schedule_attempts_total{profile="default-scheduler",result="scheduled"})";
  bool was_placed = false;
  for (int i = 0; i < 600 && !was_placed; ++i) {
    httplib::Result m = ServeHttps(leader_port, "/metrics");
    was_placed = m && Sample(m->body, placed) >= 1;
    if (!was_placed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(was_placed) << "the leader did not place the gang";
  ASSERT_EQ(leader->Stop(SIGKILL), 128 + SIGKILL);
  EXPECT_LT(bound(), 4) << "the whole gang was bound before the leader was killed";

  ASSERT_TRUE(Eventually([&] { return bound() == 4; })) << "the gang was left part-bound";
  EXPECT_NE(standby->Log().find("Successfully acquired lease"), std::string::npos);
  std::map<std::string, int> per_node;
  const json pods = Get({"pods", "-n", ns});
  for (const json& p : pods["items"]) per_node[p["spec"]["nodeName"]]++;
  for (const auto& [node, n] : per_node) EXPECT_LE(n, 4) << node << " holds more than its cpu";
  const json scheduled = InitiallyScheduled(ns, "train", "True");
  ASSERT_TRUE(scheduled.is_object());
  EXPECT_EQ(scheduled.value("reason", ""), "Scheduled");
}

}  // namespace
}  // namespace ksched::testing
