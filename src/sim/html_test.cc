#include "src/sim/html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fmt/format.h"
#include "src/sim/simulate_testing.h"
#include "src/testing/command.h"

namespace ksched::sim {
namespace {

using ::testing::HasSubstr;

// node-a runs a pod of 1 CPU; web fits there, big fits nowhere, and its message has characters
// HTML must escape.
constexpr char kCluster[] = R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
spec: {unschedulable: true}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1", memory: 2Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "8"}}}]
)";

std::string Page() { return FormatHtml(SimulateYaml(kCluster), "cluster.yaml & more"); }

TEST(HtmlTest, NodesAreBarsOfRequestedAgainstAllocatableWithThePodsPlacedAndPendingPodsWhy) {
  const std::string page = Page();
  EXPECT_THAT(page, HasSubstr("<title>ksched simulate: cluster.yaml &amp; more</title>"));
  EXPECT_THAT(page, HasSubstr("<p id=\"counts\">2 pod(s) to schedule: 1 scheduled, 1 pending, 0 "
                              "evicted by preemption; 2 node(s).</p>"));
  // node-a: 1 CPU running, 2 placed, of 4: 25% grey, 50% blue, the allocatable line at 100%.
  EXPECT_THAT(page, HasSubstr("<div class=\"node\" id=\"node-node-a\"><h3>node-a</h3>\n"
                              "<div class=\"bar\" title=\"cpu 3 of 4\"><span class=\"before\" "
                              "style=\"width:25.00%\"></span><span class=\"placed\" "
                              "style=\"width:50.00%\"></span><span class=\"cap\" "
                              "style=\"left:100.00%\"></span><em>cpu 3 of 4</em></div>"));
  EXPECT_THAT(
      page, HasSubstr("<em>memory 4Gi of 8Gi</em></div>\n<span class=\"pod\">default/web</span>"));
  EXPECT_THAT(page, HasSubstr("<h3>node-b (unschedulable)</h3>"));
  EXPECT_THAT(page, HasSubstr("<tr><td>default/big</td><td>Unschedulable</td><td>0/2 nodes are "
                              "available: 1 node(s) didn&#39;t match Pod&#39;s node "
                              "affinity/selector, 1 node(s) were unschedulable."));
  EXPECT_EQ(page.find("<script"), std::string::npos);  // Self-contained, nothing to run.
  EXPECT_EQ(page.find("http"), std::string::npos);     // Nothing fetched from elsewhere.
}

// A gang of three whose third pod does not fit: none is placed, and the groups' table says so.
TEST(HtmlTest, PodGroupsAreATableOfWhatWasPlacedAndWhyNotTheRest) {
  std::string yaml = R"(
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train}
spec: {schedulingPolicy: {gang: {minCount: 3}}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
)";
  for (const char* name : {"t-0", "t-1", "t-2"}) {
    yaml += fmt::format(
        "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {}}}\nspec: {{schedulingGroup: "
        "{{podGroupName: train}}, containers: [{{name: c, image: i, resources: {{requests: {{cpu: "
        "\"1\"}}}}}}]}}\n",
        name);
  }
  const std::string page = FormatHtml(SimulateYaml(yaml, {.generic_workload = true}), "gang.yaml");
  EXPECT_THAT(page, HasSubstr("<table id=\"groups\"><tr><th>group</th><th>scheduled</th><th>why "
                              "not all</th></tr>\n<tr><td>default/train</td><td>0 of 3</td><td>"
                              "Unschedulable: pod group is unschedulable, minCount (3) cannot be "
                              "satisfied: 2 scheduled, 0 remaining"));
  // A page with no groups has no such table.
  EXPECT_EQ(Page().find("id=\"groups\""), std::string::npos);
}

// The page as a browser shows it: headless Chromium renders it to a screenshot (its path is in
// the test's output) and serializes the DOM it built, which holds what the page says.
TEST(HtmlTest, HeadlessChromiumRendersThePage) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ksched-html-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string page = (dir / "simulate.html").string();
  const std::string shot = (dir / "simulate.png").string();
  std::ofstream(page) << Page();
  const std::vector<std::string> browser = {"chromium",          "--headless",
                                            "--no-sandbox",      "--disable-gpu",
                                            "--hide-scrollbars", "--window-size=1200,700"};
  std::vector<std::string> args = browser;
  args.push_back("--screenshot=" + shot);
  args.push_back("file://" + page);
  testing::CommandResult r = testing::RunCommand(args);
  ASSERT_EQ(r.exit_code, 0) << "chromium (scripts/install-deps.sh installs it): " << r.err;
  std::ifstream png(shot, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  // IHDR: the width and height, big-endian, at bytes 16 and 20.
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at])) << 24) |
           (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 3]));
  };
  EXPECT_EQ(be32(16), 1200u);
  EXPECT_EQ(be32(20), 700u);
  EXPECT_GT(bytes.size(), 10'000u);  // Bars and text, not a blank page.
  std::cout << "screenshot: " << shot << "\n";

  args = browser;
  args.push_back("--dump-dom");
  args.push_back("file://" + page);
  r = testing::RunCommand(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<h3>node-a</h3>"));
  EXPECT_THAT(r.out, HasSubstr("<td>default/big</td>"));
  EXPECT_THAT(r.out, HasSubstr("<span class=\"pod\">default/web</span>"));
}

}  // namespace
}  // namespace ksched::sim
