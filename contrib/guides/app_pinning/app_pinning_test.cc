#include "contrib/guides/app_pinning/app_pinning.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::guides::app_pinning {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using nlohmann::json;

std::unique_ptr<AppPinning> MakePlugin(const json& args = json::object()) {
  return ksched::testing::NewPluginAs<AppPinning>(
      MakeArgsDecoder(ParseAppPinningArgs, AppPinningArgsToJson), TypedFactory<AppPinningArgs>(New),
      args);
}

struct Outcome {
  Code pre_filter;
  Code filter;
  std::string message;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << CodeName(o.pre_filter) << "/" << CodeName(o.filter) << " \"" << o.message << '"';
}

// PreFilter, and Filter on `node` unless PreFilter skipped it, as the framework runs them.
Outcome RunFilters(AppPinning& plugin, const api::Pod& pod, const api::Node& node) {
  FakeHandle handle({node});
  CycleState state;
  PreFilterResult result;
  Status pre = plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result);
  EXPECT_TRUE(result.AllNodes());
  if (!pre.ok()) return {pre.code(), Code::kSuccess, ""};
  Status s = plugin.Filter(state, pod, *handle.snapshot().Get(node.metadata.name));
  return {pre.code(), s.code(), s.Message()};
}

const api::Pod kWebPod = MakePod().Name("web-1").Label("app", "web").Obj();
const api::Node kWebNode = MakeNode().Name("worker-1").Label("app", "web").Obj();
const api::Node kApiNode = MakeNode().Name("worker-2").Label("app", "api").Obj();
const api::Node kPlainNode = MakeNode().Name("worker-3").Obj();

TEST(AppPinningTest, PreFilterAndFilter) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    Outcome want;
  };
  const Outcome fits{Code::kSuccess, Code::kSuccess, ""};
  const Outcome not_web{Code::kSuccess, Code::kUnschedulableAndUnresolvable,
                        "node(s) didn't have label app=web"};
  const Outcome skipped{Code::kSkip, Code::kSuccess, ""};
  const std::vector<Case> cases = {
      {"the app's node", kWebPod, kWebNode, fits},
      {"another app's node", kWebPod, kApiNode, not_web},
      {"an unpinned node", kWebPod, kPlainNode, not_web},
      {"the app name in a node annotation does not pin", kWebPod,
       MakeNode().Name("n").Annotation("app", "web").Obj(), not_web},
      {"the other app",
       MakePod().Name("api-1").Label("app", "api").Obj(),
       kWebNode,
       {Code::kSuccess, Code::kUnschedulableAndUnresolvable, "node(s) didn't have label app=api"}},
      {"a pod without the app label goes anywhere", MakePod().Name("p").Obj(), kWebNode, skipped},
      {"an empty app label names no app", MakePod().Name("p").Label("app", "").Obj(), kPlainNode,
       skipped},
  };
  std::unique_ptr<AppPinning> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  for (const Case& c : cases) EXPECT_EQ(RunFilters(*plugin, c.pod, c.node), c.want) << c.name;
}

TEST(AppPinningTest, ConfiguredLabels) {
  std::unique_ptr<AppPinning> plugin = MakePlugin(
      {{"podLabelKey", "app.kubernetes.io/name"}, {"nodeLabelKey", "example.com/pinned-app"}});
  ASSERT_NE(plugin, nullptr);
  const api::Pod pod = MakePod().Name("p").Label("app.kubernetes.io/name", "web").Obj();
  EXPECT_EQ(
      RunFilters(*plugin, pod, MakeNode().Name("n").Label("example.com/pinned-app", "web").Obj()),
      (Outcome{Code::kSuccess, Code::kSuccess, ""}));
  EXPECT_EQ(RunFilters(*plugin, pod, kWebNode),
            (Outcome{Code::kSuccess, Code::kUnschedulableAndUnresolvable,
                     "node(s) didn't have label example.com/pinned-app=web"}));
  // The default label means nothing under these args.
  EXPECT_EQ(RunFilters(*plugin, kWebPod, kApiNode).pre_filter, Code::kSkip);
}

TEST(AppPinningTest, NodeChangeHint) {
  std::unique_ptr<AppPinning> plugin = MakePlugin();
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
  const std::vector<Case> cases = {
      {"no new node", std::nullopt, std::nullopt, QueueingHint::kQueue},
      {"a node for the app added", std::nullopt, kWebNode, QueueingHint::kQueue},
      {"a node for another app added", std::nullopt, kApiNode, QueueingHint::kQueueSkip},
      {"a node is pinned to the app", kPlainNode, kWebNode, QueueingHint::kQueue},
      {"a node is re-pinned from another app", kApiNode, kWebNode, QueueingHint::kQueue},
      {"the app's node gets another label", kWebNode,
       MakeNode().Name("worker-1").Label("app", "web").Label("x", "y").Obj(),
       QueueingHint::kQueueSkip},
      {"a node is pinned to another app", kPlainNode, kApiNode, QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    ClusterEventData e{.old_node = c.old_node ? &*c.old_node : nullptr,
                       .new_node = c.new_node ? &*c.new_node : nullptr};
    EXPECT_EQ(events[0].hint(kWebPod, e), c.want) << c.name;
  }
}

TEST(AppPinningTest, PodChangeHint) {
  std::unique_ptr<AppPinning> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  std::vector<ClusterEventWithHint> events = plugin->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(Matches(events[1].event,
                      {EventResource::kUnschedulablePod, ActionType::kUpdatePodLabel, ""}));
  auto hint = [&](const api::Pod& new_pod) {
    ClusterEventData e{.old_pod = &kWebPod, .new_pod = &new_pod};
    return events[1].hint(kWebPod, e);
  };
  EXPECT_EQ(hint(MakePod().Name("web-1").Label("app", "api").Obj()), QueueingHint::kQueue);
  EXPECT_EQ(hint(MakePod().Name("web-1").Obj()), QueueingHint::kQueue);
  EXPECT_EQ(hint(MakePod().Name("web-1").Label("app", "web").Label("tier", "x").Obj()),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(MakePod().Name("other").Label("app", "api").Obj()), QueueingHint::kQueueSkip);
}

TEST(AppPinningTest, Args) {
  const std::string args = "profiles[0].pluginConfig[0].args";
  const std::string defaults =
      R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"AppPinningArgs",)"
      R"("nodeLabelKey":"app","podLabelKey":"app"})";
  const std::vector<ArgsCase> cases = {
      {"null", "null", "", defaults},
      {"empty", "{}", "", defaults},
      {"null fields", R"({"podLabelKey": null, "nodeLabelKey": null})", "", defaults},
      {"given", R"({"podLabelKey": "app.kubernetes.io/name"})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"AppPinningArgs",)"
       R"("nodeLabelKey":"app","podLabelKey":"app.kubernetes.io/name"})"},
      {"a key that is not a label name", R"({"nodeLabelKey": "-app"})", args,
       args + ".nodeLabelKey: Invalid value: \"-app\": name part must consist of alphanumeric "
              "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
              "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
              "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
      {"a boolean for a string", R"({"podLabelKey": true})", args,
       args + ".podLabelKey: expected a string"},
      {"unknown field", R"({"pins": {}})", args, "unknown field \"" + args + ".pins\""},
  };
  const ArgsDecoder decode = MakeArgsDecoder(ParseAppPinningArgs, AppPinningArgsToJson);
  for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(decode, c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::guides::app_pinning
