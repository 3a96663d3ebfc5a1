#include "test/difftest/state.h"

#include <gtest/gtest.h>

namespace ksched::difftest {
namespace {

using nlohmann::json;

json Pod(const std::string& name, const std::string& node = "") {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", {{{"name", "c"}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

// A pod as the API server returns it: with its own metadata and a status.
json Read(json pod, const std::string& scheduler = "") {
  pod.erase("kind");  // As in a list's items.
  pod["metadata"]["uid"] = "uid-" + pod["metadata"]["name"].get<std::string>();
  pod["metadata"]["managedFields"] = json::array({{{"manager", "kube-scheduler"}}});
  pod["status"]["startTime"] = "2026-11-26T18:00:00Z";
  if (!scheduler.empty()) pod["spec"]["schedulerName"] = scheduler;
  return pod;
}

Case SeedCase() {
  Case c;
  c.setup = {{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}},
             {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n2"}}}},
             Pod("running-0", "n1"),
             Pod("running-1", "n2")};
  c.pending = {Pod("pod-7"), Pod("pod-3"), Pod("pod-5"), Pod("pod-2")};
  return c;
}

PodStates StateOf(std::vector<json> pods) {
  PodStates out;
  for (json& p : pods) {
    const std::string key = KeyOf(p);
    out[key] = std::move(p);
  }
  return out;
}

TEST(StateTest, CasePodsKeepsTheCasesPodsOfAList) {
  json list = {
      {"items",
       {Read(Pod("running-0", "n1")), Read(Pod("pod-3")), Read(Pod("difftest-probe-ksched"))}}};
  PodStates s = CasePods(SeedCase(), list);
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(NodeOf(s, "default/running-0"), "n1");
  EXPECT_EQ(NodeOf(s, "default/pod-3"), "");
  EXPECT_EQ(NodeOf(s, "default/pod-9"), "");
  EXPECT_EQ(s["default/pod-3"]["kind"], "Pod");
}

// Seed 70016: kube-scheduler bound pod-3, which it had left pending, once pod-7's preemption had
// evicted running-1; ksched's cluster must get pod-3 there and lose running-1 before pod-2.
TEST(StateTest, StepsToReachBindWhatTheTargetBoundAndRemoveTheRest) {
  const PodStates target =
      StateOf({Pod("running-0", "n1"), Pod("pod-7", "n2"), Pod("pod-3", "n1"), Pod("pod-2")});
  const PodStates now =
      StateOf({Pod("running-0", "n1"), Pod("running-1", "n2"), Pod("pod-7", "n1"), Pod("pod-3")});
  EXPECT_EQ(StepsToReach(target, now),
            (std::vector<Step>{{.key = "default/pod-3", .remove = true, .node = "n1"},
                               {.key = "default/pod-7", .remove = true, .node = "n2"},
                               {.key = "default/running-1", .remove = true, .node = ""}}));
  EXPECT_TRUE(StepsToReach(target, target).empty());
}

TEST(StateTest, APodPendingInTheTargetMayStayPendingOrBeGoneButNotBound) {
  const PodStates target = StateOf({Pod("pod-3"), Pod("pod-2")});
  EXPECT_TRUE(StepsToReach(target, StateOf({Pod("pod-3")})).empty());
  EXPECT_EQ(StepsToReach(target, StateOf({Pod("pod-3", "n1")})),
            (std::vector<Step>{{.key = "default/pod-3", .remove = true}}));
  // Gone from the target, pending here: deleted, so that nobody binds it later.
  EXPECT_EQ(StepsToReach(StateOf({}), StateOf({Pod("pod-3")})),
            (std::vector<Step>{{.key = "default/pod-3", .remove = true}}));
  // Bound in the target, gone here: created again.
  EXPECT_EQ(StepsToReach(StateOf({Pod("running-1", "n2")}), StateOf({})),
            (std::vector<Step>{{.key = "default/running-1", .node = "n2"}}));
}

TEST(StateTest, RemovedNamesThePodsGoneOrGoingSinceButNotThoseAlreadyGoing) {
  json going = Pod("running-1", "n2");
  going["metadata"]["deletionTimestamp"] = "2026-11-26T18:00:00Z";
  json went_before = going;
  went_before["metadata"]["name"] = "pod-7";
  const PodStates before =
      StateOf({Pod("running-0", "n1"), Pod("running-1", "n2"), Pod("pod-3"), went_before});
  const PodStates now = StateOf({Pod("running-0", "n1"), going});
  EXPECT_EQ(Removed(before, now), (std::vector<std::string>{"default/pod-3", "default/running-1"}));
}

TEST(StateTest, PlacementShowsNodesDeletionsAndNominations) {
  json nominated = Pod("pod-7");
  nominated["status"]["nominatedNodeName"] = "n2";
  json going = Pod("running-1", "n2");
  going["metadata"]["deletionTimestamp"] = "2026-11-26T18:00:00Z";
  EXPECT_EQ(Placement(StateOf({nominated, going})),
            "default/pod-7 on \"\", nominated to n2\n"
            "default/running-1 on \"n2\", being deleted\n");
}

TEST(StateTest, BoundCopyIsTheCasesPodOnTheNodeWithTheStartTimeTheTargetShows) {
  const Case c = SeedCase();
  const PodStates target = StateOf({Read(Pod("pod-3", "n1"), "up-default-scheduler")});
  json pod = BoundCopy(c, "default/pod-3", "n1", target, "ks-");
  EXPECT_EQ(pod["spec"]["nodeName"], "n1");
  EXPECT_EQ(pod["spec"]["schedulerName"], "ks-default-scheduler");
  EXPECT_EQ(pod["status"]["startTime"], "2026-11-26T18:00:00Z");
  EXPECT_FALSE(pod["metadata"].contains("uid"));  // A new object, not the one read.
  json running = BoundCopy(c, "default/running-0", "n1", {}, "ks-");
  EXPECT_FALSE(running["spec"].contains("schedulerName"));
  EXPECT_FALSE(running.contains("status"));
}

TEST(StateTest, SimulationGetsTheBoundPodsAsReadAndThePodToDecide) {
  const Case c = SeedCase();
  json nominated = Read(Pod("pod-7"), "up-default-scheduler");
  nominated["status"]["nominatedNodeName"] = "n2";
  json list = {{"items",
                {Read(Pod("running-0", "n1")), Read(Pod("pod-3", "n1"), "up-default-scheduler"),
                 nominated, Read(Pod("pod-5"), "up-default-scheduler")}}};
  json input = SimulationInput(c, CasePods(c, list), {}, {c.pending[3]}, "up-");
  std::vector<std::string> items;
  for (const json& o : input["items"]) {
    items.push_back(o["kind"].get<std::string>() + " " + o["metadata"]["name"].get<std::string>());
    if (o["kind"] != "Pod") continue;
    EXPECT_FALSE(o["metadata"].contains("managedFields"));
    EXPECT_NE(o["spec"].value("schedulerName", ""), "up-default-scheduler");
  }
  // running-1, which the state does not have, is left out, and so is pod-5, pending.
  EXPECT_EQ(items, (std::vector<std::string>{"Node n1", "Node n2", "Pod pod-3", "Pod pod-7",
                                             "Pod running-0", "Pod pod-2"}));
  EXPECT_EQ(input["items"][2]["status"]["startTime"], "2026-11-26T18:00:00Z");
  EXPECT_EQ(input["items"][3]["status"]["nominatedNodeName"], "n2");
}

json Volume(const std::string& name, json spec, const std::string& phase) {
  return {{"metadata", {{"name", name}, {"uid", "uid-" + name}, {"resourceVersion", "7"}}},
          {"spec", std::move(spec)},
          {"status", {{"phase", phase}}}};
}

json Claim(const std::string& name, json spec, const std::string& phase) {
  json claim = Volume(name, std::move(spec), phase);
  claim["metadata"]["namespace"] = "default";
  return claim;
}

// kube-scheduler bound claim "data" to the local PV of n1 and wrote "cache"'s selected node; the
// PV controller finished the first.
Storage Bound() {
  json claim_ref = {{"namespace", "default"}, {"name", "data"}, {"uid", "uid-data"}};
  json data = Claim("data", {{"volumeName", "local-n1"}}, "Bound");
  data["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes";
  json cache = Claim("cache", json::object(), "Pending");
  cache["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] = "n2";
  json local = Volume("local-n1", {{"claimRef", claim_ref}}, "Bound");
  local["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes";
  return StorageOf({{"items", {local, Volume("local-n2", json::object(), "Available")}}},
                   {{"items", {data, cache}}});
}

TEST(StateTest, BindingSaysWhatEachVolumeAndClaimIsBoundTo) {
  EXPECT_EQ(Binding(Bound()),
            "PersistentVolume/local-n1 to \"default/data\" (Bound)\n"
            "PersistentVolume/local-n2 to \"\" (Available)\n"
            "PersistentVolumeClaim/default/cache to \"\" (Pending), selected node n2\n"
            "PersistentVolumeClaim/default/data to \"local-n1\" (Bound)\n");
  EXPECT_EQ(Bound()["PersistentVolumeClaim/default/data"]["kind"], "PersistentVolumeClaim");
  EXPECT_FALSE(BindingInFlight(Bound()));
}

// A claim's devices, and what a share of one consumes; not the share's ID, which is random.
TEST(StateTest, BindingSaysWhatDevicesAClaimGotAndWhatItsSharesConsume) {
  const nlohmann::json claim = nlohmann::json::parse(R"({
      "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
      "status": {"allocation": {"devices": {"results": [
        {"request": "nic", "driver": "nic.example.com", "pool": "n1", "device": "eth0",
         "shareID": "0b9d4c1e-2f3a-4b5c-8d6e-7f8091a2b3c4", "consumedCapacity": {"bandwidth": "3G"}},
        {"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]}}}})");
  EXPECT_EQ(Binding({{"ResourceClaim/default/c", claim}}),
            "ResourceClaim/default/c devices [nic: nic.example.com/n1/eth0 {\"bandwidth\":\"3G\"}, "
            "gpu: gpu.example.com/n1/gpu-0]\n");
}

// A scheduler wrote a static PV's claimRef, or a claim names its volume, and the PV controller
// has not yet bound them; a new PV it has not yet seen.
TEST(StateTest, ABindingThePvControllerHasNotFinishedIsInFlight) {
  Storage s = Bound();
  s["PersistentVolume/local-n2"]["spec"]["claimRef"] = {{"name", "cache"}, {"uid", "uid-cache"}};
  EXPECT_TRUE(BindingInFlight(s));
  s = Bound();
  s["PersistentVolumeClaim/default/data"]["status"]["phase"] = "Pending";
  EXPECT_TRUE(BindingInFlight(s));
  s = Bound();
  s["PersistentVolume/local-n2"]["status"]["phase"] = "Pending";
  EXPECT_TRUE(BindingInFlight(s));
}

// Made again, the PV and claim are pre-bound to each other by name, for the PV controller to
// bind again: what it and the API server wrote is gone, the selected node stays.
TEST(StateTest, RecreatableKeepsTheBindingAndDropsWhatTheControllerWrites) {
  const Storage s = Bound();
  json pv = Recreatable(s.at("PersistentVolume/local-n1"));
  EXPECT_EQ(pv["spec"]["claimRef"], (json{{"namespace", "default"}, {"name", "data"}}));
  EXPECT_FALSE(pv.contains("status"));
  EXPECT_FALSE(pv["metadata"].contains("uid"));
  EXPECT_FALSE(pv["metadata"].contains("resourceVersion"));
  EXPECT_TRUE(pv["metadata"]["annotations"].empty());
  json data = Recreatable(s.at("PersistentVolumeClaim/default/data"));
  EXPECT_EQ(data["spec"]["volumeName"], "local-n1");
  EXPECT_TRUE(data["metadata"]["annotations"].empty());
  json cache = Recreatable(s.at("PersistentVolumeClaim/default/cache"));
  EXPECT_EQ(cache["metadata"]["annotations"]["volume.kubernetes.io/selected-node"], "n2");
}

// simulate gets the PVs and claims as they were on kube-scheduler's turn, not the case's.
TEST(StateTest, SimulationGetsTheStorageAsRead) {
  Case c = SeedCase();
  c.setup.push_back(
      {{"apiVersion", "v1"}, {"kind", "PersistentVolume"}, {"metadata", {{"name", "local-n1"}}}});
  c.setup.push_back({{"apiVersion", "storage.k8s.io/v1"},
                     {"kind", "StorageClass"},
                     {"metadata", {{"name", "local"}}}});
  Storage storage = Bound();
  storage["PersistentVolume/local-n1"]["metadata"]["managedFields"] = json::array();
  json input = SimulationInput(c, {}, storage, {c.pending[0]}, "up-");
  std::vector<std::string> items;
  for (const json& o : input["items"]) {
    items.push_back(o["kind"].get<std::string>() + " " + o["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(items, (std::vector<std::string>{
                       "Node n1", "Node n2", "StorageClass local", "PersistentVolume local-n1",
                       "PersistentVolume local-n2", "PersistentVolumeClaim cache",
                       "PersistentVolumeClaim data", "Pod pod-7"}));
  EXPECT_EQ(input["items"][3]["status"]["phase"], "Bound");
  EXPECT_FALSE(input["items"][3]["metadata"].contains("managedFields"));
}

}  // namespace
}  // namespace ksched::difftest
