#include "contrib/guides/network_aware/network_aware.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::guides::network_aware {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using nlohmann::json;

constexpr char kMissing[] = "node(s) didn't have label network-topology=high-speed";

std::unique_ptr<NetworkAware> MakePlugin(const json& args = json::object()) {
  return ksched::testing::NewPluginAs<NetworkAware>(
      MakeArgsDecoder(ParseNetworkAwareArgs, NetworkAwareArgsToJson),
      TypedFactory<NetworkAwareArgs>(New), args);
}

const api::Pod kHighSpeedPod =
    MakePod().Name("p").Annotation("my-network-preference", "high-speed").Obj();
const api::Node kFastNode = MakeNode().Name("fast").Label("network-topology", "high-speed").Obj();
const api::Node kSlowNode = MakeNode().Name("slow").Label("network-topology", "standard").Obj();
const api::Node kPlainNode = MakeNode().Name("plain").Obj();

Status RunFilter(NetworkAware& plugin, const api::Pod& pod, const api::Node& node) {
  FakeHandle handle({node});
  return plugin.Filter(CycleState(), pod, *handle.snapshot().Get(node.metadata.name));
}

// Scores every node, as the framework does: no PreScore, no normalization.
std::map<std::string, int64_t> ScoreAll(NetworkAware& plugin, const api::Pod& pod,
                                        const std::vector<api::Node>& nodes) {
  FakeHandle handle(nodes);
  std::map<std::string, int64_t> out;
  for (const NodeInfo* ni : handle.snapshot().nodes()) {
    int64_t score = -1;
    EXPECT_TRUE(plugin.Score(CycleState(), pod, *ni, &score).ok());
    out[ni->name()] = score;
  }
  return out;
}

TEST(NetworkAwareTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"high-speed pod, labelled node", kHighSpeedPod, kFastNode, Code::kSuccess, ""},
      {"high-speed pod, other label value", kHighSpeedPod, kSlowNode,
       Code::kUnschedulableAndUnresolvable, kMissing},
      {"high-speed pod, unlabelled node", kHighSpeedPod, kPlainNode,
       Code::kUnschedulableAndUnresolvable, kMissing},
      {"pod without the annotation fits an unlabelled node", MakePod().Name("p").Obj(), kPlainNode,
       Code::kSuccess, ""},
      {"another preference is not filtered",
       MakePod().Name("p").Annotation("my-network-preference", "low-latency").Obj(), kPlainNode,
       Code::kSuccess, ""},
      {"the label on the pod is not the annotation",
       MakePod().Name("p").Label("my-network-preference", "high-speed").Obj(), kPlainNode,
       Code::kSuccess, ""},
      {"the annotation on the node is not the label", kHighSpeedPod,
       MakeNode().Name("n").Annotation("network-topology", "high-speed").Obj(),
       Code::kUnschedulableAndUnresolvable, kMissing},
  };
  std::unique_ptr<NetworkAware> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  for (const Case& c : cases) {
    Status s = RunFilter(*plugin, c.pod, c.node);
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

TEST(NetworkAwareTest, Score) {
  std::unique_ptr<NetworkAware> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  const std::vector<api::Node> nodes = {kFastNode, kSlowNode, kPlainNode};
  EXPECT_EQ(ScoreAll(*plugin, kHighSpeedPod, nodes),
            (std::map<std::string, int64_t>{{"fast", 100}, {"slow", 10}, {"plain", 10}}));
  // As in the guide, a pod that does not ask gets the low score everywhere, the labelled node
  // included: the plugin leaves the choice to the others.
  EXPECT_EQ(ScoreAll(*plugin, MakePod().Name("p").Obj(), nodes),
            (std::map<std::string, int64_t>{{"fast", 10}, {"slow", 10}, {"plain", 10}}));
}

TEST(NetworkAwareTest, ArgsChangeWhatIsAskedOfferedAndScored) {
  std::unique_ptr<NetworkAware> plugin = MakePlugin({{"annotationKey", "example.com/net"},
                                                     {"annotationValue", "rdma"},
                                                     {"nodeLabelKey", "example.com/fabric"},
                                                     {"nodeLabelValue", "infiniband"},
                                                     {"matchScore", 90},
                                                     {"otherScore", 0}});
  ASSERT_NE(plugin, nullptr);
  const api::Pod pod = MakePod().Name("p").Annotation("example.com/net", "rdma").Obj();
  const api::Node ib = MakeNode().Name("ib").Label("example.com/fabric", "infiniband").Obj();
  Status s = RunFilter(*plugin, pod, kFastNode);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) didn't have label example.com/fabric=infiniband");
  EXPECT_TRUE(RunFilter(*plugin, pod, ib).ok());
  // The guide's annotation means nothing under these args.
  EXPECT_TRUE(RunFilter(*plugin, kHighSpeedPod, kPlainNode).ok());
  EXPECT_EQ(ScoreAll(*plugin, pod, {ib, kFastNode}),
            (std::map<std::string, int64_t>{{"ib", 90}, {"fast", 0}}));
}

TEST(NetworkAwareTest, NodeChangeHint) {
  std::unique_ptr<NetworkAware> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  std::vector<ClusterEventWithHint> events = plugin->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, EventResource::kNode);
  EXPECT_EQ(events[0].event.action, ActionType::kAdd | ActionType::kUpdateNodeLabel);
  struct Case {
    std::string name;
    std::optional<api::Node> old_node;
    std::optional<api::Node> new_node;
    QueueingHint want;
  };
  const api::Node fast_more =
      MakeNode().Name("fast").Label("network-topology", "high-speed").Label("x", "y").Obj();
  const std::vector<Case> cases = {
      {"no new node", std::nullopt, std::nullopt, QueueingHint::kQueue},
      {"labelled node added", std::nullopt, kFastNode, QueueingHint::kQueue},
      {"unlabelled node added", std::nullopt, kPlainNode, QueueingHint::kQueueSkip},
      {"node gains the label", kPlainNode, kFastNode, QueueingHint::kQueue},
      {"label value changes to high-speed", kSlowNode, kFastNode, QueueingHint::kQueue},
      {"node had the label already", kFastNode, fast_more, QueueingHint::kQueueSkip},
      {"node loses the label", kFastNode, kSlowNode, QueueingHint::kQueueSkip},
      {"another label changes", kPlainNode, MakeNode().Name("plain").Label("x", "y").Obj(),
       QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    ClusterEventData e{.old_node = c.old_node ? &*c.old_node : nullptr,
                       .new_node = c.new_node ? &*c.new_node : nullptr};
    EXPECT_EQ(events[0].hint(kHighSpeedPod, e), c.want) << c.name;
  }
}

TEST(NetworkAwareTest, PodChangeHint) {
  std::unique_ptr<NetworkAware> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  std::vector<ClusterEventWithHint> events = plugin->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].event.resource, EventResource::kUnschedulablePod);
  // What the queue sends when only an annotation changed.
  EXPECT_TRUE(Matches(events[1].event,
                      {EventResource::kUnschedulablePod, ActionType::kUpdatePodOther, ""}));
  const api::Pod dropped = MakePod().Name("p").Obj();
  const api::Pod other = MakePod().Name("q").Obj();
  auto hint = [&](const api::Pod& new_pod) {
    ClusterEventData e{.old_pod = &kHighSpeedPod, .new_pod = &new_pod};
    return events[1].hint(kHighSpeedPod, e);
  };
  EXPECT_EQ(hint(dropped), QueueingHint::kQueue);
  EXPECT_EQ(hint(kHighSpeedPod), QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(other), QueueingHint::kQueueSkip);
}

TEST(NetworkAwareTest, ArgsDefaultsAndEncoding) {
  const std::string defaults =
      R"({"annotationKey":"my-network-preference","annotationValue":"high-speed",)"
      R"("apiVersion":"kubescheduler.config.k8s.io/v1","kind":"NetworkAwareArgs",)"
      R"("matchScore":100,"nodeLabelKey":"network-topology","nodeLabelValue":"high-speed",)"
      R"("otherScore":10})";
  const std::vector<ArgsCase> cases = {
      {"null", "null", "", defaults},
      {"empty", "{}", "", defaults},
      {"typed, null fields", R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
          "kind": "NetworkAwareArgs", "matchScore": null, "nodeLabelKey": null})",
       "", defaults},
      {"some given", R"({"nodeLabelValue": "fast", "otherScore": 0})", "",
       R"({"annotationKey":"my-network-preference","annotationValue":"high-speed",)"
       R"("apiVersion":"kubescheduler.config.k8s.io/v1","kind":"NetworkAwareArgs",)"
       R"("matchScore":100,"nodeLabelKey":"network-topology","nodeLabelValue":"fast",)"
       R"("otherScore":0})"},
  };
  const ArgsDecoder decode = MakeArgsDecoder(ParseNetworkAwareArgs, NetworkAwareArgsToJson);
  for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(decode, c), c.want) << c.name;
}

TEST(NetworkAwareTest, ArgsErrors) {
  const std::string args = "profiles[0].pluginConfig[0].args";
  const std::vector<ArgsCase> cases = {
      {"score above 100", R"({"matchScore": 101})", args,
       args + ".matchScore: Invalid value: 101: not in valid range [0, 100]"},
      {"negative score", R"({"otherScore": -1})", "",
       "otherScore: Invalid value: -1: not in valid range [0, 100]"},
      {"empty annotation key", R"({"annotationKey": ""})", "",
       "[annotationKey: Invalid value: \"\": name part must be non-empty, annotationKey: Invalid "
       "value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
       "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
       "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"},
      {"bad label key and value", R"({"nodeLabelKey": "a/b/c", "nodeLabelValue": "high speed"})",
       args,
       "[" + args +
           ".nodeLabelKey: Invalid value: \"a/b/c\": a qualified name must consist of "
           "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
           "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
           "'/' (e.g. 'example.com/MyName'), " +
           args +
           ".nodeLabelValue: Invalid value: \"high speed\": a valid label must be an empty string "
           "or consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
           "an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
           "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"},
      {"a number for a string", R"({"annotationValue": 1})", "",
       "annotationValue: expected a string"},
      {"a string for a score", R"({"matchScore": "100"})", args,
       args + R"(.matchScore: expected an integer, got "100")"},
      {"unknown field", R"({"label": "x"})", args, "unknown field \"" + args + ".label\""},
      {"not an object", "[]", "", "args: expected an object"},
  };
  const ArgsDecoder decode = MakeArgsDecoder(ParseNetworkAwareArgs, NetworkAwareArgsToJson);
  for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(decode, c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::guides::network_aware
