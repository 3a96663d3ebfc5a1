// The control plane the integration tests and benchmarks run against: a real kube-apiserver on a
// real etcd, as scripts/cluster.sh starts them, with kubectl as the client.
#include "src/testing/control_plane.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

#include "nlohmann/json.hpp"
#include "src/testing/files.h"

namespace ksched::testing {
namespace {

// The Kubernetes version scripts/k8s/go.mod pins, e.g. "v1.36.3".
std::string PinnedKubernetesVersion() {
  std::smatch m;
  std::string go_mod = ReadSourceFile("scripts/k8s/go.mod");
  return std::regex_search(go_mod, m, std::regex(R"(k8s\.io/kubernetes (v\S+))")) ? m[1].str() : "";
}

nlohmann::json KubectlJson(const ControlPlane& cluster, const std::vector<std::string>& args) {
  CommandResult r = cluster.Kubectl(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

TEST_F(ControlPlaneTest, ServerIsThePinnedRelease) {
  nlohmann::json version = KubectlJson(cluster(), {"version", "-o", "json"});
  ASSERT_FALSE(PinnedKubernetesVersion().empty());
  EXPECT_EQ(version["serverVersion"]["gitVersion"], PinnedKubernetesVersion()) << version.dump();
}

TEST_F(ControlPlaneTest, IsReady) {
  CommandResult r = cluster().Kubectl({"get", "--raw", "/readyz?verbose"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("readyz check passed"), std::string::npos) << r.out;
}

TEST_F(ControlPlaneTest, FakeNodesFollowTheTemplate) {
  ASSERT_TRUE(cluster().CreateNodes(4, {.prefix = "template-", .zones = 2}).ok());
  nlohmann::json list = KubectlJson(cluster(), {"get", "nodes", "-o", "json"});
  std::map<std::string, nlohmann::json> nodes;
  for (const nlohmann::json& n : list["items"]) nodes[n["metadata"]["name"]] = n;
  for (int i = 0; i < 4; ++i) {
    std::string name = "template-" + std::to_string(i);
    ASSERT_TRUE(nodes.contains(name)) << list.dump();
    const nlohmann::json& node = nodes[name];
    nlohmann::json resources = {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}};
    EXPECT_EQ(node["status"]["capacity"], resources) << name;
    EXPECT_EQ(node["status"]["allocatable"], resources) << name;
    EXPECT_EQ(node["status"]["conditions"][0]["type"], "Ready") << name;
    EXPECT_EQ(node["status"]["conditions"][0]["status"], "True") << name;
    EXPECT_EQ(node["metadata"]["labels"]["kubernetes.io/hostname"], name);
    EXPECT_EQ(node["metadata"]["labels"]["topology.kubernetes.io/zone"],
              "zone-" + std::to_string(i % 2));
    // TaintNodesByCondition is off: no controller would ever lift a not-ready taint.
    EXPECT_FALSE(node["spec"].contains("taints")) << node["spec"].dump();
  }
}

TEST_F(ControlPlaneTest, PodIsStoredWithItsPriorityAndStaysPending) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "pods"}).exit_code, 0);
  CommandResult created = cluster().Kubectl({"create", "-f", "-"}, R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "pods"},
    "spec": {"priorityClassName": "system-cluster-critical",
             "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                             "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]}})");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  nlohmann::json pod = KubectlJson(cluster(), {"get", "pod", "web", "-n", "pods", "-o", "json"});
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"]["cpu"], "100m");
  // The Priority admission plugin resolved the class.
  EXPECT_EQ(pod["spec"]["priority"], 2000000000) << pod["spec"].dump();
  // No scheduler runs, so nobody binds it.
  EXPECT_FALSE(pod["spec"].contains("nodeName"));
  EXPECT_EQ(pod["status"]["phase"], "Pending");
}

TEST_F(ControlPlaneTest, ServiceAccountTokensAreSignedAndRbacIsEnforced) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "tokens"}).exit_code, 0);
  ASSERT_EQ(cluster().Kubectl({"create", "serviceaccount", "robot", "-n", "tokens"}).exit_code, 0);
  CommandResult token = cluster().Kubectl({"create", "token", "robot", "-n", "tokens"});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  EXPECT_TRUE(std::regex_match(token.out, std::regex(R"([\w-]+\.[\w-]+\.[\w-]+\s*)"))) << token.out;
  CommandResult can = cluster().Kubectl(
      {"auth", "can-i", "list", "pods", "--as", "system:serviceaccount:tokens:robot"});
  EXPECT_EQ(can.out, "no\n") << "RBAC must deny what no role grants";
}

// A second control plane, with kwok, runs beside the shared one; `down` stops exactly its
// processes.
TEST_F(ControlPlaneTest, KwokRunsBoundPodsAndDownStopsWhatUpStarted) {
  absl::StatusOr<std::unique_ptr<ControlPlane>> other = ControlPlane::Start({.kwok = true});
  ASSERT_TRUE(other.ok()) << other.status().message();
  const ControlPlane& cp = **other;
  ASSERT_TRUE(cp.CreateNodes(1).ok());
  CommandResult created = cp.Kubectl({"create", "-f", "-"}, R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bound"},
    "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": "pause"}]}})");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  CommandResult running =
      cp.Kubectl({"wait", "pod/bound", "--for=jsonpath={.status.phase}=Running", "--timeout=60s"});
  EXPECT_EQ(running.exit_code, 0) << running.err;

  std::string dir = cp.dir();
  std::vector<pid_t> pids;
  for (const char* name : {"etcd.pid", "kube-apiserver.pid", "kwok.pid"}) {
    std::ifstream in(dir + "/" + name);
    pid_t pid = 0;
    ASSERT_TRUE(in >> pid) << dir << "/" << name;
    pids.push_back(pid);
  }
  other->reset();
  for (pid_t pid : pids) EXPECT_NE(kill(pid, 0), 0) << "pid " << pid << " still runs";
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_EQ(cluster().Kubectl({"get", "--raw", "/readyz"}).out, "ok");
}

}  // namespace
}  // namespace ksched::testing
