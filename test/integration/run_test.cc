// `ksched run` against the real control plane: ksched runs as a process, as a user runs it, and
// kubectl creates the objects and reads back what ksched wrote (bindings, events, conditions).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/testing/control_plane.h"
#include "src/testing/metrics_text.h"
#include "src/testing/ports.h"
#include "src/testing/toxiproxy.h"
#include "test/integration/ksched_process_test.h"
#include "test/integration/serve.h"

namespace ksched::testing {
namespace {

using nlohmann::json;

class RunTest : public KschedProcessTest {
 protected:
  // GET https://127.0.0.1:<secure_port_><path>, as a scraper or a probe would.
  httplib::Result Serve(const std::string& path, const std::string& token = "") {
    return ServeHttps(secure_port_, path, token);
  }

  // A token of the service account scrape/scraper, which a ClusterRole allows GET on /metrics
  // and /configz; made on first use.
  std::string ScraperToken() {
    if (cluster().Kubectl({"get", "clusterrolebinding", "scraper"}).exit_code != 0) {
      EXPECT_EQ(cluster().Kubectl({"create", "namespace", "scrape"}).exit_code, 0);
      EXPECT_EQ(
          cluster().Kubectl({"create", "serviceaccount", "scraper", "-n", "scrape"}).exit_code, 0);
      EXPECT_EQ(cluster()
                    .Kubectl({"create", "clusterrole", "metrics-reader", "--verb=get",
                              "--non-resource-url=/metrics", "--non-resource-url=/configz"})
                    .exit_code,
                0);
      EXPECT_EQ(cluster()
                    .Kubectl({"create", "clusterrolebinding", "scraper",
                              "--clusterrole=metrics-reader", "--serviceaccount=scrape:scraper"})
                    .exit_code,
                0);
    }
    CommandResult token = cluster().Kubectl({"create", "token", "scraper", "-n", "scrape"});
    EXPECT_EQ(token.exit_code, 0) << token.err;
    while (!token.out.empty() && std::isspace(token.out.back())) token.out.pop_back();
    return token.out;
  }

  // A KubeSchedulerConfiguration with one profile, `scheduler_name`, in the cluster's directory.
  std::string ProfileConfig(const std::string& scheduler_name) {
    std::string path = fmt::format("{}/{}.yaml", cluster().dir(), scheduler_name);
    std::ofstream(path) << fmt::format(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "leaderElection: {{leaderElect: false}}\nprofiles:\n- schedulerName: {}\n",
        scheduler_name);
    return path;
  }
};

std::string Hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

json PodList(const std::string& ns, const std::string& prefix, int count) {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (int i = 0; i < count; ++i)
    list["items"].push_back(Pod(ns, fmt::format("{}{}", prefix, i), "10m"));
  return list;
}

TEST_F(RunTest, BindsHundredPodsOverTenNodesEachWithItsScheduledEvent) {
  ASSERT_TRUE(cluster().CreateNodes(10, {.prefix = "bind-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "bind"}).exit_code, 0);
  StartKsched();
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (int i = 0; i < 100; ++i)
    list["items"].push_back(Pod("bind", fmt::format("p-{}", i), "100m"));
  Create(list);

  std::map<std::string, std::string> node_of;
  ASSERT_TRUE(Eventually([&] {
    json pods = Get({"pods", "-n", "bind"});
    node_of.clear();
    for (const json& p : pods["items"]) {
      if (p["spec"].contains("nodeName")) node_of[p["metadata"]["name"]] = p["spec"]["nodeName"];
    }
    return node_of.size() == 100;
  })) << node_of.size()
      << " of 100 pods bound";
  std::map<std::string, int> per_node;
  for (const auto& [pod, node] : node_of) per_node[node]++;
  EXPECT_EQ(per_node.size(), 10u) << "the pods spread over every node";

  std::map<std::string, std::string> scheduled;  // pod → the event's note
  ASSERT_TRUE(Eventually([&] {
    scheduled.clear();
    for (const json& e : Events("bind")) {
      if (e["reason"] == "Scheduled") scheduled[e["regarding"]["name"]] = e["note"];
    }
    return scheduled.size() == 100;
  })) << scheduled.size()
      << " Scheduled events";
  for (const auto& [pod, node] : node_of) {
    EXPECT_EQ(scheduled[pod], fmt::format("Successfully assigned bind/{} to {}", pod, node));
  }
  json e = Events("bind").front();
  EXPECT_EQ(e["reportingController"], "default-scheduler");
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["action"], "Binding");
}

TEST_F(RunTest, UnschedulablePodIsReportedThenLandsOnANodeThatFits) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "big"}).exit_code, 0);
  StartKsched();
  Create(Pod("big", "huge", "64"));
  std::string note = FailedSchedulingNote("big");
  ASSERT_FALSE(note.empty());
  EXPECT_TRUE(note.starts_with("0/")) << note;
  EXPECT_NE(note.find("Insufficient cpu"), std::string::npos) << note;
  json cond = PodScheduledCondition("big", "huge");
  ASSERT_TRUE(cond.is_object());
  EXPECT_EQ(cond["status"], "False");
  EXPECT_EQ(cond["reason"], "Unschedulable");
  EXPECT_EQ(cond["message"], note);

  Create(Node("big-node", "96"));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "huge", "-n", "big"})["spec"].value("nodeName", "") == "big-node";
  }));
}

// DefaultPreemption on a real API server: the victim gets DisruptionTarget, a Preempted event and
// a graceful delete; the preemptor is nominated and binds once the victim is gone (there is no
// kubelet here, so the test finishes the deletion as one would).
TEST_F(RunTest, APreemptorEvictsItsVictimAndBindsOnceItIsGone) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "preempt"}).exit_code, 0);
  Create(Node("preempt-node", "2"));
  for (auto [name, value] : {std::pair{"preempt-low", 10}, std::pair{"preempt-high", 1000}}) {
    Create({{"apiVersion", "scheduling.k8s.io/v1"},
            {"kind", "PriorityClass"},
            {"metadata", {{"name", name}}},
            {"value", value}});
  }
  json victim = Pod("preempt", "victim", "1500m");
  victim["spec"]["nodeName"] = "preempt-node";
  victim["spec"]["priorityClassName"] = "preempt-low";
  Create(victim);
  Process* ksched = StartKsched();
  json preemptor = Pod("preempt", "preemptor", "1");
  preemptor["spec"]["priorityClassName"] = "preempt-high";
  preemptor["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "preempt-node"}};
  Create(preemptor);

  json v;
  ASSERT_TRUE(Eventually([&] {
    v = Get({"pod", "victim", "-n", "preempt"});
    return v.is_object() && v["metadata"].contains("deletionTimestamp");
  })) << "the victim was not deleted";
  json target;
  for (const json& c : v["status"]["conditions"]) {
    if (c["type"] == "DisruptionTarget") target = c;
  }
  ASSERT_TRUE(target.is_object()) << v.dump();
  EXPECT_EQ(target["status"], "True");
  EXPECT_EQ(target["reason"], "PreemptionByScheduler");
  EXPECT_EQ(target["message"],
            "default-scheduler: preempting to accommodate a higher priority pod");
  json p = Get({"pod", "preemptor", "-n", "preempt"});
  EXPECT_EQ(p["status"].value("nominatedNodeName", ""), "preempt-node");
  std::string preempted;
  ASSERT_TRUE(Eventually([&] {
    for (const json& e : Events("preempt")) {
      if (e["reason"] == "Preempted") preempted = e["note"];
    }
    return !preempted.empty();
  }));
  EXPECT_EQ(preempted, fmt::format("Preempted by pod {} on node preempt-node",
                                   p["metadata"]["uid"].get<std::string>()));
  EXPECT_FALSE(p["spec"].contains("nodeName"));
  // kube-scheduler's lines at -v 2.
  EXPECT_NE(ksched->Log().find("\"the target node for the preemption is determined\" "
                               "node=\"preempt-node\" pod=\"preempt/preemptor\""),
            std::string::npos)
      << ksched->Log();
  EXPECT_NE(ksched->Log().find("\"Start the preemption asynchronously\" "
                               "preemptor=\"preempt/preemptor\" node=\"preempt-node\" "
                               "numVictims=1 numVictimsToDelete=1"),
            std::string::npos);

  // The kubelet's part: the victim's containers stopped.
  ASSERT_EQ(
      cluster()
          .Kubectl({"delete", "pod", "victim", "-n", "preempt", "--force", "--grace-period=0"})
          .exit_code,
      0);
  ASSERT_TRUE(Eventually([&] {
    json now = Get({"pod", "preemptor", "-n", "preempt"});
    return now["spec"].value("nodeName", "") == "preempt-node";
  }));
}

// InterPodAffinity among the pods ksched itself binds: required anti-affinity by hostname puts two
// replicas on two nodes, and the third waits with kube-scheduler's reason.
TEST_F(RunTest, AntiAffinityHoldsAmongThePodsKschedBinds) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "anti"}).exit_code, 0);
  for (const char* name : {"anti-1", "anti-2"}) {
    json node = Node(name, "4");
    node["metadata"]["labels"]["anti-test"] = "yes";
    Create(node);
  }
  StartKsched();
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (int i = 0; i < 3; ++i) {
    json pod = Pod("anti", fmt::format("web-{}", i), "100m");
    pod["metadata"]["labels"] = {{"app", "web"}};
    pod["spec"]["nodeSelector"] = {{"anti-test", "yes"}};
    pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        json::array({{{"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                      {"topologyKey", "kubernetes.io/hostname"}}});
    list["items"].push_back(pod);
  }
  Create(list);
  std::set<std::string> nodes;
  ASSERT_TRUE(Eventually([&] {
    nodes.clear();
    const json pods = Get({"pods", "-n", "anti"});
    for (const json& p : pods["items"]) {
      if (p["spec"].contains("nodeName")) nodes.insert(p["spec"]["nodeName"].get<std::string>());
    }
    return nodes.size() == 2;
  }));
  EXPECT_EQ(nodes, (std::set<std::string>{"anti-1", "anti-2"}));
  std::string note = FailedSchedulingNote("anti");
  EXPECT_NE(note.find("2 node(s) didn't match pod anti-affinity rules"), std::string::npos) << note;
  const json pods = Get({"pods", "-n", "anti"});
  int bound = 0;
  for (const json& p : pods["items"]) bound += p["spec"].contains("nodeName");
  EXPECT_EQ(bound, 2);
}

TEST_F(RunTest, RemovingATaintRequeuesThePodItRejected) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "taint"}).exit_code, 0);
  Create(
      Node("tainted", "200", {{{"key", "dedicated"}, {"value", "x"}, {"effect", "NoSchedule"}}}));
  StartKsched();
  Create(Pod("taint", "needs-200", "150"));
  ASSERT_FALSE(FailedSchedulingNote("taint").empty());
  ASSERT_EQ(cluster().Kubectl({"taint", "nodes", "tainted", "dedicated-"}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "needs-200", "-n", "taint"})["spec"].value("nodeName", "") == "tainted";
  }));
}

// A pending pod that is deleted leaves the queue: scheduler_pending_pods of a profile that only
// this test's pods ask for goes back to 0.
TEST_F(RunTest, ADeletedPendingPodLeavesTheQueue) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "gone"}).exit_code, 0);
  const std::string token = ScraperToken();
  StartKsched({"--config", ProfileConfig("gone-test")});
  Create(Pod("gone", "too-big", "500", "gone-test"));
  ASSERT_FALSE(FailedSchedulingNote("gone").empty());
  auto pending = [&](const std::string& queue) {
    auto m = Serve("/metrics", token);
    if (!m || m->status != 200) return -1.0;
    return Sample(m->body, fmt::format("scheduler_pending_pods{{queue=\"{}\"}}", queue));
  };
  ASSERT_TRUE(Eventually([&] { return pending("unschedulable") == 1; }))
      << pending("unschedulable");
  ASSERT_EQ(cluster().Kubectl({"delete", "pod", "too-big", "-n", "gone", "--wait=false"}).exit_code,
            0);
  ASSERT_TRUE(Eventually([&] {
    return pending("unschedulable") == 0 && pending("active") == 0 && pending("backoff") == 0;
  })) << pending("unschedulable");
}

// A pod that another scheduler (or a user, with spec.nodeName) put on a node counts there: a pod
// that would not fit beside it waits until it is gone.
TEST_F(RunTest, APodBoundElsewhereCountsOnItsNode) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "elsewhere"}).exit_code, 0);
  Create(Node("shared-node", "1"));
  json theirs = Pod("elsewhere", "theirs", "800m", "someone-else");
  theirs["spec"]["nodeName"] = "shared-node";
  Create(theirs);
  StartKsched({"--config", ProfileConfig("elsewhere-test")});
  json ours = Pod("elsewhere", "ours", "500m", "elsewhere-test");
  ours["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "shared-node"}};
  Create(ours);
  std::string note = FailedSchedulingNote("elsewhere");
  ASSERT_FALSE(note.empty());
  EXPECT_NE(note.find("Insufficient cpu"), std::string::npos) << note;
  // No kubelet runs here to end it gracefully.
  ASSERT_EQ(
      cluster()
          .Kubectl({"delete", "pod", "theirs", "-n", "elsewhere", "--force", "--grace-period=0"})
          .exit_code,
      0);
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "ours", "-n", "elsewhere"})["spec"].value("nodeName", "") == "shared-node";
  }));
}

// Objects far larger than usual pass through the watches and the scheduler like any other: a
// node that lists 10000 images and a pod of 1000 containers, whose images that node holds, so
// ImageLocality sends it there; a small pod created after it is bound too.
TEST_F(RunTest, ANodeOfTenThousandImagesAndAPodOfAThousandContainersAreScheduled) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "large"}).exit_code, 0);
  json images = Node("large-images", "8");
  json plain = Node("large-plain", "8");
  for (json* n : {&images, &plain}) n->at("metadata")["labels"]["size"] = "large";
  images["status"]["images"] = json::array();
  for (int i = 0; i < 10000; ++i) {
    images["status"]["images"].push_back(
        {{"names", {fmt::format("registry.example.com/large/image-{:05}:v1", i)}},
         {"sizeBytes", 900'000'000}});
  }
  Create(images);
  Create(plain);
  StartKsched();
  json pod = Pod("large", "many-containers", "1m");
  pod["spec"]["nodeSelector"] = {{"size", "large"}};
  json containers = json::array();
  for (int i = 0; i < 1000; ++i) {
    containers.push_back({{"name", fmt::format("c{}", i)},
                          {"image", fmt::format("registry.example.com/large/image-{:05}:v1", i)}});
  }
  pod["spec"]["containers"] = containers;
  Create(pod);
  json small = Pod("large", "small", "1m");
  small["spec"]["nodeSelector"] = {{"size", "large"}};
  Create(small);
  ASSERT_TRUE(Eventually([&] {
    return !Get({"pod", "small", "-n", "large"})["spec"].value("nodeName", "").empty();
  }));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "many-containers", "-n", "large"})["spec"].value("nodeName", "") ==
           "large-images";
  }));
}

// DRA: ksched allocates a device of a driver's ResourceSlice, writes the claim's allocation and
// reservation, and binds the pod to the device's node; the device is not given to a second claim,
// whose pod stays pending and says why.
TEST_F(RunTest, AClaimGetsADeviceWrittenAndTheDeviceIsNotGivenTwice) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "dra"}).exit_code, 0);
  Create(Node("dra-plain", "8"));
  Create(Node("dra-gpu", "8"));
  Create(
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "DeviceClass"},
       {"metadata", {{"name", "dra-gpu"}}},
       {"spec",
        {{"selectors", {{{"cel", {{"expression", "device.driver == \"gpu.example.com\""}}}}}}}}});
  // As a driver publishes its devices.
  Create({{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", "dra-gpu-slice"}}},
          {"spec",
           {{"driver", "gpu.example.com"},
            {"nodeName", "dra-gpu"},
            {"pool", {{"name", "dra-gpu"}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", {{{"name", "gpu-0"}}}}}}});
  auto claim = [](const std::string& name) {
    return json{
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceClaim"},
        {"metadata", {{"name", name}, {"namespace", "dra"}}},
        {"spec",
         {{"devices",
           {{"requests", {{{"name", "gpu"}, {"exactly", {{"deviceClassName", "dra-gpu"}}}}}}}}}}};
  };
  Create(claim("first"));
  Create(claim("second"));
  StartKsched({"--config", ProfileConfig("dra-test")});
  json first = Pod("dra", "first", "100m", "dra-test");
  first["spec"]["resourceClaims"] = {{{"name", "gpu"}, {"resourceClaimName", "first"}}};
  Create(first);
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "first", "-n", "dra"})["spec"].value("nodeName", "") == "dra-gpu";
  }));
  json written = Get({"resourceclaim", "first", "-n", "dra"});
  const json& result = written["status"]["allocation"]["devices"]["results"][0];
  EXPECT_EQ(result["driver"], "gpu.example.com");
  EXPECT_EQ(result["pool"], "dra-gpu");
  EXPECT_EQ(result["device"], "gpu-0");
  EXPECT_EQ(result["request"], "gpu");
  EXPECT_EQ(written["status"]["reservedFor"][0]["name"], "first");
  EXPECT_EQ(written["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"]
                   [0]["values"][0],
            "dra-gpu");
  EXPECT_EQ(written["metadata"]["finalizers"][0], "resource.kubernetes.io/delete-protection");

  json second = Pod("dra", "second", "100m", "dra-test");
  second["spec"]["resourceClaims"] = {{{"name", "gpu"}, {"resourceClaimName", "second"}}};
  Create(second);
  ASSERT_TRUE(Eventually([&] { return !FailedSchedulingNote("dra").empty(); }));
  // Other tests' nodes of the shared cluster may fail for reasons of their own.
  const std::string note = FailedSchedulingNote("dra");
  EXPECT_THAT(note, ::testing::HasSubstr(" cannot allocate all claims"));
  EXPECT_THAT(note, ::testing::HasSubstr("preemption: "));
  EXPECT_EQ(Get({"pod", "second", "-n", "dra"})["spec"].value("nodeName", ""), "");
}

// An extender that cannot be built (its CA file is missing) stops the start, as upstream's
// "couldn't build extenders".
TEST_F(RunTest, AnExtenderThatCannotBeBuiltStopsTheStart) {
  const std::string config = cluster().dir() + "/extenders.yaml";
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "extenders:\n- urlPrefix: https://127.0.0.1:12346/scheduler\n"
                           "  filterVerb: filter\n"
                           "  tlsConfig: {caFile: /nonexistent/ca.crt}\n";
  CommandResult r = RunCommand({KSCHED_BINARY, "--config", config, "--kubeconfig",
                                cluster().kubeconfig(), "--leader-elect=false", "--secure-port=0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "ksched: couldn't build extenders: extender https://127.0.0.1:12346/scheduler: open "
            "/nonexistent/ca.crt: no such file or directory\n");
}

// An aggregate of errors "[a, b]" with its errors sorted: kube-scheduler sets the gates of one
// --feature-gates from a Go map, so two refusals come in either order.
std::string Unordered(std::string message) {
  const size_t open = message.find('[');
  const size_t close = message.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return message;
  std::vector<std::string> errors;
  // Each error of these begins with a verb ("cannot set ..."), after ", ".
  static const std::regex kNext(", (?=cannot |unrecognized |invalid |missing )");
  const std::string inner = message.substr(open + 1, close - open - 1);
  for (std::sregex_token_iterator it(inner.begin(), inner.end(), kNext, -1), end; it != end; ++it) {
    errors.push_back(*it);
  }
  std::sort(errors.begin(), errors.end());
  return message.substr(0, open + 1) + absl::StrJoin(errors, ", ") + message.substr(close);
}

// Bad --feature-gates and --emulated-version flags, given to kube-scheduler and to ksched: each
// refuses them with the same words and exit code 1 (kube-scheduler's words are its log line's err).
TEST_F(RunTest, FeatureGateFlagsAreRefusedInKubeSchedulersWords) {
  const std::vector<std::vector<std::string>> cases = {
      {"--feature-gates=NoSuchGate=true"},
      {"--feature-gates=StorageCapacityScoring"},
      {"--feature-gates=StorageCapacityScoring=yes"},
      {"--feature-gates=DynamicResourceAllocation=false,VolumeAttributesClass=false"},
      {"--feature-gates=StorageCapacityScoring=true",
       "--feature-gates=kube:PodLevelResources=true"},
      {"--feature-gates=wardle:Foo=true"},
      {"--emulated-version=1.38"},
      {"--emulated-version=1.30"},
      {"--emulated-version=1.35.1"},
      {"--emulated-version=1.35,kube=1.36"},
      {"--emulated-version=1.35", "--feature-gates=DRAListTypeAttributes=true"},
      {"--emulated-version=1.35", "--min-compatibility-version=1.36"},
  };
  for (const std::vector<std::string>& flags : cases) {
    std::vector<std::string> upstream_argv = {K8sBinDir() + "/kube-scheduler"};
    upstream_argv.insert(upstream_argv.end(), flags.begin(), flags.end());
    CommandResult upstream = RunCommand(upstream_argv);
    ASSERT_EQ(upstream.exit_code, 1) << flags[0] << ": " << upstream.err;
    // `... run.go:72] "command failed" err="<message, Go-quoted>"`
    const size_t at = upstream.err.find("\"command failed\" err=\"");
    ASSERT_NE(at, std::string::npos) << upstream.err;
    std::string want;
    for (size_t i = at + 22; i < upstream.err.size() && upstream.err[i] != '\n'; ++i) {
      if (upstream.err[i] == '\\') {
        want += upstream.err[++i];
      } else if (upstream.err[i] == '"') {
        break;
      } else {
        want += upstream.err[i];
      }
    }
    std::vector<std::string> argv = {KSCHED_BINARY, "--kubeconfig", cluster().kubeconfig(),
                                     "--leader-elect=false", "--secure-port=0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    CommandResult ours = RunCommand(argv);
    EXPECT_EQ(ours.exit_code, 1) << flags[0];
    EXPECT_EQ(Unordered(ours.err), Unordered("ksched: " + want + "\n")) << flags[0];
  }
  // What kube-scheduler takes and ksched does not implement yet is refused by name.
  CommandResult r =
      RunCommand({KSCHED_BINARY, "--kubeconfig", cluster().kubeconfig(), "--leader-elect=false",
                  "--secure-port=0", "--feature-gates=TaintTolerationComparisonOperators=true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "ksched: feature gate TaintTolerationComparisonOperators=true: ksched does not "
            "implement it yet, and decides as kube-scheduler v1.37.2 does with "
            "TaintTolerationComparisonOperators=false\n");
}

// kubernetes_feature_enabled has each gate's stage and value, a gate given on the command line
// included, as kube-scheduler records them.
TEST_F(RunTest, TheFeatureGatesAreOnMetrics) {
  const std::string token = ScraperToken();
  StartKsched({"--feature-gates=ClientsAllowCBOR=true"});
  std::string body;
  ASSERT_TRUE(Eventually([&] {
    httplib::Result m = Serve("/metrics", token);
    if (m && m->status == 200) body = m->body;
    return !body.empty();
  }));
  EXPECT_EQ(Sample(body, "kubernetes_feature_enabled{name=\"ClientsAllowCBOR\",stage=\"ALPHA\"}"),
            1);
  EXPECT_EQ(Sample(body,
                   "kubernetes_feature_enabled{name=\"TaintTolerationComparisonOperators\","
                   "stage=\"ALPHA\"}"),
            0);
  EXPECT_EQ(
      Sample(body, "kubernetes_feature_enabled{name=\"StorageCapacityScoring\",stage=\"BETA\"}"),
      1);
  EXPECT_EQ(
      Sample(body, "kubernetes_feature_enabled{name=\"DynamicResourceAllocation\",stage=\"\"}"), 1);
  EXPECT_NE(body.find("# HELP kubernetes_feature_enabled [BETA] This metric records the data "
                      "about the stage and enablement of a k8s feature.\n"),
            std::string::npos);
}

// Hightower's annotator: a price from the six onto the nodes named (or every node), and --list
// prints them as kubectl sees them.
TEST_F(RunTest, AnnotatePricesPatchesAPriceOntoEachNodeAndListsThem) {
  Create(Node("priced-a", "4"));
  Create(Node("priced-b", "4"));
  const std::string kubeconfig = cluster().kubeconfig();
  CommandResult r =
      RunCommand({ANNOTATE_PRICES, "--kubeconfig", kubeconfig, "priced-a", "priced-b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::string> allowed = {"0.05", "0.10", "0.20", "0.40", "0.80", "1.60"};
  std::string listed;
  for (const std::string node : {"priced-a", "priced-b"}) {
    const std::string price =
        Get({"node", node})["metadata"]["annotations"].value("hightower.com/cost", "");
    EXPECT_TRUE(allowed.contains(price)) << node << ": " << price;
    listed += fmt::format("{} {}\n", node, price);
  }
  EXPECT_EQ(r.out, listed);
  CommandResult list =
      RunCommand({ANNOTATE_PRICES, "--kubeconfig", kubeconfig, "--list", "priced-a", "priced-b"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, listed);
  CommandResult unknown = RunCommand({ANNOTATE_PRICES, "--kubeconfig", kubeconfig, "no-such-node"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "annotate-prices: nodes \"no-such-node\" not found\n");
}

// --- The guides' schedulers (examples/guides), each as its README runs it -----------------------

// Each guide runs twice: on ksched-guides, which has the guides' plugins compiled in, and on
// ksched, which loads them from libksched_guides.so. The two runs share the control plane, so each
// names its namespaces, nodes and apps with its own suffix.
class GuideTest : public RunTest, public ::testing::WithParamInterface<bool> {
 protected:
  bool library() const { return GetParam(); }
  std::string Named(const std::string& name) const { return library() ? name + "-so" : name; }

  // Starts the scheduler of a guide with its config.yaml, the plugins compiled in or loaded.
  void StartGuide(const std::string& guide) {
    binary_ = library() ? KSCHED_BINARY : GUIDES_BINARY;
    std::vector<std::string> args = {
        "--config", std::string(KSCHED_SOURCE_DIR) + "/examples/guides/" + guide + "/config.yaml"};
    if (!library()) {
      StartKsched(args);
      return;
    }
    args.insert(args.end(), {"--plugin-library", GUIDES_LIBRARY});
    Process* ksched = StartKsched(args);
    EXPECT_TRUE(Eventually([&] {
      return ksched->Log().find("Loaded plugin library") != std::string::npos;
    })) << ksched->Log();
  }

  // A pod of my-custom-scheduler, created in this run's namespace `ns`.
  static json GuidePod(const std::string& ns, const std::string& name) {
    return Pod(ns, name, "100m", "my-custom-scheduler");
  }

  void CreateNamespace(const std::string& ns) {
    ASSERT_EQ(cluster().Kubectl({"create", "namespace", ns}).exit_code, 0);
  }
};

INSTANTIATE_TEST_SUITE_P(Plugins, GuideTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "FromLibrary" : "CompiledIn";
                         });

TEST_P(GuideTest, NetworkAwarePutsAHighSpeedPodOnTheLabelledNode) {
  const std::string ns = Named("guide-net");
  CreateNamespace(ns);
  json fast = Node(Named("guide-fast"), "4");
  fast["metadata"]["labels"]["network-topology"] = "high-speed";
  fast["metadata"]["labels"]["guide"] = ns;
  Create(fast);
  json slow = Node(Named("guide-slow"), "4");
  slow["metadata"]["labels"]["guide"] = ns;
  Create(slow);
  StartGuide("003-network-aware");
  // kube-scheduler's pod, created first: left alone while ksched binds the one after it.
  Create(Pod(ns, "default-one", "100m"));
  json pod = GuidePod(ns, "wants-speed");
  pod["metadata"]["annotations"] = {{"my-network-preference", "high-speed"}};
  pod["spec"]["nodeSelector"] = {{"guide", ns}};  // Among this run's nodes.
  Create(pod);
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "wants-speed", "-n", ns})["spec"].value("nodeName", "") ==
           Named("guide-fast");
  }));
  EXPECT_EQ(Get({"pod", "default-one", "-n", ns})["spec"].value("nodeName", ""), "");
}

TEST_P(GuideTest, AnnotationGateRefusesAnAnnotatedPodWithItsEventAndCondition) {
  const std::string ns = Named("guide-gate");
  CreateNamespace(ns);
  StartGuide("002-annotation-gate");
  json pod = GuidePod(ns, "tagged");
  pod["metadata"]["annotations"] = {{"mycompany.com/environment", "prod"}};
  Create(pod);
  const std::string note = FailedSchedulingNote(ns);
  EXPECT_NE(note.find("nodes are available: pod has annotation mycompany.com/environment, which "
                      "this scheduler refuses. preemption: "),
            std::string::npos)
      << note;
  json cond = PodScheduledCondition(ns, "tagged");
  ASSERT_TRUE(cond.is_object());
  EXPECT_EQ(cond["reason"], "Unschedulable");
  EXPECT_EQ(cond["message"], note);
}

TEST_P(GuideTest, NodePriceSendsPodsToTheCheapestNodeAfterAnnotatePrices) {
  const std::string ns = Named("guide-price");
  CreateNamespace(ns);
  std::vector<std::string> nodes;
  for (int i = 1; i <= 3; ++i) {
    nodes.push_back(Named(fmt::format("guide-price-{}", i)));
    json node = Node(nodes.back(), "8");
    node["metadata"]["labels"]["guide"] = ns;
    Create(node);
  }
  std::vector<std::string> annotate = {ANNOTATE_PRICES, "--kubeconfig", cluster().kubeconfig()};
  annotate.insert(annotate.end(), nodes.begin(), nodes.end());
  CommandResult priced = RunCommand(annotate);
  ASSERT_EQ(priced.exit_code, 0) << priced.err;
  std::map<std::string, double> prices;
  for (const std::string& name : nodes) {
    prices[name] =
        std::stod(Get({"node", name})["metadata"]["annotations"].value("hightower.com/cost", "9"));
  }
  double cheapest = 10;
  for (const auto& [name, price] : prices) cheapest = std::min(cheapest, price);
  StartGuide("001-node-price");
  for (const char* name : {"nginx-1", "nginx-2"}) {
    json pod = GuidePod(ns, name);
    pod["spec"]["nodeSelector"] = {{"guide", ns}};  // Among this run's nodes.
    Create(pod);
  }
  for (const char* name : {"nginx-1", "nginx-2"}) {
    std::string node;
    ASSERT_TRUE(Eventually([&] {
      node = Get({"pod", name, "-n", ns})["spec"].value("nodeName", "");
      return !node.empty();
    }));
    EXPECT_EQ(prices.at(node), cheapest) << name << " on " << node << ": " << priced.out;
  }
}

TEST_P(GuideTest, AppPinningPutsEachAppOnItsNode) {
  const std::string ns = Named("guide-pin");
  CreateNamespace(ns);
  const std::string apps[] = {Named("app-a"), Named("app-b")};
  for (const std::string& app : apps) {
    json node = Node("guide-" + app, "8");
    node["metadata"]["labels"]["app"] = app;
    Create(node);
  }
  StartGuide("000-app-pinning");
  for (int i = 0; i < 4; ++i) {
    json pod = GuidePod(ns, fmt::format("{}-{}", apps[i % 2], i));
    pod["metadata"]["labels"] = {{"app", apps[i % 2]}};
    Create(pod);
  }
  for (int i = 0; i < 4; ++i) {
    const std::string name = fmt::format("{}-{}", apps[i % 2], i);
    ASSERT_TRUE(Eventually([&] {
      return Get({"pod", name, "-n", ns})["spec"].value("nodeName", "") == "guide-" + apps[i % 2];
    })) << name;
  }
}

TEST_F(RunTest, PodForAnotherSchedulerIsLeftAlone) {
  ASSERT_TRUE(cluster().CreateNodes(1, {.prefix = "other-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "other"}).exit_code, 0);
  StartKsched();
  Create(Pod("other", "theirs", "100m", "someone-else"));
  Create(Pod("other", "ours", "100m"));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "ours", "-n", "other"})["spec"].contains("nodeName");
  }));
  json theirs = Get({"pod", "theirs", "-n", "other"});
  EXPECT_FALSE(theirs["spec"].contains("nodeName"));
  EXPECT_FALSE(theirs["status"].contains("conditions")) << theirs["status"].dump();
  for (const json& e : Events("other")) EXPECT_NE(e["regarding"]["name"], "theirs") << e.dump();
}

TEST_F(RunTest, TwoReplicasNeverBindTwiceAndTheStandbyTakesOverFromAKilledLeader) {
  ASSERT_TRUE(cluster().CreateNodes(4, {.prefix = "le-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "le"}).exit_code, 0);
  std::vector<std::string> fast = {
      "--leader-elect-resource-name=le-test", "--leader-elect-lease-duration=4s",
      "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=1s"};
  Process* first = StartKsched(fast);
  ASSERT_TRUE(Eventually(
      [&] { return first->Log().find("Successfully acquired lease") != std::string::npos; }));
  Process* standby = StartKsched(fast);
  ASSERT_TRUE(Eventually([&] {
    return standby->Log().find("Attempting to acquire leader lease") != std::string::npos;
  }));

  auto bound = [&](const std::string& prefix, int want) {
    int n = 0;
    json pods = Get({"pods", "-n", "le"});
    for (const json& p : pods["items"]) {
      n += p["metadata"]["name"].get<std::string>().starts_with(prefix) &&
           p["spec"].contains("nodeName");
    }
    return n == want;
  };
  Create(PodList("le", "a-", 20));
  ASSERT_TRUE(Eventually([&] { return bound("a-", 20); }));
  EXPECT_EQ(standby->Log().find("Successfully bound"), std::string::npos) << "the standby bound";

  ASSERT_EQ(first->Stop(SIGKILL), 128 + SIGKILL);
  Create(PodList("le", "b-", 20));
  ASSERT_TRUE(Eventually([&] { return bound("b-", 20); }));
  EXPECT_NE(standby->Log().find("Successfully acquired lease"), std::string::npos);

  std::map<std::string, int> scheduled;
  ASSERT_TRUE(Eventually([&] {
    scheduled.clear();
    for (const json& e : Events("le")) {
      EXPECT_NE(e["reason"], "FailedScheduling") << e.dump();
      if (e["reason"] == "Scheduled") scheduled[e["regarding"]["name"]]++;
    }
    return scheduled.size() == 40;
  }));
  for (const auto& [pod, n] : scheduled) EXPECT_EQ(n, 1) << pod << " was bound " << n << " times";

  json lease = Get({"lease", "le-test", "-n", "kube-system"});
  EXPECT_GE(lease["spec"]["leaseTransitions"].get<int>(), 1) << lease.dump();
  // A clean stop gives the lease up.
  ASSERT_EQ(standby->Stop(SIGTERM), 0) << standby->Log();
  lease = Get({"lease", "le-test", "-n", "kube-system"});
  EXPECT_FALSE(lease["spec"].contains("holderIdentity")) << lease.dump();
}

// A standby whose watch lags (its link to the API server is slow) becomes leader just after its
// predecessor filled a node. It must not schedule from what it last saw, where the node was
// empty: it lists the pods afresh first. (The chaos soak found a node overcommitted so.)
TEST_F(RunTest, ANewLeaderWhoseWatchLagsListsAfreshBeforeItSchedules) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "resync"}).exit_code, 0);
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "resync-noise"}).exit_code, 0);
  Create(Node("resync-node", "1"));
  // The lease is held by a predecessor that the standby cannot see die: it lasts an hour.
  Create({{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", "resync-test"}, {"namespace", "kube-system"}}},
          {"spec",
           {{"holderIdentity", "predecessor"},
            {"leaseDurationSeconds", 3600},
            {"renewTime",
             absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone())}}}});
  absl::StatusOr<std::unique_ptr<Toxiproxy>> proxy =
      Toxiproxy::Start(cluster().api_port(), cluster().dir() + "/toxiproxy-resync.log");
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  // A profile of its own, so that only this test's pod waits for it.
  Process* standby =
      StartKsched({"--config", ProfileConfig("resync-scheduler"), "--leader-elect=true", "--master",
                   fmt::format("https://127.0.0.1:{}", (*proxy)->port()),
                   "--leader-elect-resource-name=resync-test", "--leader-elect-lease-duration=4s",
                   "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=1s",
                   "--authorization-always-allow-paths=/metrics"});
  // The standby knows the node, empty, and the pod waiting for it, which fits there only.
  json waiting = Pod("resync", "waiting", "1", "resync-scheduler");
  waiting["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "resync-node"}};
  Create(waiting);
  ASSERT_TRUE(Eventually([&] {
    httplib::Result r = Serve("/metrics");
    return r && Sample(r->body, R"(scheduler_pending_pods{queue="active"})") == 1;
  }));

  // Its link slows to 8 KB/s, and 240 KB of other pods' changes queue on its watch.
  ASSERT_TRUE((*proxy)
                  ->Call("POST", "/proxies/apiserver/toxics",
                         {{"name", "slow"},
                          {"type", "bandwidth"},
                          {"stream", "downstream"},
                          {"attributes", {{"rate", 8}}}})
                  .is_object());
  json noise = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (int i = 0; i < 24; ++i) {
    json pod = Pod("resync-noise", fmt::format("noise-{}", i), "10m", "nobody");
    pod["metadata"]["annotations"] = {{"padding", std::string(10000, 'x')}};
    noise["items"].push_back(pod);
  }
  Create(noise);
  // The predecessor fills the node, then gives the lease up.
  json filler = Pod("resync", "filler", "1", "predecessor");
  filler["spec"]["nodeName"] = "resync-node";
  Create(filler);
  ASSERT_EQ(cluster()
                .Kubectl({"patch", "lease", "resync-test", "-n", "kube-system", "--type=merge",
                          "-p", R"({"spec":{"holderIdentity":null}})"})
                .exit_code,
            0);
  ASSERT_TRUE(Eventually(
      [&] { return standby->Log().find("Successfully acquired lease") != std::string::npos; }));
  for (int i = 0; i < 30; ++i) {  // 6 s as leader on the slow link.
    ASSERT_FALSE(Get({"pod", "waiting", "-n", "resync"})["spec"].contains("nodeName"))
        << "bound to a node it saw empty, which the filler fills";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  (*proxy)->Call("DELETE", "/proxies/apiserver/toxics/slow", nullptr);

  json cond = PodScheduledCondition("resync", "waiting");
  ASSERT_TRUE(cond.is_object());
  EXPECT_EQ(cond["status"], "False");
  EXPECT_EQ(cond["reason"], "Unschedulable");
  EXPECT_FALSE(Get({"pod", "waiting", "-n", "resync"})["spec"].contains("nodeName"));
  EXPECT_NE(standby->Log().find("Pods listed afresh"), std::string::npos);
}

TEST_F(RunTest, RecoversWhenTheApiServerRestartsAndBindsEveryPod) {
  ASSERT_TRUE(cluster().CreateNodes(4, {.prefix = "restart-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "restart"}).exit_code, 0);
  // As upstream, a leader that cannot renew within renewDeadline exits (its Deployment restarts
  // it). The restart takes about 5 s; the deadline is raised so a slow machine does not hit it.
  Process* ksched =
      StartKsched({"--leader-elect-resource-name=restart-test", "--leader-elect-lease-duration=90s",
                   "--leader-elect-renew-deadline=60s"});
  Create(PodList("restart", "before-", 30));
  // Restart while ksched works through the first pods: watches break and binds fail meanwhile.
  ASSERT_TRUE(cluster().RestartApiServer().ok());
  Create(PodList("restart", "after-", 30));
  int bound = 0;
  ASSERT_TRUE(Eventually([&] {
    json pods = Get({"pods", "-n", "restart"});
    bound = 0;
    for (const json& p : pods["items"]) bound += p["spec"].contains("nodeName");
    return bound == 60;
  })) << bound
      << " of 60 bound";
  EXPECT_TRUE(ksched->Running());
}

std::string TokenKubeconfig(const ControlPlane& cluster, const std::string& ns,
                            const std::string& account);

// A service account with what ksched needs, except pods/binding; and a kubeconfig with its token.
std::string LimitedKubeconfig(const ControlPlane& cluster) {
  std::string rbac = R"(
apiVersion: v1
kind: ServiceAccount
metadata: {name: ksched-limited, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ksched-no-bind}
rules:
- {apiGroups: [""], resources: [pods, nodes, namespaces], verbs: [get, list, watch]}
- {apiGroups: [""], resources: [services, replicationcontrollers], verbs: [get, list, watch]}
- {apiGroups: [apps], resources: [replicasets, statefulsets], verbs: [get, list, watch]}
- {apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [get, list, watch]}
- {apiGroups: [""], resources: [persistentvolumes, persistentvolumeclaims], verbs: [get, list, watch]}
- apiGroups: [storage.k8s.io]
  resources: [storageclasses, csinodes, csidrivers, csistoragecapacities, volumeattachments]
  verbs: [get, list, watch]
- {apiGroups: [""], resources: [pods/status], verbs: [patch, update]}
- {apiGroups: [events.k8s.io], resources: [events], verbs: [create, patch, update]}
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ksched-no-bind}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ksched-no-bind}
subjects: [{kind: ServiceAccount, name: ksched-limited, namespace: kube-system}]
)";
  CommandResult r = cluster.Kubectl({"apply", "-f", "-"}, rbac);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return TokenKubeconfig(cluster, "kube-system", "ksched-limited");
}

// A kubeconfig for the cluster that authenticates as a service account, with a token of it.
std::string TokenKubeconfig(const ControlPlane& cluster, const std::string& ns,
                            const std::string& account) {
  CommandResult token = cluster.Kubectl({"create", "token", account, "-n", ns});
  EXPECT_EQ(token.exit_code, 0) << token.err;
  json admin = json::parse(
      cluster.Kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out, nullptr, false);
  json kc = {{"apiVersion", "v1"},
             {"kind", "Config"},
             {"current-context", "limited"},
             {"clusters", admin["clusters"]},
             {"users", {{{"name", "limited"}, {"user", {{"token", token.out}}}}}},
             {"contexts",
              {{{"name", "limited"},
                {"context", {{"cluster", admin["clusters"][0]["name"]}, {"user", "limited"}}}}}}};
  std::string path = fmt::format("{}/{}.kubeconfig", cluster.dir(), account);
  std::ofstream(path) << kc.dump();
  return path;
}

TEST_F(RunTest, ARejectedBindLeavesNoPhantomUsageAndThePodIsRetried) {
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "phantom"}).exit_code, 0);
  Create(Node("phantom-node", "1"));
  std::string kubeconfig = LimitedKubeconfig(cluster());
  replicas_.push_back(
      std::make_unique<Process>(std::vector<std::string>{KSCHED_BINARY, "--kubeconfig", kubeconfig,
                                                         "--leader-elect=false", "--secure-port=0"},
                                cluster().dir() + "/ksched-phantom.log"));
  // The pod fills the node: if the rejected bind left its usage behind, it could never fit again.
  json pod = Pod("phantom", "first", "1");
  pod["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "phantom-node"}};
  Create(pod);
  std::string note = FailedSchedulingNote("phantom");
  ASSERT_FALSE(note.empty());
  EXPECT_NE(note.find("cannot create resource \"pods/binding\""), std::string::npos) << note;
  json cond = PodScheduledCondition("phantom", "first");
  ASSERT_TRUE(cond.is_object());
  EXPECT_EQ(cond["reason"], "SchedulerError");

  CommandResult grant = cluster().Kubectl({"create", "clusterrolebinding", "ksched-limited-bind",
                                           "--clusterrole=system:kube-scheduler",
                                           "--serviceaccount=kube-system:ksched-limited"});
  ASSERT_EQ(grant.exit_code, 0) << grant.err;
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "first", "-n", "phantom"})["spec"].value("nodeName", "") == "phantom-node";
  }));
}

std::string Base64File(const std::string& path) {
  CommandResult r = RunCommand({"base64", "-w0", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// A kubeconfig for the API server as the user of a client certificate (`subject`) that the
// cluster's CA signs, in cluster().dir()/<name>: the certificate and the CA as data, the key in a
// file named relative to the kubeconfig.
std::string ClientCertKubeconfig(const ksched::testing::ControlPlane& cluster,
                                 const std::string& subject, const std::string& name) {
  std::string pki = cluster.dir() + "/pki";
  std::string dir = cluster.dir() + "/" + name;
  std::filesystem::create_directories(dir);
  CommandResult req =
      RunCommand({"openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", subject,
                  "-keyout", dir + "/client.key", "-out", dir + "/client.csr"});
  EXPECT_EQ(req.exit_code, 0) << req.err;
  CommandResult sign = RunCommand({"openssl", "x509", "-req", "-in", dir + "/client.csr", "-CA",
                                   pki + "/ca.crt", "-CAkey", pki + "/ca.key", "-CAcreateserial",
                                   "-days", "1", "-out", dir + "/client.crt"});
  EXPECT_EQ(sign.exit_code, 0) << sign.err;
  json admin = json::parse(
      cluster.Kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out, nullptr, false);
  std::ofstream(dir + "/kubeconfig") << fmt::format(
      R"(apiVersion: v1
kind: Config
current-context: cert
clusters:
- name: c
  cluster:
    server: {}
    certificate-authority-data: {}
users:
- name: u
  user:
    client-certificate-data: {}
    client-key: client.key
contexts:
- name: cert
  context: {{cluster: c, user: u}}
)",
      admin["clusters"][0]["cluster"]["server"].get<std::string>(), Base64File(pki + "/ca.crt"),
      Base64File(dir + "/client.crt"));
  return dir + "/kubeconfig";
}

TEST_F(RunTest, ConnectsWithAClientCertificateAndCaData) {
  const std::string kubeconfig =
      ClientCertKubeconfig(cluster(), "/O=system:masters/CN=ksched-cert", "certuser");
  ASSERT_TRUE(cluster().CreateNodes(1, {.prefix = "cert-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "cert"}).exit_code, 0);
  replicas_.push_back(std::make_unique<Process>(
      std::vector<std::string>{KSCHED_BINARY, "--kubeconfig", kubeconfig, "--leader-elect=false"},
      cluster().dir() + "/ksched-cert.log"));
  Create(Pod("cert", "p", "10m"));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "p", "-n", "cert"})["spec"].contains("nodeName");
  }));
}

// API Priority and Fairness sheds load with 429 and Retry-After. ksched, as a user whose
// FlowSchema leads to a priority level of a few seats that rejects what does not fit, is refused
// often; it sends again what was refused, after the delay asked, binds every pod with its event,
// and says so in one warning.
TEST_F(RunTest, ThrottledByPriorityAndFairnessItStillBindsEveryPod) {
  const std::string kubeconfig = ClientCertKubeconfig(cluster(), "/CN=ksched-throttled", "apf");
  ASSERT_EQ(cluster()
                .Kubectl({"create", "clusterrolebinding", "throttled",
                          "--clusterrole=cluster-admin", "--user=ksched-throttled"})
                .exit_code,
            0);
  Create({{"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
          {"kind", "PriorityLevelConfiguration"},
          {"metadata", {{"name", "ksched-tight"}}},
          {"spec",
           {{"type", "Limited"},
            {"limited",
             {{"nominalConcurrencyShares", 1},  // 3 seats of the 600 (shares 1 of 246)
              {"lendablePercent", 0},
              {"borrowingLimitPercent", 0},  // and none borrowed from idle levels
              {"limitResponse", {{"type", "Reject"}}}}}}}});
  json everything = {{"verbs", {"*"}},
                     {"apiGroups", {"*"}},
                     {"resources", {"*"}},
                     {"namespaces", {"*"}},
                     {"clusterScope", true}};
  Create({{"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
          {"kind", "FlowSchema"},
          {"metadata", {{"name", "ksched-tight"}}},
          {"spec",
           {{"priorityLevelConfiguration", {{"name", "ksched-tight"}}},
            {"matchingPrecedence", 100},
            {"rules",
             {{{"subjects", {{{"kind", "User"}, {"user", {{"name", "ksched-throttled"}}}}}},
               {"resourceRules", {everything}},
               {"nonResourceRules", {{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}}}}}}}}});
  ASSERT_TRUE(cluster().CreateNodes(5, {.prefix = "apf-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "apf"}).exit_code, 0);
  Process* ksched = StartKsched({"--kubeconfig", kubeconfig, "--leader-elect=false"});
  const absl::Time start = absl::Now();
  Create(PodList("apf", "p-", 40));
  // Refused requests wait as long as the API server asks (it asks for more as they pile up),
  // up to 10 times each: give them minutes.
  int bound = 0, scheduled = 0;
  while ((bound < 40 || scheduled < 40) && absl::Now() - start < absl::Minutes(5) &&
         ksched->Running()) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const json pods = Get({"pods", "-n", "apf"});  // Kept: the loop would outlive a temporary.
    bound = 0;
    for (const json& p : pods["items"]) bound += p["spec"].contains("nodeName") ? 1 : 0;
    scheduled = 0;
    for (const json& e : Events("apf")) scheduled += e["reason"] == "Scheduled" ? 1 : 0;
  }
  EXPECT_EQ(bound, 40);
  EXPECT_EQ(scheduled, 40);
  const int64_t minutes = absl::ToInt64Minutes(absl::Now() - start);
  CommandResult metrics = cluster().Kubectl({"get", "--raw", "/metrics"});
  double rejected = 0;
  std::istringstream lines(metrics.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("apiserver_flowcontrol_rejected_requests_total{") &&
        line.find("priority_level=\"ksched-tight\"") != std::string::npos) {
      rejected += std::stod(line.substr(line.rfind(' ') + 1));
    }
  }
  EXPECT_GT(rejected, 0) << "the API server refused nothing; the test proves nothing";
  const std::string log = ksched->Log();
  size_t warnings = 0;
  for (size_t at = 0;
       (at = log.find("asked to send the request again later", at)) != std::string::npos; ++at) {
    ++warnings;
  }
  EXPECT_GE(warnings, 1u);
  EXPECT_LE(warnings, static_cast<size_t>(minutes + 1)) << "one warning a minute";
}

// --master names the API server over the kubeconfig's server, as kube-scheduler's flag does.
TEST_F(RunTest, MasterOverridesTheKubeconfigsServer) {
  json kc = json::parse(
      cluster().Kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out, nullptr, false);
  const std::string server = kc["clusters"][0]["cluster"]["server"];
  kc["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1";  // Nothing listens there.
  const std::string path = cluster().dir() + "/wrong-server.kubeconfig";
  std::ofstream(path) << kc.dump();
  ASSERT_TRUE(cluster().CreateNodes(1, {.prefix = "master-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "master"}).exit_code, 0);
  StartKsched({"--kubeconfig", path, "--master", server, "--leader-elect=false"});
  Create(Pod("master", "p", "10m"));
  ASSERT_TRUE(Eventually([&] {
    return Get({"pod", "p", "-n", "master"})["spec"].contains("nodeName");
  }));
}

// --kube-api-qps and --kube-api-burst, deprecated, set clientConnection only without --config, as
// kube-scheduler's; /configz shows the effective values.
TEST_F(RunTest, DeprecatedClientFlagsApplyOnlyWithoutAConfigFile) {
  const std::string token = ScraperToken();
  auto client_connection = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(),
                 {"--kube-api-qps=123", "--kube-api-burst=456", "--leader-elect=false"});
    Process* p = StartKsched(extra);
    json cc;
    EXPECT_TRUE(Eventually([&] {
      auto r = Serve("/configz", token);
      if (!r || r->status != 200) return false;
      cc = json::parse(r->body, nullptr, false)["componentconfig"]["clientConnection"];
      return true;
    }));
    EXPECT_EQ(p->Stop(SIGTERM), 0);
    return cc;
  };
  json cc = client_connection({});
  EXPECT_EQ(cc["qps"], 123) << cc.dump();
  EXPECT_EQ(cc["burst"], 456) << cc.dump();
  cc = client_connection({"--config", ProfileConfig("deprecated-test")});
  EXPECT_EQ(cc["qps"], 50) << cc.dump();
  EXPECT_EQ(cc["burst"], 100) << cc.dump();
}

TEST_F(RunTest, ServesHealthAndMetricsToWhomRbacAllows) {
  ASSERT_TRUE(cluster().CreateNodes(2, {.prefix = "serve-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "serve"}).exit_code, 0);
  StartKsched();
  ASSERT_TRUE(Eventually([&] {
    auto r = Serve("/readyz");
    return r && r->status == 200;
  })) << "/readyz never became ready";
  EXPECT_EQ(Serve("/healthz")->body, "ok");
  EXPECT_EQ(Serve("/livez?verbose")->body,
            "[+]ping ok\n[+]log ok\n[+]leaderElection ok\nlivez check passed\n");
  Create(PodList("serve", "m-", 5));
  ASSERT_TRUE(Eventually([&] {
    json pods = Get({"pods", "-n", "serve"});
    return std::all_of(pods["items"].begin(), pods["items"].end(),
                       [](const json& p) { return p["spec"].contains("nodeName"); });
  }));

  // Anonymous scrapes are forbidden by RBAC, as with kube-scheduler.
  auto r = Serve("/metrics");
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find(R"(forbidden: User \"system:anonymous\" cannot get path \"/metrics\")"),
            std::string::npos)
      << r->body;
  // A service account may scrape once a ClusterRole grants it GET on /metrics.
  ASSERT_EQ(cluster().Kubectl({"create", "serviceaccount", "other", "-n", "serve"}).exit_code, 0);
  CommandResult other = cluster().Kubectl({"create", "token", "other", "-n", "serve"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(Serve("/metrics", other.out.substr(0, other.out.find('\n')))->status, 403);
  const std::string token = ScraperToken();
  std::string text;
  ASSERT_TRUE(Eventually([&] {  // A denial is cached for 10 seconds.
    auto m = Serve("/metrics", token);
    if (m && m->status == 200) text = m->body;
    return !text.empty();
  }));
  // Other tests' pods and nodes share the cluster, so counts are at least this test's.
  auto value = [&](const std::string& series) { return Sample(text, series); };
  EXPECT_GE(
      value(R"(scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"})"),
      5);
  EXPECT_GE(value(R"(scheduler_cache_size{type="nodes"})"), 2);
  EXPECT_EQ(value(R"(scheduler_pending_pods{queue="active"})"), 0);
  EXPECT_EQ(value(R"(leader_election_master_status{name="kube-scheduler"})"), 1);
  EXPECT_GT(
      value(
          R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Bind",profile="default-scheduler",status="Success"})"),
      0);
  EXPECT_GT(value("process_resident_memory_bytes"), 0);
  // client-go's client metrics, with the API server's host:port: the binds' answers, and their
  // wait in the rate limit.
  const std::string host = fmt::format("127.0.0.1:{}", cluster().api_port());
  EXPECT_GE(value(fmt::format(R"(rest_client_requests_total{{code="201",host="{}",method="POST"}})",
                              host)),
            5)
      << text;
  EXPECT_GE(
      value(fmt::format(
          R"(rest_client_rate_limiter_duration_seconds_count{{host="{}",verb="POST"}})", host)),
      5)
      << text;
  r = Serve("/configz", token);
  ASSERT_EQ(r->status, 200) << r->body;
  json configz = json::parse(r->body, nullptr, false);
  EXPECT_EQ(configz["componentconfig"]["profiles"][0]["schedulerName"], "default-scheduler");
}

// Delegated authentication as kubeadm sets kube-scheduler up: reviews through
// --authentication-kubeconfig and --authorization-kubeconfig (ksched's own account here may not
// create them), and client certificates verified against the cluster's client CA, which ksched
// looks up in configmap kube-system/extension-apiserver-authentication.
TEST_F(RunTest, ScrapersAuthenticateWithTokensOrClientCertificates) {
  const std::string token = ScraperToken();
  const std::string admin = cluster().kubeconfig();
  StartKsched({"--kubeconfig", LimitedKubeconfig(cluster()), "--leader-elect=false",
               "--authentication-kubeconfig", admin, "--authorization-kubeconfig", admin});
  ASSERT_TRUE(Eventually([&] {
    auto r = Serve("/readyz");
    return r && r->status == 200;
  }));
  EXPECT_EQ(Serve("/metrics", token)->status, 200);

  // A certificate of the cluster's CA for user cert-scraper in group scrapers.
  std::string pki = cluster().dir() + "/pki";
  std::string dir = cluster().dir() + "/cert-scraper";
  std::filesystem::create_directories(dir);
  ASSERT_EQ(RunCommand({"openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj",
                        "/O=scrapers/CN=cert-scraper", "-keyout", dir + "/tls.key", "-out",
                        dir + "/tls.csr"})
                .exit_code,
            0);
  ASSERT_EQ(RunCommand({"openssl", "x509", "-req", "-in", dir + "/tls.csr", "-CA", pki + "/ca.crt",
                        "-CAkey", pki + "/ca.key", "-CAcreateserial", "-days", "1", "-out",
                        dir + "/tls.crt"})
                .exit_code,
            0);
  auto scrape = [&] {
    httplib::SSLClient client("127.0.0.1", secure_port_, dir + "/tls.crt", dir + "/tls.key");
    client.enable_server_certificate_verification(false);
    return client.Get("/metrics");
  };
  auto r = scrape();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find(R"(forbidden: User \"cert-scraper\" cannot get path \"/metrics\")"),
            std::string::npos)
      << r->body;
  ASSERT_EQ(cluster()
                .Kubectl({"create", "clusterrolebinding", "cert-scrapers",
                          "--clusterrole=metrics-reader", "--group=scrapers"})
                .exit_code,
            0);
  ASSERT_TRUE(Eventually([&] {  // A denial is cached for 10 seconds.
    auto m = scrape();
    return m && m->status == 200 && m->body.find("scheduler_pending_pods") != std::string::npos;
  }));
}

TEST_F(RunTest, SecurePortZeroServesNothing) {
  Process* p = StartKsched({"--secure-port=0", "--leader-elect=false"});
  ASSERT_TRUE(Eventually(
      [&] { return p->Log().find("Starting Kubernetes Scheduler") != std::string::npos; }));
  secure_port_ = 10259;  // The default port: the other tests' replicas serve on free ports.
  EXPECT_FALSE(Serve("/healthz")) << "nothing listens";
  EXPECT_EQ(p->Log().find("Serving securely"), std::string::npos);
}

// deploy/ as a user applies it: the ServiceAccount's roles let ksched, with deploy/config.yaml,
// elect itself on its own Lease and schedule the pods that ask for it. (No kubelet runs here, so
// ksched runs as a process with the account's token, as the Deployment's pods would.)
TEST_F(RunTest, DeployManifestsGiveKschedWhatItNeeds) {
  const std::string deploy = std::string(KSCHED_SOURCE_DIR) + "/deploy";
  CommandResult r = cluster().Kubectl({"apply", "-k", deploy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Get({"deployment", "ksched", "-n", "kube-system"})["spec"]["replicas"], 2);
  ASSERT_TRUE(cluster().CreateNodes(2, {.prefix = "deploy-"}).ok());
  ASSERT_EQ(cluster().Kubectl({"create", "namespace", "deploy"}).exit_code, 0);
  std::string kubeconfig = TokenKubeconfig(cluster(), "kube-system", "ksched");
  Process* ksched =
      StartKsched({"--config", deploy + "/config.yaml", "--kubeconfig", kubeconfig, "--v=10"});
  Create(Pod("deploy", "mine", "100m", "ksched"));
  Create(Pod("deploy", "not-mine", "100m"));  // default-scheduler's: no one here schedules it.
  ASSERT_TRUE(Eventually([&] {
    json pod = Get({"pod", "mine", "-n", "deploy"});
    return pod["spec"].contains("nodeName");
  })) << ksched->Log();
  json lease = Get({"lease", "ksched", "-n", "kube-system"});
  EXPECT_TRUE(lease["spec"].value("holderIdentity", "").starts_with(Hostname())) << lease.dump();
  EXPECT_FALSE(Get({"pod", "not-mine", "-n", "deploy"})["spec"].contains("nodeName"));
  EXPECT_EQ(Serve("/readyz")->status, 200);
  EXPECT_EQ(ksched->Log().find("forbidden"), std::string::npos) << ksched->Log();
  // Even at -v 10 the token is never logged.
  std::ifstream in(kubeconfig);
  json kc = json::parse(in, nullptr, false);
  const std::string token = kc["users"][0]["user"]["token"];
  ASSERT_GT(token.size(), 20u);
  EXPECT_EQ(ksched->Log().find(token.substr(0, 20)), std::string::npos);
}

TEST_F(RunTest, BadKubeconfigIsAClearErrorWithExitCode1) {
  CommandResult r = RunCommand({KSCHED_BINARY, "--kubeconfig", "/nonexistent/kubeconfig"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "ksched: open /nonexistent/kubeconfig: no such file or directory\n");
}

// --write-config-to writes the effective configuration, flags applied, and exits 0, as
// kube-scheduler's; it is what `ksched config print` prints for the file, plus the flags.
TEST_F(RunTest, WriteConfigToWritesTheEffectiveConfigurationAndExits) {
  const std::string config = ProfileConfig("written-test");
  const std::string out = cluster().dir() + "/written.yaml";
  CommandResult r = RunCommand({KSCHED_BINARY, "--config", config,
                                "--leader-elect-resource-name=written", "--write-config-to", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CommandResult printed = RunCommand({KSCHED_BINARY, "config", "print", "--config", config});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  ASSERT_NE(printed.out.find("resourceName: kube-scheduler"), std::string::npos) << printed.out;
  std::string want = printed.out;
  want.replace(want.find("resourceName: kube-scheduler"), 28, "resourceName: written");
  EXPECT_EQ(written, want);
}

TEST_F(RunTest, BadDelegatedAuthFlagsAreClearErrorsWithExitCode1) {
  const std::string admin = cluster().kubeconfig();
  CommandResult r = RunCommand({KSCHED_BINARY, "--kubeconfig", admin, "--authentication-kubeconfig",
                                "/nonexistent/authn", "--leader-elect=false"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "ksched: --authentication-kubeconfig: open /nonexistent/authn: no such file or "
            "directory\n");
  r = RunCommand({KSCHED_BINARY, "--kubeconfig", admin, "--client-ca-file", "/nonexistent/ca.crt",
                  "--leader-elect=false"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "ksched: --client-ca-file: open /nonexistent/ca.crt: no such file or directory\n");
  // A file that holds no certificate stops the start too, before anything is scheduled.
  std::ofstream(cluster().dir() + "/not-a-ca.crt") << "hello\n";
  r = RunCommand({KSCHED_BINARY, "--kubeconfig", admin, "--client-ca-file",
                  cluster().dir() + "/not-a-ca.crt", "--leader-elect=false",
                  fmt::format("--secure-port={}", FreePort())});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, fmt::format("ksched: --client-ca-file \"{}/not-a-ca.crt\": no PEM certificate\n",
                               cluster().dir()));
}

}  // namespace
}  // namespace ksched::testing
