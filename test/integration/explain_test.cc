// `ksched explain` against a ksched that runs against the real control plane: the pod's last
// attempt as ksched serves it on its secure port, to whom RBAC allows, as the README shows it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/testing/command.h"
#include "test/integration/ksched_process_test.h"

namespace ksched::testing {
namespace {

using ::testing::HasSubstr;

class ExplainTest : public KschedProcessTest {
 protected:
  // A kubeconfig that authenticates as service account `ns`/`account` (made here), with a token.
  std::string AccountKubeconfig(const std::string& ns, const std::string& account) {
    (void)cluster().Kubectl({"create", "namespace", ns});
    EXPECT_EQ(cluster().Kubectl({"create", "serviceaccount", account, "-n", ns}).exit_code, 0);
    CommandResult token = cluster().Kubectl({"create", "token", account, "-n", ns});
    EXPECT_EQ(token.exit_code, 0) << token.err;
    while (!token.out.empty() && std::isspace(token.out.back())) token.out.pop_back();
    json admin = json::parse(
        cluster().Kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out, nullptr,
        false);
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

TEST_F(ExplainTest, APendingPodsReasonsAreServedToWhomRbacAllowsAndEqualItsEvent) {
  // deploy/'s ClusterRole ksched:explain, bound to one service account.
  CommandResult rbac = cluster().Kubectl(
      {"apply", "-f", std::string(KSCHED_SOURCE_DIR) + "/deploy/rbac.yaml"});
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
      cluster().Kubectl({"create", "role", "pod-reader", "-n", "shop", "--verb=get", "--resource=pods"})
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
    for (const json& e : w["events"]) node_add = node_add || e.get<std::string>().starts_with("Node");
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
  ASSERT_TRUE(Eventually(
      [&] { return Get({"pod", "huge", "-n", "shop"})["spec"].value("nodeName", "") == "big"; }));
  r = Explain("shop/huge", allowed, "json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out, nullptr, false);
  EXPECT_EQ(j["result"], "Scheduled");
  EXPECT_EQ(j["node"], "big");
  EXPECT_EQ(j["nodes"]["feasible"], 1);
  EXPECT_EQ(j["rejected"].size(), 2u);
}

}  // namespace
}  // namespace ksched::testing
