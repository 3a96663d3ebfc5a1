// ksched against a live cluster on the real control plane, as the README shows it: `ksched explain`
// asks a running ksched about a pod's last attempt, on its secure port, as RBAC allows;
// `ksched simulate --kubeconfig` runs what-ifs on a snapshot of the cluster, changing nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/testing/command.h"
#include "test/integration/ksched_process_test.h"

namespace ksched::testing {
namespace {

using ::testing::HasSubstr;

class LiveTest : public KschedProcessTest {
 protected:
  // A kubeconfig that authenticates as service account `ns`/`account` (made here), with a token.
  std::string AccountKubeconfig(const std::string& ns, const std::string& account) {
    (void)cluster().Kubectl({"create", "namespace", ns});
    EXPECT_EQ(cluster().Kubectl({"create", "serviceaccount", account, "-n", ns}).exit_code, 0);
    CommandResult token = cluster().Kubectl({"create", "token", account, "-n", ns});
    EXPECT_EQ(token.exit_code, 0) << token.err;
    while (!token.out.empty() && std::isspace(token.out.back())) token.out.pop_back();
    json admin =
        json::parse(cluster().Kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out,
                    nullptr, false);
    json kc = {{"apiVersion", "v1"},
               {"kind", "Config"},
               {"current-context", account},
               {"clusters", admin["clusters"]},
               {"users", {{{"name", account}, {"user", {{"token", token.out}}}}}},
               {"contexts",
                {{{"name", account},
                  {"context", {{"cluster", admin["clusters"][0]["name"]}, {"user", account}}}}}}};
    std::string path = fmt::format("{}/{}-{}.kubeconfig", cluster().dir(), ns, account);
    std::ofstream(path) << kc.dump();
    return path;
  }

  CommandResult Explain(const std::string& pod, const std::string& kubeconfig,
                        const std::string& output = "table") {
    return RunCommand({binary_, "explain", pod, "--server",
                       fmt::format("https://127.0.0.1:{}", secure_port_),
                       "--insecure-skip-tls-verify", "--kubeconfig", kubeconfig, "-o", output});
  }
};

TEST_F(LiveTest, APendingPodsReasonsAreServedToWhomRbacAllowsAndEqualItsEvent) {
  // deploy/'s ClusterRole ksched:explain, bound to one service account.
  CommandResult rbac =
      cluster().Kubectl({"apply", "-f", std::string(KSCHED_SOURCE_DIR) + "/deploy/rbac.yaml"});
  ASSERT_EQ(rbac.exit_code, 0) << rbac.err;
  const std::string allowed = AccountKubeconfig("explain", "oncall");
  const std::string refused = AccountKubeconfig("explain", "visitor");
  ASSERT_EQ(cluster()
                .Kubectl({"create", "clusterrolebinding", "oncall-explain",
                          "--clusterrole=ksched:explain", "--serviceaccount=explain:oncall"})
                .exit_code,
            0);
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "shop"}).exit_code, 0);
  // Who may read the pods too: explain then tells a missing pod from one it has no record of.
  ASSERT_EQ(
      cluster()
          .Kubectl({"create", "role", "pod-reader", "-n", "shop", "--verb=get", "--resource=pods"})
          .exit_code,
      0);
  ASSERT_EQ(cluster()
                .Kubectl({"create", "rolebinding", "oncall-pods", "-n", "shop", "--role=pod-reader",
                          "--serviceaccount=explain:oncall"})
                .exit_code,
            0);
  Create(Node("small-1", "2"));
  Create(Node("small-2", "2"));
  Create(Node("tainted", "64",
              json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}})));
  StartKsched();
  Create(Pod("shop", "huge", "32"));
  const std::string note = FailedSchedulingNote("shop");
  ASSERT_THAT(note, HasSubstr("Insufficient cpu"));

  // JSON: the event's message, and per node the plugin that rejected it.
  CommandResult r = Explain("shop/huge", allowed, "json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["result"], "Unschedulable");
  EXPECT_EQ(j["message"], note);
  EXPECT_EQ(j["nodes"]["total"], 3);
  EXPECT_EQ(j["nodes"]["rejected"], 3);
  ASSERT_EQ(j["rejected"].size(), 2u) << j.dump();
  EXPECT_EQ(j["rejected"][0]["plugin"], "NodeResourcesFit");
  EXPECT_EQ(j["rejected"][0]["reasons"], json::array({"Insufficient cpu"}));
  EXPECT_EQ(j["rejected"][0]["nodes"], json::array({"small-1", "small-2"}));
  EXPECT_EQ(j["rejected"][1]["plugin"], "TaintToleration");
  EXPECT_EQ(j["rejected"][1]["nodes"], json::array({"tainted"}));
  // What may help: NodeResourcesFit waits for nodes and for pods to go.
  bool node_add = false;
  for (const json& w : j["waitingFor"]) {
    if (w["plugin"] != "NodeResourcesFit") continue;
    for (const json& e : w["events"])
      node_add = node_add || e.get<std::string>().starts_with("Node");
  }
  EXPECT_TRUE(node_add) << j["waitingFor"].dump();

  // The table and YAML say the same.
  r = Explain("shop/huge", allowed);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Result:   Unschedulable\n"));
  // 32 CPUs are more than the small nodes have at all: no preemption could help there.
  EXPECT_THAT(r.out, HasSubstr("  NodeResourcesFit (UnschedulableAndUnresolvable), 2 node(s): "
                               "Insufficient cpu\n    small-1, small-2\n"));
  r = Explain("shop/huge", allowed, "yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("result: Unschedulable\n"));

  // Refused: the message names who was refused.
  r = Explain("shop/huge", refused);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("refused the request: forbidden: User "
                               "\"system:serviceaccount:explain:visitor\" cannot get path "
                               "\"/debug/pods/shop/huge\""));
  // A pod that does not exist, and one ksched never saw (another scheduler's).
  r = Explain("shop/nothing", allowed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "ksched explain: pod shop/nothing does not exist\n");
  Create(Pod("shop", "elsewhere", "1", "other-scheduler"));
  r = Explain("shop/elsewhere", allowed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no scheduling attempt of pod shop/elsewhere is kept"));

  // Once it fits, the record says where it went and how the nodes scored.
  Create(Node("big", "64"));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "huge", "-n", "shop"})["spec"].value("nodeName", "") == "big";
  }));
  r = Explain("shop/huge", allowed, "json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out, nullptr, false);
  EXPECT_EQ(j["result"], "Scheduled");
  EXPECT_EQ(j["node"], "big");
  EXPECT_EQ(j["nodes"]["feasible"], 1);
  EXPECT_EQ(j["rejected"].size(), 2u);
}

// `--simulator-annotations` on a real API server: the annotations land on the pods, bound or
// pending, with the simulator's shapes, and writing them does not send the pending pod round again.
TEST_F(LiveTest, SimulatorAnnotationsLandOnBoundAndPendingPods) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "sim"}).exit_code, 0);
  Create(Node("sim-node", "4"));
  StartKsched({"--simulator-annotations"});
  Create(Pod("sim", "fits", "1"));
  Create(Pod("sim", "too-big", "64"));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "fits", "-n", "sim"})["spec"].value("nodeName", "") != "";
  }));
  const std::string k = "kube-scheduler-simulator.sigs.k8s.io/";
  json annotations;
  ASSERT_TRUE(Eventually([&] {
    annotations =
        Get({"pod", "fits", "-n", "sim"})["metadata"].value("annotations", json::object());
    return annotations.contains(k + "bind-result");
  }));
  EXPECT_EQ(annotations[k + "selected-node"], "sim-node");
  EXPECT_EQ(annotations[k + "bind-result"], R"({"DefaultBinder":"success"})");
  json filter = json::parse(annotations[k + "filter-result"].get<std::string>());
  EXPECT_EQ(filter["sim-node"]["NodeResourcesFit"], "passed");
  EXPECT_EQ(json::parse(annotations[k + "result-history"].get<std::string>()).size(), 1u);

  ASSERT_TRUE(Eventually([&] {
    annotations =
        Get({"pod", "too-big", "-n", "sim"})["metadata"].value("annotations", json::object());
    return annotations.contains(k + "filter-result");
  }));
  filter = json::parse(annotations[k + "filter-result"].get<std::string>());
  EXPECT_EQ(filter["sim-node"]["NodeResourcesFit"], "Insufficient cpu");
  EXPECT_EQ(annotations[k + "selected-node"], "");
  // The patch is a pod update: it must not make the pending pod be tried again and again.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  int attempts = 0;
  for (const json& e : Events("sim")) {  // A repeated event counts in its series.
    if (e["reason"] != "FailedScheduling") continue;
    attempts += e.contains("series") ? e["series"].value("count", 1) : 1;
  }
  EXPECT_EQ(attempts, 1);
  annotations = Get({"pod", "too-big", "-n", "sim"})["metadata"]["annotations"];
  EXPECT_EQ(json::parse(annotations[k + "result-history"].get<std::string>()).size(), 1u);
}

// A pod of `cpu` bound to `node` (or pending, with node ""), in namespace default.
json BoundPod(const std::string& name, const std::string& node, const std::string& cpu,
              const std::string& priority_class = "") {
  json pod = Pod("default", name, cpu);
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  if (!priority_class.empty()) pod["spec"]["priorityClassName"] = priority_class;
  return pod;
}

// 20 nodes of 8 CPUs hold 2,000 pods of 10m (100 each, priority 0) and, but for node-0, fillers
// (priority 1000) that leave 2 CPUs free on node-1 and node-2 and 400m on the others; node-0 also
// holds three pods of 2 CPUs (priority 1000). What would draining node-0 do? Its big pods find
// room on node-1 and node-2, one each, and the third stays pending (no pod of lower priority is in
// the way enough to preempt); the small ones fit in the 400m gaps. ksched simulate says so from a
// snapshot, changing nothing; then the drain is done for real (cordon, the pods deleted and made
// again as their controllers would), and ksched places them as predicted, with the same message.
TEST_F(LiveTest, ADrainsWhatIfOnASnapshotIsWhatKschedThenDoes) {
  // The control plane is shared with the tests before: this cluster is made of its own nodes.
  ASSERT_EQ(cluster().Kubectl({"delete", "nodes", "--all"}).exit_code, 0);
  ASSERT_EQ(
      cluster().Kubectl({"delete", "pods", "--all", "-A", "--grace-period=0", "--force"}).exit_code,
      0);
  CommandResult pc = cluster().Kubectl(
      {"create", "priorityclass", "high", "--value=1000", "--description=what-if"});
  ASSERT_EQ(pc.exit_code, 0) << pc.err;
  json items = json::array();
  for (int n = 0; n < 20; ++n) items.push_back(Node(fmt::format("node-{}", n), "8"));
  for (int i = 0; i < 2000; ++i) {
    items.push_back(BoundPod(fmt::format("small-{}", i), fmt::format("node-{}", i % 20), "10m"));
  }
  for (int n = 1; n < 20; ++n) {
    items.push_back(BoundPod(fmt::format("filler-{}", n), fmt::format("node-{}", n),
                             n <= 2 ? "5" : "6600m", "high"));
  }
  for (int i = 0; i < 3; ++i)
    items.push_back(BoundPod(fmt::format("big-{}", i), "node-0", "2", "high"));
  CommandResult made = cluster().Kubectl(
      {"create", "-f", "-"}, json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
  ASSERT_EQ(made.exit_code, 0) << made.err;

  const absl::Time start = absl::Now();
  CommandResult r = RunCommand({binary_, "simulate", "--kubeconfig", cluster().kubeconfig(),
                                "--drain", "node-0", "-o", "json"});
  const absl::Duration took = absl::Now() - start;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json predicted = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(predicted.is_object()) << r.out;
  std::cerr << "simulate --kubeconfig --drain on 20 nodes and 2,022 pods took " << took << "\n";
  std::map<std::string, std::string> where;  // big pods → node, or "" when pending
  std::string pending_message;
  int small_pending = 0;
  for (const json& p : predicted["pods"]) {
    const std::string name = p["name"];
    if (name.starts_with("big-")) {
      where[name] = p["node"].is_string() ? p["node"].get<std::string>() : "";
      if (!p["node"].is_string()) pending_message = p.value("message", "");
    } else if (!p["node"].is_string()) {
      ++small_pending;
    }
  }
  EXPECT_EQ(predicted["pods"].size(), 103u);  // node-0's 100 small and 3 big pods.
  EXPECT_EQ(small_pending, 0);
  std::multiset<std::string> big_nodes;
  for (const auto& [pod, node] : where) big_nodes.insert(node);
  EXPECT_EQ(big_nodes, (std::multiset<std::string>{"", "node-1", "node-2"}));
  EXPECT_THAT(pending_message, HasSubstr("1 node(s) were unschedulable"));
  EXPECT_EQ(predicted["summary"]["moved"].size(), 103u);
  EXPECT_EQ(predicted["summary"]["nodes"][0]["name"], "node-0");
  EXPECT_EQ(predicted["summary"]["nodes"][0]["cpu"]["requestedBefore"], "7");
  EXPECT_EQ(predicted["summary"]["nodes"][0]["cpu"]["requestedAfter"], "0");
  // Nothing changed in the cluster.
  EXPECT_FALSE(Get({"node", "node-0"})["spec"].value("unschedulable", false));
  EXPECT_EQ(Get({"pod", "big-0"})["spec"].value("nodeName", ""), "node-0");

  // The drain, for real, and ksched.
  ASSERT_EQ(cluster().Kubectl({"cordon", "node-0"}).exit_code, 0);
  json again = json::array();
  for (const json& p : predicted["pods"]) {
    const std::string name = p["name"];
    again.push_back(name.starts_with("big-") ? BoundPod(name, "", "2", "high")
                                             : BoundPod(name, "", "10m"));
  }
  std::vector<std::string> del = {"delete", "pod", "--grace-period=0", "--force", "--wait=false"};
  for (const json& p : predicted["pods"]) del.push_back(p["name"]);
  ASSERT_EQ(cluster().Kubectl(del).exit_code, 0);
  ASSERT_TRUE(Eventually([&] {
    return cluster().Kubectl({"get", "pod", "big-0"}).exit_code != 0;
  }));
  StartKsched();
  made = cluster().Kubectl({"create", "-f", "-"},
                           json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", again}}.dump());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::string actual_message;
  // Until one pod is left pending (the API server filters: 2,000 pods are not sent each time).
  ASSERT_TRUE(Eventually([&] {
    CommandResult pending =
        cluster().Kubectl({"get", "pods", "--field-selector=spec.nodeName=", "-o", "name"});
    return pending.exit_code == 0 && std::count(pending.out.begin(), pending.out.end(), '\n') == 1;
  }));
  std::multiset<std::string> real_big_nodes;
  for (int i = 0; i < 3; ++i) {
    json p = Get({"pod", fmt::format("big-{}", i)});
    const std::string node = p["spec"].value("nodeName", "");
    real_big_nodes.insert(node);
    if (node.empty())
      actual_message = PodScheduledCondition("default", fmt::format("big-{}", i))["message"];
  }
  EXPECT_EQ(real_big_nodes, big_nodes);
  EXPECT_EQ(actual_message, pending_message);
}

}  // namespace
}  // namespace ksched::testing
