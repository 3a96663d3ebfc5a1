// The invariant checker catches each kind of violation it claims to, and stays quiet on a clean
// history: it is what the chaos soak's verdict rests on.
#include "test/chaos/invariants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fmt/format.h"

namespace ksched::chaos {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// An audit line as kube-apiserver writes it (trimmed to the fields the checker reads).
std::string BindLine(const std::string& pod, const std::string& user, const std::string& at,
                     int code = 201) {
  return fmt::format(
      R"({{"kind":"Event","stage":"ResponseComplete","verb":"create","user":{{"username":"{}"}},)"
      R"("objectRef":{{"resource":"pods","namespace":"chaos","name":"{}","subresource":"binding"}},)"
      R"("responseStatus":{{"code":{}}},"requestReceivedTimestamp":"{}",)"
      R"("stageTimestamp":"{}"}})",
      user, pod, code, at, at);
}
std::string LeaseLine(const std::string& user, const std::string& holder, const std::string& at,
                      const std::string& verb = "update") {
  return fmt::format(
      R"({{"kind":"Event","stage":"ResponseComplete","verb":"{}","user":{{"username":"{}"}},)"
      R"("objectRef":{{"resource":"leases","namespace":"kube-system","name":"kube-scheduler"}},)"
      R"("responseStatus":{{"code":200}},"requestObject":{{"spec":{{"holderIdentity":"{}"}}}},)"
      R"("requestReceivedTimestamp":"{}","stageTimestamp":"{}"}})",
      verb, user, holder, at, at);
}
std::string At(int second) { return fmt::format("2026-11-25T10:00:{:02}.000000Z", second); }

Invariants WithLog(const std::vector<std::string>& lines) {
  Invariants inv({});
  for (const std::string& l : lines) inv.AddAuditLine(l);
  return inv;
}

std::vector<std::string> Kinds(const std::vector<Violation>& v) {
  std::vector<std::string> out;
  for (const Violation& x : v) out.push_back(x.kind);
  return out;
}

TEST(MilliValueTest, ReadsTheQuantitiesOfPodsAndNodes) {
  EXPECT_EQ(MilliValue("100m"), 100);
  EXPECT_EQ(MilliValue("2"), 2000);
  EXPECT_EQ(MilliValue("0.5"), 500);
  EXPECT_EQ(MilliValue("64Mi"), int64_t{64} * 1024 * 1024 * 1000);
  EXPECT_EQ(MilliValue("32Gi"), int64_t{32} * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(MilliValue("1k"), 1000 * 1000);
  EXPECT_EQ(MilliValue("110"), 110 * 1000);
  EXPECT_EQ(MilliValue("abc"), std::nullopt);
  EXPECT_EQ(MilliValue("1Qi"), std::nullopt);
}

TEST(InvariantsTest, ACleanHandOverHasNoViolations) {
  Invariants inv =
      WithLog({LeaseLine("replica-0", "a", At(0), "create"), BindLine("p1", "replica-0", At(1)),
               LeaseLine("replica-0", "a", At(2)), BindLine("p2", "replica-0", At(3)),
               // replica-0 stops renewing; replica-1 takes over after the lease.
               LeaseLine("replica-1", "b", At(20)), BindLine("p3", "replica-1", At(21)),
               BindLine("p3", "replica-0", At(22), 409)});  // Refused: not a bind.
  EXPECT_EQ(inv.binds(), 3);
  EXPECT_EQ(inv.leader(), "b");
  EXPECT_THAT(inv.CheckBinds(), IsEmpty());
}

TEST(InvariantsTest, APodBoundTwiceIsAViolation) {
  Invariants inv = WithLog({LeaseLine("replica-0", "a", At(0)), BindLine("p1", "replica-0", At(1)),
                            BindLine("p1", "replica-0", At(2))});
  std::vector<Violation> v = inv.CheckBinds();
  ASSERT_EQ(Kinds(v), std::vector<std::string>{"double-bind"});
  EXPECT_THAT(v[0].detail, HasSubstr("pod chaos/p1 bound by replica-0"));
}

TEST(InvariantsTest, BindsByAReplicaThatDoesNotHoldTheLeaseAreViolations) {
  Invariants inv = WithLog({BindLine("p0", "replica-0", At(0)),  // Before anyone led.
                            LeaseLine("replica-0", "a", At(1)),
                            BindLine("p1", "replica-1", At(2)),   // replica-0 holds it.
                            BindLine("p2", "replica-0", At(30)),  // 29 s after its last renewal.
                            LeaseLine("replica-0", "", At(40)),   // Released.
                            BindLine("p3", "replica-0", At(41))});
  std::vector<Violation> v = inv.CheckBinds();
  EXPECT_EQ(Kinds(v), std::vector<std::string>(4, "non-leader-bind"));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_THAT(v[0].detail, HasSubstr("before any replica held the Lease"));
  EXPECT_THAT(v[1].detail, HasSubstr("while replica-0 held the Lease"));
  EXPECT_THAT(v[2].detail, HasSubstr("beyond the lease duration"));
  EXPECT_THAT(v[3].detail, HasSubstr("holder \"\""));
}

json Node(const std::string& name, const std::string& cpu, const std::string& pods) {
  return {{"metadata", {{"name", name}}},
          {"status", {{"allocatable", {{"cpu", cpu}, {"memory", "1Gi"}, {"pods", pods}}}}}};
}
json Pod(const std::string& name, const std::string& node, const std::string& cpu,
         const std::string& phase = "Running") {
  json p = {
      {"metadata", {{"name", name}, {"namespace", "chaos"}}},
      {"spec", {{"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", cpu}}}}}}}}}},
      {"status", {{"phase", phase}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}
json List(const std::vector<json>& items) { return {{"items", items}}; }

TEST(InvariantsTest, ANodeWhosePodsRequestMoreThanItHasIsOvercommitted) {
  json nodes = List({Node("n1", "2", "110"), Node("n2", "4", "1")});
  json init = Pod("init-heavy", "n1", "100m");
  init["spec"]["initContainers"] = {{{"name", "i"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}};
  // n1: 1 (the init container outweighs its 100m) + 900m = 1.9 of 2, and a finished pod of 4.
  EXPECT_THAT(Invariants::CheckCapacity(
                  nodes, List({init, Pod("a", "n1", "900m"), Pod("done", "n1", "4", "Succeeded"),
                               Pod("pending", "", "64")})),
              IsEmpty());
  std::vector<Violation> v = Invariants::CheckCapacity(
      nodes, List({init, Pod("a", "n1", "1100m"), Pod("b", "n2", "1"), Pod("c", "n2", "1")}));
  ASSERT_EQ(Kinds(v), (std::vector<std::string>{"overcommit", "overcommit"}));
  EXPECT_EQ(v[0].detail, "node n1: its pods request 2100m of cpu, which has 2000m");
  EXPECT_EQ(v[1].detail, "node n2: its pods request 2000m of pods, which has 1000m");
}

TEST(InvariantsTest, OldPendingPodsNeedPodScheduledFalseAndBoundPodsTheirEvent) {
  const absl::Time now = absl::FromUnixSeconds(1795600000);
  auto created = [&](json p, absl::Duration ago) {
    p["metadata"]["creationTimestamp"] =
        absl::FormatTime(absl::RFC3339_sec, now - ago, absl::UTCTimeZone());
    return p;
  };
  json unschedulable = created(Pod("huge", "", "64"), absl::Minutes(5));
  unschedulable["status"]["conditions"] = {
      {{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
  json pods = List({unschedulable, created(Pod("young", "", "1"), absl::Seconds(10)),
                    created(Pod("stuck", "", "1"), absl::Minutes(3)), Pod("bound", "n1", "1")});
  json events = {
      {"items",
       {{{"reason", "Scheduled"}, {"regarding", {{"namespace", "chaos"}, {"name", "bound"}}}},
        {{"reason", "Scheduled"},
         {"regarding", {{"namespace", "chaos"}, {"name", "deleted-since"}}}}}}};
  // The audit log saw two more binds: one whose pod is gone since, with its event, and one with
  // none.
  Invariants inv = WithLog({LeaseLine("r", "a", At(0)), BindLine("deleted-since", "r", At(1)),
                            BindLine("no-event", "r", At(2))});
  std::vector<Violation> v = inv.CheckOutcomes(pods, events, now);
  ASSERT_EQ(Kinds(v), (std::vector<std::string>{"not-decided", "no-event"}));
  EXPECT_THAT(v[0].detail, HasSubstr("pod chaos/stuck is pending 3m"));
  EXPECT_EQ(v[1].detail, "pod chaos/no-event was bound but has no Scheduled event");
}

// A pending pod that fits a node at every look for fit_within is reported, once; one that stops
// fitting between looks, that fits only a node its selector or a taint keeps it off, or that is
// being deleted, is not.
TEST(InvariantsTest, APendingPodThatFitsANodeForLongIsReportedOnce) {
  json tainted = Node("n3", "8", "110");
  tainted["spec"]["taints"] = {{{"key", "k"}, {"effect", "NoSchedule"}}};
  json nodes = List({Node("n1", "2", "110"), Node("n2", "2", "110"), tainted});
  nodes["items"][1]["metadata"]["labels"] = {{"pool", "tight"}};
  json selective = Pod("selective", "", "1");
  selective["spec"]["nodeSelector"] = {{"pool", "other"}};
  json going = Pod("going", "", "1");
  going["metadata"]["deletionTimestamp"] = "2026-11-25T10:00:00Z";
  // n1 has 500m left, n2 (tight) none: "small" fits n1; "big" (4) fits only the tainted n3.
  json crowded = List({Pod("a", "n1", "1500m"), Pod("b", "n2", "2"), Pod("small", "", "500m"),
                       Pod("big", "", "4"), selective, going});
  json roomy = List({Pod("b", "n2", "2"), Pod("small", "", "500m"), Pod("big", "", "4")});
  Invariants inv({});
  const absl::Time t0 = absl::FromUnixSeconds(1795600000);
  inv.NoteFitting(nodes, crowded, t0);
  inv.NoteFitting(nodes, crowded, t0 + absl::Seconds(60));
  EXPECT_THAT(inv.CheckFitting(), IsEmpty());
  inv.NoteFitting(nodes, crowded, t0 + absl::Seconds(90));
  inv.NoteFitting(nodes, crowded, t0 + absl::Seconds(120));
  std::vector<Violation> v = inv.CheckFitting();
  ASSERT_EQ(Kinds(v), (std::vector<std::string>{"fits-but-pending"}));
  EXPECT_EQ(v[0].detail,
            "pod chaos/small fitted a node for 1m30s (node n1 at the last look) and was pending");

  // A look at which it does not fit starts the count again.
  Invariants again({});
  again.NoteFitting(nodes, crowded, t0);
  again.NoteFitting(nodes,
                    List({Pod("a", "n1", "2"), Pod("b", "n2", "2"), Pod("small", "", "500m")}),
                    t0 + absl::Seconds(60));
  again.NoteFitting(nodes, roomy, t0 + absl::Seconds(120));
  EXPECT_THAT(again.CheckFitting(), IsEmpty());
}

// A replica killed (-9) right after a bind cannot have sent its event: that pod is reported
// apart, not as a violation. Killed later, or another replica killed, it still is one.
TEST(InvariantsTest, AnEventLostBecauseItsReplicaWasKilledRightAfterTheBindIsReportedApart) {
  const json events = {{"items", json::array()}};
  Invariants inv = WithLog({LeaseLine("r", "a", At(0)), BindLine("then-killed", "r", At(10)),
                            BindLine("long-before", "r", At(2)), BindLine("other", "s", At(10))});
  absl::Time killed;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, At(11), &killed, nullptr));
  inv.AddKill("r", killed);
  std::vector<std::string> lost;
  std::vector<Violation> v = inv.CheckOutcomes(List({}), events, killed, &lost);
  EXPECT_EQ(lost, std::vector<std::string>{"chaos/then-killed"});
  ASSERT_EQ(Kinds(v), (std::vector<std::string>{"no-event", "no-event"}));
  EXPECT_THAT(v[0].detail, HasSubstr("chaos/long-before"));
  EXPECT_THAT(v[1].detail, HasSubstr("chaos/other"));
}

}  // namespace
}  // namespace ksched::chaos
