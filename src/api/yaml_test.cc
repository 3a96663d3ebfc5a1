#include "src/api/yaml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/api/decode.h"
#include "src/testing/files.h"

namespace ksched::api {
namespace {

using ::testing::ElementsAre;

std::string One(std::string_view yaml) {
  auto docs = YamlToJson(yaml);
  EXPECT_TRUE(docs.ok()) << docs.status();
  return docs.ok() && docs->size() == 1 ? (*docs)[0] : "<not one document>";
}

TEST(YamlToJsonTest, PlainScalarsResolveAsYaml11) {
  EXPECT_EQ(One("a: 1\nb: -2\nc: 0.5\nd: 1e3\ne: +7\nf: .5\n"),
            R"({"a":1,"b":-2,"c":0.5,"d":1e3,"e":7,"f":0.5})");
  EXPECT_EQ(One("a: true\nb: yes\nc: Off\nd: ~\ne:\nf: null\n"),
            R"({"a":true,"b":true,"c":false,"d":null,"e":null,"f":null})");
  EXPECT_EQ(One("a: 100m\nb: 1Gi\nc: 1.1.1\nd: web\n"),
            R"({"a":"100m","b":"1Gi","c":"1.1.1","d":"web"})");
}

TEST(YamlToJsonTest, QuotedScalarsStayStrings) {
  EXPECT_EQ(One("a: \"1\"\nb: 'true'\nc: \"say \\\"hi\\\"\"\n"),
            R"({"a":"1","b":"true","c":"say \"hi\""})");
}

TEST(YamlToJsonTest, SequencesAndNesting) {
  EXPECT_EQ(One("items:\n- name: a\n  ports: [80, 443]\n- {name: b}\n"),
            R"({"items":[{"name":"a","ports":[80,443]},{"name":"b"}]})");
}

TEST(YamlToJsonTest, MultipleDocumentsSkipEmptyOnes) {
  auto docs = YamlToJson("---\nkind: Node\n---\n# only a comment\n---\nkind: Pod\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  EXPECT_THAT(*docs, ElementsAre(R"({"kind":"Node"})", R"({"kind":"Pod"})"));
}

TEST(YamlToJsonTest, SyntaxErrorNamesLineAndColumn) {
  auto docs = YamlToJson("kind: Pod\nmetadata:\n  name: [a\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(std::string(docs.status().message()), ::testing::StartsWith("line "));
}

TEST(YamlToJsonTest, YamlPodDecodesLikeJson) {
  const char* yaml = R"(
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  priority: 10
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: 0.5, memory: 128Mi}
  tolerations:
  - {key: dedicated, operator: Exists, effect: NoSchedule}
)";
  auto docs = YamlToJson(yaml);
  ASSERT_TRUE(docs.ok());
  auto pod = DecodePod(docs->at(0));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->metadata.labels.at("app"), "web");
  EXPECT_EQ(pod->spec.priority, 10);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("cpu").MilliValue(), 500);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("memory").Value(), 128 << 20);
  EXPECT_EQ(pod->spec.tolerations[0].op, "Exists");
}

TEST(YamlToJsonTest, LooksLikeJson) {
  EXPECT_TRUE(LooksLikeJson("  \n{\"kind\":\"Pod\"}"));
  EXPECT_TRUE(LooksLikeJson("[1]"));
  EXPECT_FALSE(LooksLikeJson("kind: Pod"));
  EXPECT_FALSE(LooksLikeJson(""));
}

TEST(JsonToYamlTest, StringsThatLookLikeOtherScalarsAreQuotedSoTheyReadBackAsStrings) {
  const nlohmann::json doc = {{"pods", "10"},  {"status", "True"}, {"nothing", "null"},
                              {"empty", ""},   {"cpu", "1.5"},     {"count", 10},
                              {"name", "web"}, {"ready", true},    {"tilde", "~"}};
  const std::string yaml = JsonToYaml(doc);
  EXPECT_THAT(yaml, ::testing::HasSubstr("pods: \"10\"\n"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("status: \"True\"\n"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("name: web\n"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("count: 10\n"));
  absl::StatusOr<std::vector<std::string>> back = YamlToJson(yaml);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(nlohmann::json::parse((*back)[0]), doc);
}

}  // namespace
}  // namespace ksched::api

namespace ksched::api {
namespace {

TEST(YamlToJsonTest, InvalidUtf8IsAnErrorNotACrash) {
  auto docs = YamlToJson("name: \"\xdd\xff\"\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(std::string(docs.status().message()), ::testing::HasSubstr("invalid UTF-8"));
}

}  // namespace
}  // namespace ksched::api
