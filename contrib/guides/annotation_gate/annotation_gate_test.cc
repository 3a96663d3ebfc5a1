#include "contrib/guides/annotation_gate/annotation_gate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::guides::annotation_gate {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using nlohmann::json;

std::unique_ptr<AnnotationGate> MakePlugin(const json& args = json::object()) {
  return ksched::testing::NewPluginAs<AnnotationGate>(
      MakeArgsDecoder(ParseAnnotationGateArgs, AnnotationGateArgsToJson),
      TypedFactory<AnnotationGateArgs>(New), args);
}

// PreFilter over two nodes; it must never narrow them.
Status RunPreFilter(AnnotationGate& plugin, const api::Pod& pod) {
  FakeHandle handle({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  CycleState state;
  PreFilterResult result;
  Status s = plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result);
  EXPECT_TRUE(result.AllNodes());
  return s;
}

TEST(AnnotationGateTest, PreFilter) {
  struct Case {
    std::string name;
    api::Pod pod;
    Code want_code;
    std::string want_message;
  };
  const std::string refused =
      "pod has annotation mycompany.com/environment, which this scheduler refuses";
  const std::vector<Case> cases = {
      {"the guide's test pod",
       MakePod().Name("test-pod").Annotation("mycompany.com/environment", "abc").Obj(),
       Code::kUnschedulableAndUnresolvable, refused},
      {"an empty value is still the annotation",
       MakePod().Name("p").Annotation("mycompany.com/environment", "").Obj(),
       Code::kUnschedulableAndUnresolvable, refused},
      {"no annotations", MakePod().Name("p").Obj(), Code::kSuccess, ""},
      {"other annotations", MakePod().Name("p").Annotation("mycompany.com/team", "abc").Obj(),
       Code::kSuccess, ""},
      {"a label of that name is not the annotation",
       MakePod().Name("p").Label("mycompany.com/environment", "abc").Obj(), Code::kSuccess, ""},
  };
  std::unique_ptr<AnnotationGate> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  for (const Case& c : cases) {
    Status s = RunPreFilter(*plugin, c.pod);
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

TEST(AnnotationGateTest, ConfiguredAnnotation) {
  std::unique_ptr<AnnotationGate> plugin = MakePlugin({{"annotationKey", "example.com/hold"}});
  ASSERT_NE(plugin, nullptr);
  Status held = RunPreFilter(*plugin, MakePod().Name("p").Annotation("example.com/hold", "").Obj());
  EXPECT_EQ(held.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(held.Message(), "pod has annotation example.com/hold, which this scheduler refuses");
  // The default annotation no longer gates.
  EXPECT_TRUE(
      RunPreFilter(*plugin, MakePod().Name("p").Annotation("mycompany.com/environment", "x").Obj())
          .ok());
}

TEST(AnnotationGateTest, PodChangeHint) {
  std::unique_ptr<AnnotationGate> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  std::vector<ClusterEventWithHint> events = plugin->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  // What the queue sends when only an annotation of a pending pod changed; node events do not
  // matter to the gate.
  EXPECT_TRUE(Matches(events[0].event,
                      {EventResource::kUnschedulablePod, ActionType::kUpdatePodOther, ""}));
  EXPECT_FALSE(Matches(events[0].event, {EventResource::kNode, ActionType::kAdd, ""}));
  const api::Pod gated = MakePod().Name("p").Annotation("mycompany.com/environment", "a").Obj();
  auto hint = [&](const api::Pod& new_pod) {
    ClusterEventData e{.old_pod = &gated, .new_pod = &new_pod};
    return events[0].hint(gated, e);
  };
  EXPECT_EQ(hint(MakePod().Name("p").Obj()), QueueingHint::kQueue);
  EXPECT_EQ(hint(MakePod().Name("p").Annotation("mycompany.com/environment", "b").Obj()),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(MakePod().Name("other").Obj()), QueueingHint::kQueueSkip);
}

TEST(AnnotationGateTest, Args) {
  const std::string args = "profiles[0].pluginConfig[0].args";
  const std::string defaults =
      R"({"annotationKey":"mycompany.com/environment",)"
      R"("apiVersion":"kubescheduler.config.k8s.io/v1","kind":"AnnotationGateArgs"})";
  const std::vector<ArgsCase> cases = {
      {"null", "null", "", defaults},
      {"empty", "{}", "", defaults},
      {"null key", R"({"annotationKey": null})", "", defaults},
      {"given", R"({"kind": "AnnotationGateArgs", "annotationKey": "example.com/hold"})", "",
       R"({"annotationKey":"example.com/hold",)"
       R"("apiVersion":"kubescheduler.config.k8s.io/v1","kind":"AnnotationGateArgs"})"},
      {"not a qualified name", R"({"annotationKey": "my company/env"})", args,
       args + ".annotationKey: Invalid value: \"my company/env\": prefix part a lowercase RFC 1123 "
              "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
              "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
              "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"a list for a string", R"({"annotationKey": ["a"]})", args,
       args + ".annotationKey: expected a string"},
      {"unknown field", R"({"annotation": "a"})", args,
       "unknown field \"" + args + ".annotation\""},
  };
  const ArgsDecoder decode = MakeArgsDecoder(ParseAnnotationGateArgs, AnnotationGateArgsToJson);
  for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(decode, c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::guides::annotation_gate
