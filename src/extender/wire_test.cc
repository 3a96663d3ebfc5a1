#include "src/extender/wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nlohmann/json.hpp"
#include "src/api/decode.h"

namespace ksched::extender::wire {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

class WireTest : public ::testing::Test {
 protected:
  void SetUp() override { api::KeepObjectJson(true); }
  void TearDown() override { api::KeepObjectJson(false); }

  static std::shared_ptr<NodeInfo> Node(const std::string& json) {
    auto n = std::make_shared<NodeInfo>();
    n->SetNode(std::make_shared<const api::Node>(*api::DecodeNode(json)));
    return n;
  }
};

TEST_F(WireTest, ArgsCarryThePodWholeAndTheNodesByNameOrWhole) {
  absl::StatusOr<api::Pod> pod = api::DecodePod(
      R"({"metadata": {"name": "p", "namespace": "ns", "uid": "u1",
          "annotations": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  std::shared_ptr<NodeInfo> n1 = Node(R"({"metadata": {"name": "n1", "labels": {"z": "1"}}})");
  std::shared_ptr<NodeInfo> n2 = Node(R"({"metadata": {"name": "n2"}})");

  const nlohmann::json by_name =
      nlohmann::json::parse(ExtenderArgs(*pod, {n1.get(), n2.get()}, true));
  EXPECT_EQ(by_name["Pod"]["metadata"]["annotations"]["a"], "b");
  EXPECT_EQ(by_name["Pod"]["spec"]["containers"][0]["name"], "c");
  EXPECT_TRUE(by_name["Nodes"].is_null());
  EXPECT_EQ(by_name["NodeNames"], nlohmann::json({"n1", "n2"}));

  const nlohmann::json whole =
      nlohmann::json::parse(ExtenderArgs(*pod, {n1.get(), n2.get()}, false));
  EXPECT_TRUE(whole["NodeNames"].is_null());
  ASSERT_EQ(whole["Nodes"]["items"].size(), 2u);
  EXPECT_EQ(whole["Nodes"]["items"][0]["metadata"]["labels"]["z"], "1");
  EXPECT_EQ(whole["Nodes"]["metadata"], nlohmann::json::object());
}

TEST_F(WireTest, PreemptionArgsNameVictimsByUidForANodeCacheCapableExtender) {
  api::Pod pod = *api::DecodePod(R"({"metadata": {"name": "p", "uid": "u1"}})");
  preemption::Victims v{.pods = {PodInfo::Make(std::make_shared<const api::Pod>(
                            *api::DecodePod(R"({"metadata": {"name": "low", "uid": "v1"}})")))},
                        .num_pdb_violations = 1};
  const std::map<std::string, preemption::Victims> victims = {{"n1", v}};
  const nlohmann::json meta = nlohmann::json::parse(PreemptionArgs(pod, victims, true));
  EXPECT_TRUE(meta["NodeNameToVictims"].is_null());
  EXPECT_EQ(meta["NodeNameToMetaVictims"],
            nlohmann::json::parse(R"({"n1": {"Pods": [{"UID": "v1"}], "NumPDBViolations": 1}})"));
  const nlohmann::json whole = nlohmann::json::parse(PreemptionArgs(pod, victims, false));
  EXPECT_TRUE(whole["NodeNameToMetaVictims"].is_null());
  EXPECT_EQ(whole["NodeNameToVictims"]["n1"]["Pods"][0]["metadata"]["name"], "low");
}

// A victim still in its binding (assumed) goes with the node the scheduler put it on, as upstream's
// assumed copy does; one bound already goes as the API server sent it.
TEST_F(WireTest, AnAssumedPodIsSentWithItsNode) {
  api::Pod assumed = *api::DecodePod(
      R"({"metadata": {"name": "v", "uid": "v1"}, "spec": {"containers": [{"name": "c"}]}})");
  assumed.spec.node_name = "n1";
  const nlohmann::json sent = nlohmann::json::parse(PodJson(assumed));
  EXPECT_EQ(sent["spec"]["nodeName"], "n1");
  EXPECT_EQ(sent["spec"]["containers"][0]["name"], "c");

  const api::Pod bound = *api::DecodePod(
      R"({"metadata": {"name": "b", "uid": "b1"}, "spec": {"nodeName": "n2", "containers": []}})");
  EXPECT_EQ(PodJson(bound), *bound.json);
}

TEST_F(WireTest, BindingArgsAreUpstreams) {
  api::Pod pod = *api::DecodePod(R"({"metadata": {"name": "p", "namespace": "ns", "uid": "u"}})");
  EXPECT_EQ(BindingArgs(pod, "n1"),
            R"({"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"n1"})");
}

TEST_F(WireTest, AnAnswersFieldsAreMatchedWithoutRegardToCaseAsGoMatchesThem) {
  FilterAnswer a;
  ASSERT_TRUE(DecodeFilterResult(R"({"nodenames": ["n1"], "failedNodes": {"n2": "full"},
                                      "FAILEDANDUNRESOLVABLENODES": {"n3": "never"},
                                      "Unknown": 1})",
                                 &a)
                  .ok());
  ASSERT_TRUE(a.node_names.has_value());
  EXPECT_THAT(*a.node_names, ElementsAre("n1"));
  EXPECT_FALSE(a.nodes.has_value());
  EXPECT_THAT(a.failed, ElementsAre(Pair("n2", "full")));
  EXPECT_THAT(a.failed_and_unresolvable, ElementsAre(Pair("n3", "never")));

  std::vector<HostPriority> scores;
  ASSERT_TRUE(
      DecodeHostPriorityList(R"([{"host": "n1", "score": 7}, {"Host": "n2"}])", &scores).ok());
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].host, "n1");
  EXPECT_EQ(scores[0].score, 7);
  EXPECT_EQ(scores[1].score, 0);
}

TEST_F(WireTest, NullListsAreAbsentAndWholeNodesAreDecoded) {
  FilterAnswer a;
  ASSERT_TRUE(DecodeFilterResult(
                  R"({"Nodes": {"items": [{"metadata": {"name": "n1", "labels": {"k": "v"}}}]},
                      "NodeNames": null, "Error": ""})",
                  &a)
                  .ok());
  EXPECT_FALSE(a.node_names.has_value());
  ASSERT_TRUE(a.nodes.has_value());
  ASSERT_EQ(a.nodes->size(), 1u);
  EXPECT_EQ(a.nodes->front().metadata.labels.at("k"), "v");
}

TEST_F(WireTest, AnAnswerOfTheWrongShapeIsAnErrorThatSaysWhere) {
  std::vector<HostPriority> scores;
  absl::Status s = DecodeHostPriorityList(R"([{"Host": "n1", "Score": "high"}])", &scores);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot unmarshal string into Go struct field "
                                                  "HostPriority.Score of type int64"));
  scores.clear();
  s = DecodeHostPriorityList(R"([{"Host": "n1", "Score": 2.5}])", &scores);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("cannot unmarshal number 2.5 into Go struct field "
                        "HostPriority.Score of type int64"));
  FilterAnswer a;
  s = DecodeFilterResult("{not json", &a);
  EXPECT_EQ(std::string(s.message()),
            "invalid character 'n' looking for beginning of object key string");
  std::map<std::string, MetaVictims> victims;
  s = DecodePreemptionResult(R"({"NodeNameToMetaVictims": []})", &victims);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("cannot unmarshal array into Go struct field "
                        "ExtenderPreemptionResult.NodeNameToMetaVictims"));
}

TEST_F(WireTest, APreemptionAnswerNamesVictimsByUid) {
  std::map<std::string, MetaVictims> victims;
  ASSERT_TRUE(DecodePreemptionResult(
                  R"({"NodeNameToMetaVictims": {"n1": {"Pods": [{"UID": "a"}, {"uid": "b"}],
                                                        "NumPDBViolations": 2}}})",
                  &victims)
                  .ok());
  ASSERT_TRUE(victims.contains("n1"));
  EXPECT_THAT(victims["n1"].uids, ElementsAre("a", "b"));
  EXPECT_EQ(victims["n1"].num_pdb_violations, 2);
  std::string error;
  ASSERT_TRUE(DecodeBindingResult(R"({"Error": "node is full"})", &error).ok());
  EXPECT_EQ(error, "node is full");
}

}  // namespace
}  // namespace ksched::extender::wire
