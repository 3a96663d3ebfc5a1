#include "src/sim/manifests.h"

#include <gtest/gtest.h>

namespace ksched::sim {
namespace {

TEST(ParseManifestTest, MultiDocumentYamlKeepsOrder) {
  auto objects = ParseManifest(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
      "apiVersion: v1\nkind: List\nitems:\n- {kind: Pod, metadata: {name: a}}\n"
      "- {kind: Pod, metadata: {name: b}}\n",
      "c.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 3u);
  EXPECT_EQ(api::MetaOf((*objects)[0]).name, "n1");
  EXPECT_EQ(api::MetaOf((*objects)[2]).name, "b");
}

TEST(ParseManifestTest, JsonListAsKubectlPrintsIt) {
  auto objects = ParseManifest(
      R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"x"}}]})", "nodes.json");
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(api::KindOf(objects->at(0)), "Node");
}

TEST(ParseManifestTest, ErrorNamesFileDocumentObjectAndField) {
  auto objects = ParseManifest(
      "kind: Node\nmetadata: {name: n1}\n---\nkind: Pod\nmetadata: {name: web, namespace: prod}\n"
      "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1.5.3}}\n",
      "cluster.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            "cluster.yaml: document 2 (Pod prod/web): spec.containers[0].resources.requests.cpu: "
            "invalid quantity \"1.5.3\"");
}

TEST(ParseManifestTest, UnknownKindIsAnError) {
  auto objects =
      ParseManifest("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n", "d.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            "d.yaml: document 1 (Deployment d): kind: unknown kind \"Deployment\"");
}

TEST(ParseManifestTest, YamlSyntaxErrorNamesTheLine) {
  auto objects = ParseManifest("kind: Pod\nmetadata:\n  name: [oops\n", "bad.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()).rfind("bad.yaml: line ", 0), 0u)
      << objects.status();
}

TEST(LoadManifestsTest, UnreadableFile) {
  auto objects = LoadManifests({"/nonexistent/x.yaml"});
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()), "/nonexistent/x.yaml: cannot read file");
}

}  // namespace
}  // namespace ksched::sim
