#include "src/plugins/image_locality/image_locality.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/scoring.h"

namespace ksched::plugins::image_locality {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

constexpr int64_t kMB = int64_t{1024} * 1024;

struct Image {
  std::vector<std::string> names;
  int64_t size_mb;
};

api::Node NodeWithImages(const std::string& name, const std::vector<Image>& images) {
  api::Node node = MakeNode().Name(name).Obj();
  for (const Image& i : images) node.status.images.push_back({i.names, i.size_mb * kMB});
  return node;
}

api::Pod PodWithImages(const std::vector<std::string>& images,
                       const std::vector<std::string>& init_images = {}) {
  MakePod pod;
  pod.Name("p");
  for (const std::string& image : images) pod.Container({}, image);
  api::Pod out = pod.Obj();
  for (const std::string& image : init_images) {
    out.spec.init_containers.push_back({.name = "init", .image = image});
  }
  return out;
}

// The node images of upstream's image_locality_test.go.
const std::vector<Image> kNode403002000 = {
    {{"gcr.io/40:latest", "gcr.io/40:v1"}, 40},
    {{"gcr.io/300:latest", "gcr.io/300:v1"}, 300},
    {{"gcr.io/2000:latest"}, 2000},
};
const std::vector<Image> kNode25010 = {{{"gcr.io/250:latest"}, 250},
                                       {{"gcr.io/10:latest", "gcr.io/10:v1"}, 10}};
const std::vector<Image> kNode60040900 = {
    {{"gcr.io/600:latest"}, 600}, {{"gcr.io/40:latest"}, 40}, {{"gcr.io/900:latest"}, 900}};
const std::vector<Image> kNode300600900 = {
    {{"gcr.io/300:latest"}, 300}, {{"gcr.io/600:latest"}, 600}, {{"gcr.io/900:latest"}, 900}};
const std::vector<Image> kNode400030 = {{{"gcr.io/4000:latest"}, 4000}, {{"gcr.io/30:latest"}, 30}};
const std::vector<Image> kNode203040 = {
    {{"gcr.io/20:latest"}, 20}, {{"gcr.io/30:latest"}, 30}, {{"gcr.io/40:latest"}, 40}};

TEST(ImageLocalityTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<int64_t> want;  // In node order.
  };
  const std::vector<Case> cases = {
      // node2: 100 * (250M/2 - 23M) / (1000M*2 - 23M) = 5; node1's 40M/2 is below 23M.
      {"two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/40", "gcr.io/250"}),
       {NodeWithImages("node1", kNode403002000), NodeWithImages("node2", kNode25010)},
       {0, 5}},
      // node1: 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7.
      {"two images on one node, prefer this node",
       PodWithImages({"gcr.io/40", "gcr.io/300"}),
       {NodeWithImages("node1", kNode403002000), NodeWithImages("node2", kNode25010)},
       {7, 0}},
      // node1: 4000M/2 is above 1000M*2: the maximum.
      {"if exceed limit, use limit",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {NodeWithImages("node1", kNode400030), NodeWithImages("node2", kNode25010)},
       {100, 0}},
      // node1: 100 * (4000M/3 - 23M) / (2000M - 23M) = 66.
      {"if exceed limit, use limit (with node which has no images present)",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {NodeWithImages("node1", kNode400030), NodeWithImages("node2", kNode25010),
        NodeWithImages("node3", {})},
       {66, 0, 0}},
      // node1: 100 * (600M*2/3 + 900M*2/3 - 23M) / (3000M - 23M) = 32; node2 adds 300M/3: 36.
      {"pod with multiple large images, node2 is preferred",
       PodWithImages({"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
       {NodeWithImages("node1", kNode60040900), NodeWithImages("node2", kNode300600900),
        NodeWithImages("node3", {})},
       {32, 36, 0}},
      // node1: 100 * (30M + 40M/2 - 23M) / (2000M - 23M) = 1.
      {"pod with multiple small images",
       PodWithImages({"gcr.io/30", "gcr.io/40"}),
       {NodeWithImages("node1", kNode203040), NodeWithImages("node2", kNode400030)},
       {1, 0}},
      // Init containers count: node1: 100 * (300M/2 - 23M) / (2000M - 23M) = 6.
      {"include InitContainers: two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/30"}, {"gcr.io/300"}),
       {NodeWithImages("node1", kNode403002000), NodeWithImages("node2", kNode203040)},
       {6, 0}},
      // An explicit tag is matched as is: gcr.io/300:v1 on node1 only.
      {"tagged image",
       PodWithImages({"gcr.io/300:v1"}),
       {NodeWithImages("node1", kNode403002000), NodeWithImages("node2", kNode300600900)},
       {100 * (300 * kMB / 2 - 23 * kMB) / (1000 * kMB - 23 * kMB), 0}},
      // An image volume is summed, and since 1.37 counted: node1: 100 * (300M/2 - 23M) /
      // (1000M*2 - 23M) = 6 (12 with 1.36's denominator of one container).
      {"image volume",
       [] {
         api::Pod pod = PodWithImages({"gcr.io/30"});
         pod.spec.volumes.push_back(
             {.name = "model", .source = "image", .image_reference = "gcr.io/300"});
         return pod;
       }(),
       {NodeWithImages("node1", kNode403002000), NodeWithImages("node2", kNode203040)},
       {6, 0}},
      {"pod without containers", PodWithImages({}), {NodeWithImages("node1", kNode400030)}, {0}},
      // No node has the image (ScoreNodes then reads no node).
      {"image on no node",
       PodWithImages({"gcr.io/77", "gcr.io/88:v2"}, {"gcr.io/99"}),
       {NodeWithImages("node1", kNode403002000), NodeWithImages("node2", {})},
       {0, 0}},
  };
  for (const Case& c : cases) {
    FakeHandle handle(c.nodes);
    ImageLocality plugin(handle);
    CycleState state;
    std::vector<const NodeInfo*> nodes;  // In the case's order.
    for (const api::Node& n : c.nodes) {
      nodes.push_back(handle.snapshot().Get(n.metadata.name));
      ASSERT_NE(nodes.back(), nullptr) << c.name;
    }
    // Score node by node, and ScoreNodes (as the framework calls it) the same.
    EXPECT_EQ(testing::ScoreEach(plugin, state, c.pod, nodes), c.want) << c.name;
  }
}

TEST(ImageLocalityTest, NormalizedImageName) {
  EXPECT_EQ(NormalizedImageName("root"), "root:latest");
  EXPECT_EQ(NormalizedImageName("gcr.io:5000/root"), "gcr.io:5000/root:latest");
  EXPECT_EQ(NormalizedImageName("root:tag"), "root:tag");
  EXPECT_EQ(NormalizedImageName("gcr.io:5000/root:tag"), "gcr.io:5000/root:tag");
  const std::string digest =
      "root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
  EXPECT_EQ(NormalizedImageName(digest), digest);
}

TEST(ImageLocalityTest, FactoryBuildsNamedPlugin) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "ImageLocality");
  EXPECT_NE(dynamic_cast<ScorePlugin*>(plugin->get()), nullptr);
}

}  // namespace
}  // namespace ksched::plugins::image_locality
