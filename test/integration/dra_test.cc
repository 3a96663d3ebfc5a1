// Pods with DRA resource claims, scheduled by `ksched run` on a control plane that runs
// kube-controller-manager: its resourceclaim controller makes the claims of ResourceClaimTemplates
// (and deallocates them when their pods go), as in a real cluster. The tests publish
// ResourceSlices as a driver would; kubectl creates the objects and reads back what ksched and the
// controller wrote.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "nlohmann/json.hpp"
#include "src/testing/metrics_text.h"
#include "test/integration/ksched_process_test.h"
#include "test/integration/serve.h"

namespace ksched::testing {
namespace {

// PodGroups' claims (DRAWorkloadResourceClaims) need the gates in the API server, which drops the
// field otherwise, and in the resourceclaim controller, which makes the groups' claims.
constexpr char kWorkloadClaimGates[] =
    "--feature-gates=GenericWorkload=true,DRAWorkloadResourceClaims=true";
const bool kWithControllers =
    (SharedControlPlaneOptions().controller_manager = true,
     SharedControlPlaneOptions().controller_manager_flags = kWorkloadClaimGates,
     SharedControlPlaneOptions().apiserver_flags =
         std::string(kWorkloadClaimGates) + " --runtime-config=scheduling.k8s.io/v1beta1=true",
     true);

json DeviceClass(const std::string& name, const std::string& expression) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "DeviceClass"},
          {"metadata", {{"name", name}}},
          {"spec", {{"selectors", {{{"cel", {{"expression", expression}}}}}}}}};
}

// `devices` GPUs of gpu.example.com on `node`, with a model attribute.
json GpuSlice(const std::string& node, int devices) {
  json list = json::array();
  for (int i = 0; i < devices; ++i) {
    list.push_back(
        {{"name", "gpu-" + std::to_string(i)}, {"attributes", {{"model", {{"string", "a100"}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", node + "-gpus"}}},
          {"spec",
           {{"driver", "gpu.example.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", list}}}};
}

json Template(const std::string& ns, const std::string& name, const std::string& device_class) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaimTemplate"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"spec",
             {{"devices",
               {{"requests",
                 {{{"name", "gpu"}, {"exactly", {{"deviceClassName", device_class}}}}}}}}}}}}};
}

json PodWithTemplate(const std::string& ns, const std::string& name, const std::string& tmpl) {
  json pod = Pod(ns, name, "100m");
  pod["spec"]["resourceClaims"] = {{{"name", "gpu"}, {"resourceClaimTemplateName", tmpl}}};
  return pod;
}

class DraTest : public KschedProcessTest {
 protected:
  void SetUp() override {
    KschedProcessTest::SetUp();
    ASSERT_TRUE(kWithControllers);
  }
  void TearDown() override {
    KschedProcessTest::TearDown();
    for (const std::string& node : nodes_) {
      cluster().Kubectl({"delete", "resourceslice", node + "-gpus"});
      cluster().Kubectl({"delete", "node", node});
    }
    for (const std::string& slice : slices_) cluster().Kubectl({"delete", "resourceslice", slice});
  }
  // A namespace of its own, and a node named "<ns>-gpu" with `gpus` GPUs.
  std::string Namespace(const std::string& ns, int gpus) {
    Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    nodes_.push_back(ns + "-gpu");
    Create(Node(nodes_.back(), "8"));
    Create(GpuSlice(nodes_.back(), gpus));
    return ns;
  }
  std::string NodeOf(const std::string& ns, const std::string& pod) {
    return Get({"pod", pod, "-n", ns})["spec"].value("nodeName", "");
  }

  // The pod's claim, made by the controller from its template; null until it is.
  json ClaimOf(const std::string& ns, const std::string& pod) {
    const json statuses =
        Get({"pod", pod, "-n", ns})["status"].value("resourceClaimStatuses", json::array());
    if (statuses.empty()) return nullptr;
    return Get({"resourceclaim", statuses[0].value("resourceClaimName", ""), "-n", ns});
  }
  // What a driver's controller writes: the condition `type` of the claim's one device, with
  // `status`.
  void Report(const json& claim, const std::string& type, const std::string& status,
              const std::string& reason, const std::string& message) {
    const json& result = claim["status"]["allocation"]["devices"]["results"][0];
    const json patch = {{"status",
                         {{"devices",
                           {{{"driver", result["driver"]},
                             {"pool", result["pool"]},
                             {"device", result["device"]},
                             {"conditions",
                              {{{"type", type},
                                {"status", status},
                                {"reason", reason},
                                {"message", message},
                                {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}}}}}}};
    CommandResult r =
        cluster().Kubectl({"patch", "resourceclaim", claim["metadata"]["name"].get<std::string>(),
                           "-n", claim["metadata"]["namespace"].get<std::string>(),
                           "--subresource=status", "--type=merge", "-p", patch.dump()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // The /metrics text of the ksched started with --authorization-always-allow-paths=/metrics.
  std::string Metrics() {
    httplib::Result r = ServeHttps(secure_port_, "/metrics");
    return r ? r->body : "";
  }

  std::vector<std::string> nodes_;
  std::vector<std::string> slices_;
};

// The controller makes each pod's claim from the template; ksched gives each a GPU until there is
// none left. When a pod goes, the controller frees its claim and the waiting pod gets the GPU.
TEST_F(DraTest, TemplateClaimsMadeByTheControllerGetDevicesUntilNoneIsLeft) {
  const std::string ns = Namespace("dra-template", 2);
  Create(DeviceClass("dra-template-gpu", "device.driver == \"gpu.example.com\""));
  Create(Template(ns, "one-gpu", "dra-template-gpu"));
  StartKsched();
  for (const char* name : {"w0", "w1"}) Create(PodWithTemplate(ns, name, "one-gpu"));
  ASSERT_TRUE(Eventually(
      [&] { return NodeOf(ns, "w0") == ns + "-gpu" && NodeOf(ns, "w1") == ns + "-gpu"; }));
  // Each pod's claim: made by the controller, owned by the pod, allocated and reserved for it.
  std::set<std::string> devices;
  for (const char* name : {"w0", "w1"}) {
    json pod = Get({"pod", name, "-n", ns});
    const std::string claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"];
    json claim = Get({"resourceclaim", claim_name, "-n", ns});
    EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["name"], name);
    EXPECT_EQ(claim["status"]["reservedFor"][0]["name"], name);
    devices.insert(
        claim["status"]["allocation"]["devices"]["results"][0]["device"].get<std::string>());
  }
  EXPECT_EQ(devices, (std::set<std::string>{"gpu-0", "gpu-1"}));

  Create(PodWithTemplate(ns, "w2", "one-gpu"));
  ASSERT_TRUE(Eventually([&] { return !FailedSchedulingNote(ns).empty(); }));
  EXPECT_THAT(FailedSchedulingNote(ns), ::testing::HasSubstr("cannot allocate all claims"));
  EXPECT_EQ(NodeOf(ns, "w2"), "");

  ASSERT_EQ(
      cluster().Kubectl({"delete", "pod", "w0", "-n", ns, "--grace-period=0", "--force"}).exit_code,
      0);
  EXPECT_TRUE(Eventually([&] { return NodeOf(ns, "w2") == ns + "-gpu"; }));
}

// DRAWorkloadResourceClaims: the gang's pods name the template with the same entry as their
// PodGroup, so the controller makes one claim, owned by the group; ksched allocates it once and
// reserves it for the PodGroup (one entry of reservedFor, not one per pod), and both pods share
// its GPU. The pod of no group gets a claim and a GPU of its own.
TEST_F(DraTest, APodGroupsClaimIsSharedByItsPodsAndReservedForTheGroupOnce) {
  const std::string ns = Namespace("dra-group", 2);
  Create(DeviceClass("dra-group-gpu", "device.driver == \"gpu.example.com\""));
  Create(Template(ns, "one-gpu", "dra-group-gpu"));
  StartKsched({kWorkloadClaimGates});
  Create({{"apiVersion", "scheduling.k8s.io/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", "train"}, {"namespace", ns}}},
          {"spec",
           {{"schedulingPolicy", {{"gang", {{"minCount", 2}}}}},
            {"resourceClaims", {{{"name", "gpu"}, {"resourceClaimTemplateName", "one-gpu"}}}}}}});
  for (const char* name : {"train-0", "train-1"}) {
    json pod = PodWithTemplate(ns, name, "one-gpu");
    pod["spec"]["schedulingGroup"] = {{"podGroupName", "train"}};
    Create(pod);
  }
  Create(PodWithTemplate(ns, "solo", "one-gpu"));
  ASSERT_TRUE(Eventually([&] {
    return NodeOf(ns, "train-0") == ns + "-gpu" && NodeOf(ns, "train-1") == ns + "-gpu" &&
           NodeOf(ns, "solo") == ns + "-gpu";
  }));
  const json group_claim = ClaimOf(ns, "train-0");
  ASSERT_TRUE(group_claim.is_object());
  EXPECT_EQ(ClaimOf(ns, "train-1")["metadata"]["name"], group_claim["metadata"]["name"]);
  const json group = Get({"podgroup", "train", "-n", ns});
  EXPECT_EQ(group_claim["metadata"]["ownerReferences"][0]["kind"], "PodGroup");
  EXPECT_EQ(group_claim["metadata"]["ownerReferences"][0]["uid"], group["metadata"]["uid"]);
  const json reserved = group_claim["status"]["reservedFor"];
  ASSERT_EQ(reserved.size(), 1u) << reserved.dump();
  EXPECT_EQ(reserved[0].value("apiGroup", ""), "scheduling.k8s.io");
  EXPECT_EQ(reserved[0]["resource"], "podgroups");
  EXPECT_EQ(reserved[0]["name"], "train");
  EXPECT_EQ(reserved[0]["uid"], group["metadata"]["uid"]);
  const json solo = ClaimOf(ns, "solo");
  ASSERT_TRUE(solo.is_object());
  EXPECT_EQ(solo["status"]["reservedFor"][0]["name"], "solo");
  EXPECT_NE(solo["status"]["allocation"]["devices"]["results"][0]["device"],
            group_claim["status"]["allocation"]["devices"]["results"][0]["device"]);
}

// A selector that fails on the cluster's devices ends its pod's attempts with upstream's CEL error;
// the other pods are scheduled and ksched keeps running.
TEST_F(DraTest, ABrokenSelectorHoldsBackItsPodOnly) {
  // Two GPUs: one for "good", and one the broken selector is evaluated on (a device in use is
  // passed over before any selector, as upstream does).
  const std::string ns = Namespace("dra-broken", 2);
  Create(
      DeviceClass("dra-broken-typo", "device.attributes[\"gpu.example.com\"].modell == \"a100\""));
  Create(
      DeviceClass("dra-broken-good", "device.attributes[\"gpu.example.com\"].model == \"a100\""));
  Create(Template(ns, "typo", "dra-broken-typo"));
  Create(Template(ns, "good", "dra-broken-good"));
  StartKsched();
  Create(PodWithTemplate(ns, "typo", "typo"));
  Create(PodWithTemplate(ns, "good", "good"));
  ASSERT_TRUE(Eventually([&] { return NodeOf(ns, "good") == ns + "-gpu"; }));
  ASSERT_TRUE(Eventually([&] { return !FailedSchedulingNote(ns).empty(); }));
  EXPECT_THAT(FailedSchedulingNote(ns),
              ::testing::ContainsRegex("class dra-broken-typo: selector #0 on device "
                                       "gpu.example.com/dra-broken-gpu/gpu-[01]: CEL runtime "
                                       "error: no such key: modell"));
  EXPECT_EQ(NodeOf(ns, "typo"), "");
  // And ksched goes on with the pods that come after.
  Create(Pod(ns, "plain", "100m"));
  EXPECT_TRUE(Eventually([&] { return NodeOf(ns, "plain") == ns + "-gpu"; }));
  EXPECT_EQ(NodeOf(ns, "typo"), "");
}

// A device its driver attaches before the pod may bind (binding conditions): ksched waits in
// PreBind, saying so in an event, until the driver (the test) reports it attached. A failure sends
// the pod back: its next attempt deallocates the claim, the one after allocates it again.
TEST_F(DraTest, PodsWaitForTheirDevicesToBeAttached) {
  const std::string ns = Namespace("dra-attach", 1);  // Its GPU is of another driver.
  const std::string node = ns + "-gpu";
  slices_.push_back(node + "-xpus");
  Create({{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", slices_.back()}}},
          {"spec",
           {{"driver", "xpu.example.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices",
             {{{"name", "xpu-0"},
               {"bindingConditions", {"attached"}},
               {"bindingFailureConditions", {"failed"}}}}}}}});
  Create(DeviceClass("dra-attach-xpu", "device.driver == \"xpu.example.com\""));
  Create(Template(ns, "xpu", "dra-attach-xpu"));
  StartKsched({"--authorization-always-allow-paths=/metrics"});
  Create(PodWithTemplate(ns, "a", "xpu"));

  // PreBind wrote the allocation, with the device's conditions, and waits.
  json claim;
  ASSERT_TRUE(Eventually([&] {
    claim = ClaimOf(ns, "a");
    return claim.is_object() && !claim["status"].value("reservedFor", json::array()).empty();
  }));
  const json& result = claim["status"]["allocation"]["devices"]["results"][0];
  EXPECT_EQ(result["device"], "xpu-0");
  EXPECT_EQ(result["bindingConditions"], json({"attached"}));
  EXPECT_EQ(result["bindingFailureConditions"], json({"failed"}));
  std::string pending;
  ASSERT_TRUE(Eventually([&] {
    for (const json& e : Events(ns)) {
      if (e["reason"] == "BindingConditionsPending") pending = e["note"];
    }
    return !pending.empty();
  }));
  EXPECT_EQ(pending, "waiting for binding conditions for device on node " + node);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(NodeOf(ns, "a"), "");

  // The driver could not attach it.
  Report(claim, "failed", "True", "LinkDown", "port 7 is down");
  EXPECT_EQ(FailedSchedulingNote(ns),
            fmt::format("running PreBind plugin \"DynamicResources\": device binding failed: "
                        "claim={}, reason=LinkDown, message=\"port 7 is down\"",
                        claim["metadata"]["name"].get<std::string>()));
  // Deallocated (its device status gone with it), then allocated and reserved again.
  ASSERT_TRUE(Eventually([&] {
    claim = ClaimOf(ns, "a");
    return !claim["status"].value("reservedFor", json::array()).empty() &&
           claim["status"].value("devices", json::array()).empty();
  }));
  EXPECT_EQ(NodeOf(ns, "a"), "");
  Report(claim, "attached", "True", "Attached", "on port 8");
  ASSERT_TRUE(Eventually([&] { return NodeOf(ns, "a") == node; }));

  auto allocations = [](const std::string& status) {
    return "scheduler_dra_bindingconditions_allocations_total{driver=\"xpu.example.com\","
           "profile=\"default-scheduler\",status=\"" +
           status + "\"}";
  };
  const std::string text = Metrics();
  EXPECT_EQ(Sample(text, allocations("failure")), 1) << text;
  EXPECT_EQ(Sample(text, allocations("success")), 1) << text;
}

// A pod asks for example.com/xpu as for any extended resource; no device plugin advertises it, a
// DeviceClass backs it, and the node's ResourceSlice has the devices: ksched makes the pod a
// claim, allocates and reserves it, and writes the pod's extendedResourceClaimStatus.
TEST_F(DraTest, ExtendedResourcesAreServedByAClaimTheSchedulerMakes) {
  const std::string ns = Namespace("dra-extended", 1);
  const std::string node = ns + "-gpu";
  json cls = DeviceClass("dra-extended-xpu", "device.driver == \"gpu.example.com\"");
  cls["spec"]["extendedResourceName"] = "example.com/xpu";
  Create(cls);
  StartKsched();
  json pod = Pod(ns, "a", "100m");
  pod["spec"]["containers"][0]["resources"]["requests"]["example.com/xpu"] = "1";
  pod["spec"]["containers"][0]["resources"]["limits"] = {{"example.com/xpu", "1"}};
  Create(pod);
  ASSERT_TRUE(Eventually([&] { return NodeOf(ns, "a") == node; }));
  const json status = Get({"pod", "a", "-n", ns})["status"]["extendedResourceClaimStatus"];
  ASSERT_TRUE(status.is_object()) << Get({"pod", "a", "-n", ns}).dump();
  EXPECT_EQ(status["requestMappings"],
            json::parse(R"([{"containerName": "c", "resourceName": "example.com/xpu",
                              "requestName": "container-0-request-1"}])"));
  const std::string name = status["resourceClaimName"];
  EXPECT_TRUE(name.starts_with("a-extended-resources-")) << name;
  const json claim = Get({"resourceclaim", name, "-n", ns});
  EXPECT_EQ(claim["metadata"]["annotations"]["resource.kubernetes.io/extended-resource-claim"],
            "true");
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["name"], "a");
  EXPECT_EQ(claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"],
            "dra-extended-xpu");
  EXPECT_EQ(claim["status"]["allocation"]["devices"]["results"][0]["device"], "gpu-0");
  EXPECT_EQ(claim["status"]["reservedFor"][0]["name"], "a");
  cluster().Kubectl({"delete", "deviceclass", "dra-extended-xpu"});
}

}  // namespace
}  // namespace ksched::testing
