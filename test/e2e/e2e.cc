// make e2e: upstream's own [sig-scheduling] e2e tests (e2e.test, built by scripts/k8s/build-e2e.sh
// from the pinned release) against ksched, or against kube-scheduler for the other column, on a
// cluster of our own on loopback:
//
// - etcd, kube-apiserver and kube-controller-manager with its default controllers, less those that
//   need kubelets' heartbeats or a cloud (node lifecycle, node IPAM, attach/detach);
// - kwok as the kubelet of --nodes fake nodes (Ready, schedulable, untainted, cpu, memory, pods
//   and ephemeral-storage in their status, an InternalIP each, one zone each), with this
//   program's KubeletStandIn for what kwok does not do as a kubelet would (kubelet.h);
// - the scheduler under test as default-scheduler, the only scheduler.
//
// It prints each test as it ends and, last, "N passed, N failed, N skipped"; it exits 0 only when
// none failed. In OUT/<scheduler>/: report.md (every test, its outcome, time and reason),
// report.json, Ginkgo's ginkgo.json and junit_01.xml, e2e.log, scheduler.log and the cluster's
// logs; and OUT/comparison.md once both schedulers have a report there.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/file.h"
#include "src/client/rest_config.h"
#include "src/features/feature_gates.h"
#include "src/testing/command.h"
#include "src/testing/control_plane.h"
#include "test/e2e/kubelet.h"
#include "test/e2e/report.h"

namespace ksched::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ControlPlane;
using testing::Process;

void Write(const fs::path& p, std::string_view text) { std::ofstream(p) << text; }

// The rig's nodes: what a kubelet would register for a 4-core, 32 GiB machine, in zones zone-0,
// zone-1, ... for the Multi-AZ tests, each with a loopback InternalIP for the host-port tests.
json Nodes(int count) {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  const json resources = {
      {"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}, {"ephemeral-storage", "100Gi"}};
  for (int i = 0; i < count; ++i) {
    std::string name = fmt::format("node-{}", i);
    list["items"].push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata",
          {{"name", name},
           {"labels",
            {{"kubernetes.io/hostname", name},
             {"kubernetes.io/os", "linux"},
             {"kubernetes.io/arch", "amd64"},
             {"topology.kubernetes.io/zone", fmt::format("zone-{}", i)}}},
           {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
         {"status",
          {{"capacity", resources},
           {"allocatable", resources},
           {"addresses",
            {{{"type", "InternalIP"}, {"address", fmt::format("127.0.0.{}", 10 + i)}},
             {{"type", "Hostname"}, {"address", name}}}},
           {"conditions",
            {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}}}}});
  }
  return list;
}

// The node agents a conformance cluster runs on every node, as DaemonSets in kube-system whose
// pods kwok runs: upstream's tests wait up to a minute before each test of SchedulerPreemption
// and SchedulerPriorities for a kube-proxy, fluentd-elasticsearch and node-problem-detector pod
// on each node (e2enode.WaitForTotalHealthy). They request nothing, as the scheduler sees them.
json NodeAgents() {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (const char* name : {"kube-proxy", "fluentd-elasticsearch", "node-problem-detector"}) {
    const json labels = {{"k8s-app", name}};
    list["items"].push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "DaemonSet"},
         {"metadata", {{"name", name}, {"namespace", "kube-system"}}},
         {"spec",
          {{"selector", {{"matchLabels", labels}}},
           {"template",
            {{"metadata", {{"labels", labels}}},
             {"spec",
              {{"priorityClassName", "system-node-critical"},
               {"tolerations", {{{"operator", "Exists"}}}},
               {"containers", {{{"name", name}, {"image", "registry.k8s.io/pause:3.10"}}}}}}}}}}});
  }
  return list;
}

// The API a gate serves that the API server serves only when asked (a beta API is off by
// default), or "".
std::string_view GateApi(std::string_view gate) {
  return gate == "GenericWorkload" ? "scheduling.k8s.io/v1beta1" : "";
}

// The gates that "A=true,B=false" sets true.
std::vector<std::string> GatesOn(const std::string& flag) {
  std::vector<std::string> out;
  for (absl::string_view gate : absl::StrSplit(flag, ',', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(gate, '=');
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(kv.second), "true")) {
      out.emplace_back(absl::StripAsciiWhitespace(kv.first));
    }
  }
  return out;
}

// Whether a line of e2e.test's verbose output is worth showing as the run goes: a test's name as
// it starts, its outcome as it ends, and the final count.
bool IsProgress(std::string_view line) {
  return line.starts_with("[sig-") || line.starts_with("• ") || line.starts_with("S [") ||
         line.starts_with("Ran ");
}

int Main(int argc, char** argv) {
  CLI::App app{
      "e2e: upstream's [sig-scheduling] (or other, --focus) e2e tests against a scheduler on the "
      "rig"};
  std::string scheduler = "ksched";
  std::string focus = R"(\[sig-scheduling\])";
  std::string out_dir = "e2e";
  int nodes = 3;
  int verbosity = 2;
  app.add_option("--scheduler", scheduler, "The scheduler under test")
      ->check(CLI::IsMember({"ksched", "kube-scheduler"}));
  app.add_option("--focus", focus, "Which tests: a regular expression on their full names");
  app.add_option("--out", out_dir, "Where the reports go (a folder per scheduler)");
  app.add_option("--nodes", nodes, "How many fake nodes")->check(CLI::Range(2, 50));
  app.add_option("--scheduler-v", verbosity, "The scheduler's log verbosity (-v)");
  std::string feature_gates;
  app.add_option("--feature-gates", feature_gates,
                 "Gates (A=true,B=false) for the API server, the controller manager and the "
                 "scheduler; the tests of an off-by-default gate set true here run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  const std::string bin = testing::K8sBinDir();
  if (!fs::exists(bin + "/e2e.test")) {
    std::cerr << "e2e: " << bin << "/e2e.test is missing: build it with 'make k8s' "
              << "(scripts/k8s/build-e2e.sh)\n";
    return 1;
  }
  const fs::path out = fs::absolute(fs::path(out_dir) / scheduler);
  fs::remove_all(out);
  fs::create_directories(out);
  absl::StatusOr<std::string> stages = ReadFile(bin + "/kwok-stages.yaml");
  if (!stages.ok()) {
    std::cerr << "e2e: kwok's stages: " << stages.status().message() << " (make k8s writes them)\n";
    return 1;
  }
  Write(out / "kwok-stages.yaml", WithoutPodDeleteStage(*stages));

  const std::vector<std::string> gates_on = GatesOn(feature_gates);
  std::string gate_flag = feature_gates.empty() ? "" : " --feature-gates=" + feature_gates;
  std::string apiserver_flags = gate_flag;
  for (const std::string& gate : gates_on) {
    if (!GateApi(gate).empty()) {
      apiserver_flags += fmt::format(" --runtime-config={}=true", GateApi(gate));
    }
  }

  std::cerr << "e2e: starting the cluster\n";
  auto cluster =
      ControlPlane::Start({.kwok = true,
                           .kwok_stages = out / "kwok-stages.yaml",
                           .controller_manager = true,
                           .controller_manager_flags =
                               "--controllers=*,-node-lifecycle-controller,"
                               "-node-ipam-controller,-persistentvolume-attach-detach-controller" +
                               gate_flag,
                           .apiserver_flags = apiserver_flags});
  if (!cluster.ok()) {
    std::cerr << "e2e: " << cluster.status().ToString() << "\n";
    return 1;
  }
  const ControlPlane& cp = **cluster;
  if (auto r = cp.Kubectl({"create", "-f", "-"}, Nodes(nodes).dump()); r.exit_code != 0) {
    std::cerr << "e2e: creating the nodes: " << r.err;
    return 1;
  }
  if (auto r = cp.Kubectl({"create", "-f", "-"}, NodeAgents().dump()); r.exit_code != 0) {
    std::cerr << "e2e: creating the node agents: " << r.err;
    return 1;
  }
  auto config = client::LoadKubeconfig(cp.kubeconfig(), "");
  auto http = config.ok() ? client::HttpClient::Create(*config)
                          : absl::StatusOr<std::unique_ptr<client::HttpClient>>(config.status());
  if (!http.ok()) {
    std::cerr << "e2e: a client of the cluster: " << http.status() << "\n";
    return 1;
  }
  KubeletStandIn kubelet(**http);
  kubelet.Start();
  if (!kubelet.WaitForSync(absl::Seconds(30))) {
    std::cerr << "e2e: the kubelet stand-in did not list nodes and pods in 30 s\n";
    return 1;
  }

  // The scheduler under test is default-scheduler, alone, with the release's defaults.
  Write(out / "scheduler-config.yaml", fmt::format("apiVersion: kubescheduler.config.k8s.io/v1\n"
                                                   "kind: KubeSchedulerConfiguration\n"
                                                   "clientConnection: {{kubeconfig: \"{}\"}}\n"
                                                   "leaderElection: {{leaderElect: false}}\n",
                                                   cp.kubeconfig()));
  std::vector<std::string> scheduler_argv =
      scheduler == "ksched" ? std::vector<std::string>{KSCHED_BINARY, "run", "-v", "2"}
                            : std::vector<std::string>{bin + "/kube-scheduler", "-v=2"};
  scheduler_argv.insert(scheduler_argv.end(),
                        {"--config", out / "scheduler-config.yaml", "--secure-port=0"});
  if (!feature_gates.empty()) scheduler_argv.push_back("--feature-gates=" + feature_gates);
  Process sched(scheduler_argv, out / "scheduler.log");

  // The tests of off-by-default gates are left out by name, or, with gates set true, by Ginkgo's
  // label filter: those whose gates are all among them run.
  const std::string skip = SkipExpression(RigSkips(), gates_on.empty() ? "" : kOffByDefault);
  std::vector<std::string> selection;
  if (!skip.empty()) selection.push_back("--ginkgo.skip=" + skip);
  if (!gates_on.empty()) {
    selection.push_back(
        fmt::format("--ginkgo.label-filter=!Feature:OffByDefault || FeatureGate: isSubsetOf {{{}}}",
                    absl::StrJoin(gates_on, ", ")));
  }
  std::vector<std::string> e2e_argv = {bin + "/e2e.test",
                                       "--kubeconfig=" + cp.kubeconfig(),
                                       "--provider=skeleton",
                                       fmt::format("--num-nodes={}", nodes),
                                       "--ginkgo.focus=" + focus,
                                       "--ginkgo.no-color",
                                       "--ginkgo.v",
                                       "--ginkgo.json-report=" + (out / "ginkgo.json").string(),
                                       "--report-dir=" + out.string()};
  std::cerr << fmt::format("e2e: {} against {}, {} nodes; the log is {}\n", focus, scheduler, nodes,
                           (out / "e2e.log").string());
  e2e_argv.insert(e2e_argv.end(), selection.begin(), selection.end());
  Process tests(e2e_argv, out / "e2e.log");
  // Reads what the log gained since the last look, and shows its complete lines.
  std::streamoff shown = 0;
  auto show_progress = [&] {
    std::ifstream in(out / "e2e.log", std::ios::binary);
    in.seekg(shown);
    const std::string fresh(std::istreambuf_iterator<char>(in), {});
    size_t begin = 0, end;
    while ((end = fresh.find('\n', begin)) != std::string::npos) {
      std::string_view line(fresh.data() + begin, end - begin);
      if (IsProgress(line)) std::cout << line << "\n" << std::flush;
      begin = end + 1;
    }
    shown += static_cast<std::streamoff>(begin);
  };
  while (tests.Running()) {
    show_progress();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  show_progress();

  int failures = 0;
  if (!sched.Running()) {
    std::cerr << fmt::format("e2e: {} exited during the run; see {}\n", scheduler,
                             (out / "scheduler.log").string());
    ++failures;
  } else if (int code = sched.Stop(SIGTERM); code != 0 && scheduler == "ksched") {
    // (kube-scheduler without leader election exits 1 on SIGTERM: "finished without leader
    // elect".)
    std::cerr << fmt::format("e2e: {} exited with {} on SIGTERM; see {}\n", scheduler, code,
                             (out / "scheduler.log").string());
    ++failures;
  }
  kubelet.Stop();
  fs::create_directories(out / "cluster");
  for (const auto& e : fs::directory_iterator(cp.dir())) {
    if (e.path().extension() == ".log")
      fs::copy_file(e.path(), out / "cluster" / e.path().filename());
  }

  absl::StatusOr<std::string> report = ReadFile(out / "ginkgo.json");
  auto results = report.ok() ? ReadGinkgoReport(*report, focus, RigSkips())
                             : absl::StatusOr<std::vector<SpecResult>>(report.status());
  if (!results.ok()) {
    std::cerr << fmt::format("e2e: {}: {}; see {}\n", (out / "ginkgo.json").string(),
                             results.status().ToString(), (out / "e2e.log").string());
    return 1;
  }
  Write(out / "report.json", ToJson(*results).dump(2) + "\n");
  Write(out / "report.md",
        MarkdownReport(fmt::format("Upstream's e2e tests matching `{}` of {} against {}", focus,
                                   features::FeatureGates::Release(), scheduler),
                       *results));
  const fs::path kube = fs::path(out_dir) / "kube-scheduler" / "report.json";
  const fs::path ours = fs::path(out_dir) / "ksched" / "report.json";
  absl::StatusOr<std::string> kube_text = ReadFile(kube), ours_text = ReadFile(ours);
  if (kube_text.ok() && ours_text.ok()) {
    auto left = FromJson(json::parse(*kube_text, nullptr, false));
    auto right = FromJson(json::parse(*ours_text, nullptr, false));
    if (left.ok() && right.ok()) {
      Write(fs::path(out_dir) / "comparison.md",
            ComparisonTable("kube-scheduler", *left, "ksched", *right));
    }
  }
  for (const SpecResult& r : *results) {
    if (r.outcome == Outcome::kPassed) continue;
    std::cout << fmt::format("{}: {}\n  {}\n", OutcomeName(r.outcome), r.name, r.reason);
    if (r.outcome == Outcome::kFailed) ++failures;
  }
  std::cout << fmt::format("e2e: the report is {}\n", (out / "report.md").string());
  std::cout << Summary(*results) << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ksched::e2e

int main(int argc, char** argv) { return ksched::e2e::Main(argc, argv); }
