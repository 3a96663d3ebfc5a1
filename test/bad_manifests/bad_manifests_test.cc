// How the real `ksched simulate` reads manifests. First, every test/bad_manifests/*.yaml, manifests
// that kubectl or the API server refuses, one per rule. Each must be refused with exit 2 and the
// message its leading comment lines give (the file named as it is here). The same files seed the
// manifest_fuzz fuzzer. Adding a rule means adding a file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/testing/command.h"
#include "src/testing/loopback_server.h"

namespace ksched {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::RunCommand;

const std::string kDir = KSCHED_SOURCE_DIR "/test/bad_manifests";

std::vector<std::string> BadManifests() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What ksched wrote, with the folder taken out of the file names.
std::string Relative(std::string text) {
  const std::string prefix = kDir + "/";
  for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  return text;
}

class BadManifestTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadManifestTest, IsRefusedWithExit2AndTheApiServersMessage) {
  std::ifstream in(kDir + "/" + GetParam());
  std::string line, want;
  while (std::getline(in, line) && line.starts_with("# ")) want += line.substr(2) + "\n";
  ASSERT_FALSE(want.empty()) << "the file must begin with the expected message, as # lines";
  CommandResult r = RunCommand({KSCHED_BINARY, "simulate", kDir + "/" + GetParam()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Relative(r.err), want);
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(Rules, BadManifestTest, ::testing::ValuesIn(BadManifests()),
                         [](const auto& info) {
                           std::string name = fs::path(info.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// One node with room, the first document of the clusters below.
constexpr char kNode[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
)";

const std::string kTypo = kNode + std::string(R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeSelecter: {disk: ssd}
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
)");

TEST(ValidateFlagTest, WarnPrintsEachUnknownFieldAndGoesOnAsKubectlDoes) {
  const std::string path = WriteTemp("typo.yaml", kTypo);
  CommandResult warn = RunCommand({KSCHED_BINARY, "simulate", "--validate=warn", path});
  EXPECT_EQ(warn.exit_code, 0) << warn.err;
  EXPECT_EQ(warn.err, "ksched simulate: warning: " + path +
                          ": document 2 (Pod web): unknown field \"spec.nodeSelecter\"\n");
  EXPECT_NE(warn.out.find("web   Scheduled  n1"), std::string::npos) << warn.out;

  for (const char* off : {"--validate=false", "--validate=ignore"}) {
    CommandResult ignore = RunCommand({KSCHED_BINARY, "simulate", off, path});
    EXPECT_EQ(ignore.exit_code, 0) << ignore.err;
    EXPECT_EQ(ignore.err, "");
    EXPECT_EQ(ignore.out, warn.out);
  }
  for (const char* strict : {"--validate=strict", "--validate=true"}) {
    CommandResult refused = RunCommand({KSCHED_BINARY, "simulate", strict, path});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err, "ksched simulate: " + path +
                               ": document 2 (Pod web): strict decoding error: unknown field "
                               "\"spec.nodeSelecter\"\n");
  }
  CommandResult bad = RunCommand({KSCHED_BINARY, "simulate", "--validate=maybe", path});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--validate"), std::string::npos) << bad.err;
}

TEST(ValidateFlagTest, AddedManifestsAreCheckedAsTheClustersAre) {
  const std::string cluster = WriteTemp("cluster.yaml", kNode);
  const std::string added = WriteTemp("added.yaml", kTypo.substr(std::string(kNode).size()));
  CommandResult r = RunCommand({KSCHED_BINARY, "simulate", cluster, "--add", added});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown field \"spec.nodeSelecter\""), std::string::npos) << r.err;
  r = RunCommand({KSCHED_BINARY, "simulate", "--validate=warn", cluster, "--add", added});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: "), std::string::npos) << r.err;
}

// A PodGroup's schedulingConstraints need TopologyAwareWorkloadScheduling: without it the API
// server drops them on create, and simulate says it does the same.
TEST(FeatureGateTest, SchedulingConstraintsAreDroppedWithAWarningWhenTheirGateIsOff) {
  const std::string path =
      WriteTemp("tas.yaml", kNode + std::string(R"(apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: rack}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: nginx}]}
)"));
  CommandResult off =
      RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", "GenericWorkload=true", path});
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.err,
            "ksched simulate: warning: PodGroup default/pg: spec.schedulingConstraints is dropped, "
            "as the API server drops it, with the TopologyAwareWorkloadScheduling feature gate "
            "off (--feature-gates GenericWorkload=true,TopologyAwareWorkloadScheduling=true turns "
            "it on)\n");
  EXPECT_NE(off.out.find("web   Scheduled  n1"), std::string::npos) << off.out;
  // With the gate, n1 has no rack label: no placement holds the group.
  CommandResult on =
      RunCommand({KSCHED_BINARY, "simulate", "--feature-gates",
                  "GenericWorkload=true,TopologyAwareWorkloadScheduling=true", path});
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(on.err, "");
  EXPECT_NE(on.out.find("no feasible placements found"), std::string::npos) << on.out;
}

// A PodGroup's preemptionPolicy (PodGroupPreemptionPolicy): dropped with a warning when the gate
// is off; with it, defaulted and then admitted as kube-apiserver v1.37.2 does: a group of a class
// whose policy is Never must say Never itself.
TEST(FeatureGateTest, APodGroupsPreemptionPolicyIsAdmittedAsTheApiServerAdmitsIt) {
  const std::string cls = R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: never}
value: 100
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {schedulingPolicy: {basic: {}}, priorityClassName: never)";
  const std::string pod = R"(
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {schedulingGroup: {podGroupName: pg}, priorityClassName: never, containers: [{name: c, image: nginx}]}
)";
  const std::string unsaid = WriteTemp("pgpp-unsaid.yaml", kNode + cls + "}" + pod);
  const std::string said =
      WriteTemp("pgpp-said.yaml", kNode + cls + ", preemptionPolicy: Never}" + pod);
  const std::string gates = "GenericWorkload=true,PodGroupPreemptionPolicy=true";
  CommandResult refused = RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", gates, unsaid});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "ksched simulate: podgroups.scheduling.k8s.io \"pg\" is forbidden: the string value "
            "of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod group spec; "
            "priority admission controller computed Never from the given PriorityClass name\n");
  CommandResult admitted = RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", gates, said});
  EXPECT_EQ(admitted.exit_code, 0) << admitted.err;
  EXPECT_NE(admitted.out.find("web   Scheduled  n1"), std::string::npos) << admitted.out;
  CommandResult off =
      RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", "GenericWorkload=true", said});
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.err,
            "ksched simulate: warning: PodGroup default/pg: spec.preemptionPolicy is dropped, as "
            "the API server drops it, with the PodGroupPreemptionPolicy feature gate off "
            "(--feature-gates GenericWorkload=true,PodGroupPreemptionPolicy=true turns it on)\n");
}

// A PodGroup's resourceClaims: dropped with a warning without DRAWorkloadResourceClaims, as the
// API server drops them (each pod then gets a GPU of its own, leaving none for solo); honoured
// with it; refused in kube-apiserver's words when invalid.
TEST(FeatureGateTest, APodGroupsClaimsNeedTheirGate) {
  const std::string example = KSCHED_SOURCE_DIR "/examples/gangs/claims.yaml";
  CommandResult off =
      RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", "GenericWorkload=true", example});
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.err,
            "ksched simulate: warning: PodGroup default/train: spec.resourceClaims is dropped, as "
            "the API server drops it, with the DRAWorkloadResourceClaims feature gate off "
            "(--feature-gates GenericWorkload=true,DRAWorkloadResourceClaims=true turns it on)\n");
  EXPECT_NE(off.out.find("solo     Unschedulable"), std::string::npos) << off.out;
  const std::string gates = "GenericWorkload=true,DRAWorkloadResourceClaims=true";
  CommandResult on = RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", gates, example});
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(on.err, "");
  EXPECT_NE(on.out.find("solo     Scheduled  n1"), std::string::npos) << on.out;
  const std::string bad = WriteTemp("pg-claims.yaml", R"(apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {schedulingPolicy: {gang: {minCount: 1}}, resourceClaims: [{name: gpu}]}
)");
  CommandResult refused = RunCommand({KSCHED_BINARY, "simulate", "--feature-gates", gates, bad});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("spec.resourceClaims[0]: Invalid value: \"\": must specify one of: "
                             "`resourceClaimName`, `resourceClaimTemplateName`"),
            std::string::npos)
      << refused.err;
}

TEST(GenerateNameTest, AnObjectWithOnlyGenerateNameGetsANameAsTheApiServerGivesOne) {
  const std::string path = WriteTemp("gen.yaml", kNode + std::string(R"(apiVersion: v1
kind: Pod
metadata: {generateName: web-}
spec: {containers: [{name: c, image: nginx}]}
)"));
  CommandResult r = RunCommand({KSCHED_BINARY, "simulate", "-o", "json", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "web-" and five of the API server's characters, the same in every run.
  const size_t at = r.out.find("\"name\": \"web-");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string name = r.out.substr(at + 9, r.out.find('"', at + 9) - at - 9);
  EXPECT_EQ(name.size(), 9u) << name;
  EXPECT_EQ(name.find_first_not_of("bcdfghjklmnpqrstvwxz2456789", 4), std::string::npos) << name;
  EXPECT_NE(r.out.find("\"node\": \"n1\""), std::string::npos) << r.out;
  EXPECT_EQ(RunCommand({KSCHED_BINARY, "simulate", "-o", "json", path}).out, r.out);
}

const std::string kDemo = KSCHED_SOURCE_DIR "/examples/demo";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ManifestInputTest, ADirectoryStandardInputAndDashFAreReadAsKubectlReadsThem) {
  CommandResult files =
      RunCommand({KSCHED_BINARY, "simulate", kDemo + "/nodes.yaml", kDemo + "/pods.yaml"});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  ASSERT_NE(files.out.find("Scheduled"), std::string::npos) << files.out;
  CommandResult dir = RunCommand({KSCHED_BINARY, "simulate", kDemo});
  EXPECT_EQ(dir.exit_code, 0) << dir.err;
  EXPECT_EQ(dir.out, files.out);
  CommandResult stdin_read =
      RunCommand({KSCHED_BINARY, "simulate", "-"},
                 Slurp(kDemo + "/nodes.yaml") + "---\n" + Slurp(kDemo + "/pods.yaml"));
  EXPECT_EQ(stdin_read.exit_code, 0) << stdin_read.err;
  EXPECT_EQ(stdin_read.out, files.out);
  CommandResult dash_f = RunCommand(
      {KSCHED_BINARY, "simulate", "-f", kDemo + "/nodes.yaml", "--filename", kDemo + "/pods.yaml"});
  EXPECT_EQ(dash_f.exit_code, 0) << dash_f.err;
  EXPECT_EQ(dash_f.out, files.out);

  // Only the manifests' extensions are read; -R goes into the subdirectories.
  const std::string tree = ::testing::TempDir() + "/tree";
  fs::create_directories(tree + "/more");
  fs::copy_file(kDemo + "/nodes.yaml", tree + "/nodes.yml", fs::copy_options::overwrite_existing);
  fs::copy_file(kDemo + "/pods.yaml", tree + "/more/pods.yaml",
                fs::copy_options::overwrite_existing);
  std::ofstream(tree + "/notes.txt") << "not a manifest\n";
  CommandResult flat = RunCommand({KSCHED_BINARY, "simulate", tree});
  EXPECT_EQ(flat.exit_code, 0) << flat.err;
  EXPECT_EQ(flat.out, "NAMESPACE  NAME  STATUS  NODE  MESSAGE\n");  // Nodes, no pending pod.
  CommandResult recursive = RunCommand({KSCHED_BINARY, "simulate", "-R", tree});
  EXPECT_EQ(recursive.exit_code, 0) << recursive.err;
  EXPECT_EQ(recursive.out, files.out);
}

TEST(ManifestInputTest, InputWithNoObjectIsAnError) {
  const std::string empty = WriteTemp("empty.yaml", "");
  const std::string dashes = WriteTemp("dashes.yaml", "---\n---\n");
  const std::string dir = ::testing::TempDir() + "/nothing";
  fs::create_directories(dir);
  for (const std::string& input : {empty, dashes, dir}) {
    CommandResult r = RunCommand({KSCHED_BINARY, "simulate", input});
    EXPECT_EQ(r.exit_code, 2) << input;
    EXPECT_EQ(r.err, input == dir ? "ksched simulate: the directory " + dir +
                                        " holds no .yaml, .yml or .json file\n"
                                  : "ksched simulate: no objects passed to simulate: " + input +
                                        " hold(s) none\n");
  }
}

TEST(ManifestInputTest, FlagsThatTakeAValueTakeOneAndLeaveTheManifests) {
  CommandResult r = RunCommand({KSCHED_BINARY, "simulate", "--drain", "node-a",
                                kDemo + "/nodes.yaml", kDemo + "/pods.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("node-a"), std::string::npos) << r.out;  // In the summary of the drain.
  r = RunCommand({KSCHED_BINARY, "simulate", "--cordon", "node-a", "--cordon", "node-b",
                  kDemo + "/nodes.yaml", kDemo + "/pods.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A live cluster's objects are checked too: a field of a newer API server's pods is refused as a
// file's, with --validate=warn it is a warning, and with --validate=false nothing is said.
TEST(ValidateFlagTest, ANewerApiServersFieldsAreRefusedUnlessValidateSaysOtherwise) {
  testing::LoopbackServer s;
  s.server().Get("/api/v1/nodes", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7"},
        "items":[{"metadata":{"name":"n1"},
                  "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}]})",
                    "application/json");
  });
  s.server().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},
        "items":[{"metadata":{"name":"web","namespace":"default","uid":"u1"},
                  "spec":{"containers":[{"name":"c"}],"gangOfTheFuture":{"size":3}}}]})",
                    "application/json");
  });
  s.server().Get(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  ASSERT_TRUE(s.Start());
  const std::string kubeconfig = WriteTemp("kubeconfig", R"(apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: ")" + s.url() + R"("}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)");
  CommandResult strict = RunCommand({KSCHED_BINARY, "simulate", "--kubeconfig", kubeconfig});
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.err.find("/api/v1/pods default/web: unknown field \"spec.gangOfTheFuture\" (a "
                            "field of a newer Kubernetes than ksched's types, v1."),
            std::string::npos)
      << strict.err;
  CommandResult warn =
      RunCommand({KSCHED_BINARY, "simulate", "--validate=warn", "--kubeconfig", kubeconfig});
  EXPECT_EQ(warn.exit_code, 0) << warn.err;
  EXPECT_NE(warn.err.find("ksched simulate: warning: /api/v1/pods default/web: unknown field "
                          "\"spec.gangOfTheFuture\"\n"),
            std::string::npos)
      << warn.err;
  EXPECT_NE(warn.out.find("web   Scheduled  n1"), std::string::npos) << warn.out;
  CommandResult ignore =
      RunCommand({KSCHED_BINARY, "simulate", "--validate=false", "--kubeconfig", kubeconfig});
  EXPECT_EQ(ignore.exit_code, 0) << ignore.err;
  EXPECT_EQ(ignore.err.find("gangOfTheFuture"), std::string::npos) << ignore.err;
}

}  // namespace
}  // namespace ksched
