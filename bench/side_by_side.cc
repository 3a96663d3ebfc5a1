// ksched and the upstream kube-scheduler side by side on scheduler_perf's workloads
// (bench/workloads.h), with the bind ceiling beside them: for each workload, each runner gets a
// fresh etcd and kube-apiserver on loopback (scripts/cluster.sh, `make k8s`), the same nodes, the
// same init pods (scheduled first, not measured) and the same measured pods, created while it
// runs, as scheduler_perf creates them. The runners:
//   ceiling         bench/trivial_binder: binds every pending pod round-robin, deciding nothing;
//   kube-scheduler  the upstream binary built by `make k8s`;
//   ksched          this build;
//   ksched-before   the ksched binary $KSCHED_BEFORE names (an earlier commit's build), to see
//                   a change's effect side by side: `--runners
//                   kube-scheduler,ksched-before,ksched`.
// The two schedulers read the same KubeSchedulerConfiguration: client QPS and burst 5000 (as
// scheduler_perf's), no leader election, the default percentageOfNodesToScore.
//
//   build/bench/side_by_side [--set default|quick|volumes|dra|gangs]
//                            [--workload NAME[:NODES:INIT:MEASURE]]...
//                            [--runners ceiling,kube-scheduler,ksched] [--out DIR]
//                            [--in-process scheduling_bench.json] [--profile]
//                            [--steady-seconds N]
//
// The report (bench/report.h) goes to --out; the table is also printed.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "bench/bind_watcher.h"
#include "bench/report.h"
#include "bench/workload_objects.h"
#include "bench/workloads.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/proc_status.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/metrics/scheduler_metrics.h"
#include "src/testing/api_paths.h"
#include "src/testing/command.h"
#include "src/testing/control_plane.h"
#include "test/extender/test_extender.h"

namespace ksched::bench {
namespace {

using nlohmann::json;
using testing::CollectionOf;
using testing::ControlPlane;
using testing::Process;
using Clock = std::chrono::steady_clock;
using SteadyTime = Clock::time_point;

double PeakRssMib(int pid) {
  return static_cast<double>(ProcStatusKib(pid, "VmHWM").value_or(0)) / 1024.0;
}

// The second (Unix time) at which each bound pod of `ns` was bound: its PodScheduled condition's
// lastTransitionTime, which the API server sets when it takes the binding.
absl::StatusOr<std::vector<int64_t>> BindSeconds(client::HttpClient& http, const std::string& ns) {
  std::vector<int64_t> out;
  std::string next;
  do {
    // A busy API server once took over 30 s to send a page: more time, and two more tries.
    client::HttpResponse r =
        http.Call({.path = fmt::format("/api/v1/namespaces/{}/pods?limit=1000{}", ns,
                                       next.empty() ? "" : "&continue=" + next),
                   .timeout = absl::Minutes(2),
                   .retries = 2,
                   .retry_delay = absl::Seconds(1)});
    if (!r.ok()) return r.ToStatus();
    json list = json::parse(r.body, nullptr, false);
    if (!list.is_object()) return absl::InternalError("listing pods: not JSON");
    next = list["metadata"].value("continue", "");
    for (const json& pod : list["items"]) {
      for (const json& c : pod["status"].value("conditions", json::array())) {
        if (c.value("type", "") != "PodScheduled" || c.value("status", "") != "True") continue;
        absl::Time t;
        std::string err;
        if (absl::ParseTime(absl::RFC3339_full, c.value("lastTransitionTime", ""), &t, &err)) {
          out.push_back(absl::ToUnixSeconds(t));
        }
      }
    }
  } while (!next.empty());
  return out;
}

// Sends a request for each object, with up to `in_flight` outstanding, as scheduler_perf's
// creators run many at once.
absl::Status SendAll(client::HttpClient& http, const std::vector<json>& objects,
                     const std::function<client::HttpRequest(const json&)>& request,
                     int in_flight = 32) {
  absl::Mutex mu;
  int pending = 0;
  std::string error;
  auto has_room = [&] { return pending < in_flight; };
  auto idle = [&] { return pending == 0; };
  for (const json& o : objects) {
    {
      absl::MutexLock lock(&mu);
      mu.Await(absl::Condition(&has_room));
      if (!error.empty()) break;
      ++pending;
    }
    http.Send(request(o), [&](const client::HttpResponse& r) {
      absl::MutexLock lock(&mu);
      --pending;
      if (!r.ok() && error.empty()) error = std::string(r.ToStatus().message());
    });
  }
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(&idle));
  return error.empty() ? absl::OkStatus() : absl::InternalError(error);
}

absl::Status CreateAll(client::HttpClient& http, const std::vector<json>& objects) {
  absl::Status st = SendAll(http, objects, [](const json& o) -> client::HttpRequest {
    return {.method = "POST", .path = CollectionOf(o), .body = o.dump()};
  });
  if (!st.ok()) return absl::InternalError("creating objects: " + std::string(st.message()));
  // The API server ignores a status on create: PVs' and claims' phases go in after.
  std::vector<json> with_status;
  for (const json& o : objects) {
    if (o.contains("status") && o.value("kind", "") != "Node") with_status.push_back(o);
  }
  st = SendAll(http, with_status, [](const json& o) -> client::HttpRequest {
    return {.method = "PATCH",
            .path = testing::PathOf(o) + "/status",
            .body = json{{"status", o["status"]}}.dump(),
            .content_type = "application/merge-patch+json"};
  });
  if (!st.ok()) return absl::InternalError("writing statuses: " + std::string(st.message()));
  return absl::OkStatus();
}

// SchedulingWithMixedChurn's churn (mode recreate, one of each, every second) until stopped.
class Churn {
 public:
  Churn(client::HttpClient& http, const WorkloadObjects& objects)
      : http_(http), thread_([this, &objects] { Loop(objects); }) {}
  ~Churn() {
    stop_.Notify();
    thread_.join();
  }

 private:
  void Loop(const WorkloadObjects& o) {
    std::vector<json> made;
    for (int round = 0; !stop_.WaitForNotificationWithTimeout(absl::Seconds(1)); ++round) {
      for (const json& old : made) {
        http_.Call({.method = "DELETE",
                    .path = testing::PathOf(old),
                    .body = R"({"gracePeriodSeconds":0})"});
      }
      made = {Named(o.churn_node, fmt::format("node-churn-{}", round)),
              Named(o.churn_pod, fmt::format("pod-churn-{}", round), "churn"),
              Named(o.churn_service, fmt::format("service-churn-{}", round), "churn")};
      for (const json& obj : made) {
        http_.Call({.method = "POST", .path = CollectionOf(obj), .body = obj.dump()});
      }
    }
  }

  client::HttpClient& http_;
  absl::Notification stop_;
  std::thread thread_;
};

// The measured phase of Workload::steady_seconds: the measured pods are made; each time all are
// bound, the namespace's pods are deleted and the next batch is made (the pods' names get the
// batch's number), until the time is up.
absl::Status RunSteadily(client::HttpClient& http, const Workload& w, const WorkloadObjects& o,
                         BindWatcher& binds) {
  const absl::Time end = absl::Now() + absl::Seconds(w.steady_seconds);
  for (size_t batch = 0;; ++batch) {
    std::vector<json> pods;
    for (const json& pod : o.measure_pods) {
      pods.push_back(
          Named(pod, fmt::format("{}-{}", pod["metadata"]["name"].get<std::string>(), batch)));
    }
    if (absl::Status st = CreateAll(http, pods); !st.ok()) return st;
    // A wait that fails timed out at `end` (its timer may wake a little before absl::Now()
    // reaches it, once failing the run): the last batch was still on its way, as it may be.
    if (absl::Status st = binds.WaitFor(pods.size() * (batch + 1), end - absl::Now()); !st.ok()) {
      if (absl::IsDataLoss(st)) return st;  // A lost event is the bench's failure, not the time's.
      break;
    }
    if (absl::Now() >= end) break;
    client::HttpResponse r =
        http.Call({.method = "DELETE",
                   .path = fmt::format("/api/v1/namespaces/{}/pods", kMeasureNamespace),
                   .body = R"({"gracePeriodSeconds":0,"propagationPolicy":"Background"})"});
    if (!r.ok()) return r.ToStatus();
  }
  if (binds.Count() == 0) return absl::DeadlineExceededError("no pod was bound in the time");
  return absl::OkStatus();
}

// The command line of a runner against `cluster`, whose schedulers read `config` and get the
// workload's feature gates.
std::vector<std::string> RunnerArgv(const std::string& runner, const ControlPlane& cluster,
                                    const std::string& config, const Workload& w) {
  if (runner == "ceiling") {
    return {TRIVIAL_BINDER, "--kubeconfig", cluster.kubeconfig(), "--qps", "5000",
            "--burst",      "5000"};
  }
  const char* before = std::getenv("KSCHED_BEFORE");
  const std::string bin = runner == "ksched"          ? std::string(KSCHED_BINARY)
                          : runner == "ksched-before" ? std::string(before ? before : "")
                          : runner == "scheduler-plugins"
                              ? testing::SchedulerPluginsBinary()
                              : testing::K8sBinDir() + "/kube-scheduler";
  std::vector<std::string> argv = {bin, "--config=" + config, "--secure-port=0", "--v=1"};
  if (!FeatureGates(w).empty()) argv.push_back("--feature-gates=" + FeatureGates(w));
  if (w.coscheduling && runner.starts_with("ksched")) {
    argv.insert(argv.end(), {"--plugin-library", COSCHEDULING_LIBRARY});
  }
  return argv;
}

// How long a phase of `pods` may take: generous, so that only a stuck scheduler times out.
absl::Duration PhaseTimeout(int pods) { return absl::Seconds(std::max(180, pods / 10)); }

// With `profile` set, the measured phase of the ksched runner is profiled: `perf record` samples
// its threads' CPU (cpu-clock, with DWARF call graphs) into `profile`.
RunResult RunOne(const Workload& w, const WorkloadObjects& objects, const std::string& runner,
                 const std::string& profile) {
  RunResult r{.runner = runner};
  auto fail = [&](const std::string& what, const absl::Status& st) {
    r.error = fmt::format("{}: {}", what, std::string(st.message()));
    std::fprintf(stderr, "side_by_side: %s, %s: %s\n", w.name.c_str(), runner.c_str(),
                 r.error.c_str());
    return r;
  };
  // The PV controller binds the WaitForFirstConsumer workload's claims, and the resourceclaim
  // controller makes the DRA workloads' claims from their template, at scheduler_perf's client
  // rate (its default, 20 requests/s, would measure the controller, not the schedulers).
  const bool dra = !w.devices.empty();
  // The workloads with PodGroups need them served (scheduling.k8s.io/v1beta1, off by default).
  const std::string gates = FeatureGates(w);
  absl::StatusOr<std::unique_ptr<ControlPlane>> cluster = ControlPlane::Start(
      {.controller_manager = w.volumes == "local-wffc" || dra,
       .controller_manager_flags = std::string("--kube-api-qps=5000 --kube-api-burst=5000") +
                                   (dra ? " --controllers=resourceclaim-controller" : ""),
       .apiserver_flags = gates.empty() ? ""
                                        : "--feature-gates=" + gates +
                                              " --runtime-config=scheduling.k8s.io/v1beta1=true"});
  if (!cluster.ok()) return fail("starting the control plane", cluster.status());
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = (*cluster)->kubeconfig()});
  if (!rest.ok()) return fail("kubeconfig", rest.status());
  rest->qps = 5000;
  rest->burst = 5000;
  rest->user_agent = "side-by-side";
  auto http = client::HttpClient::Create(*rest);
  if (!http.ok()) return fail("client", http.status());
  if (w.coscheduling) {  // scheduler-plugins' PodGroup CRD, served before its PodGroups come.
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"apply", "-f", KSCHED_SOURCE_DIR "/contrib/coscheduling/crd.yaml"},
             {"wait", "--for=condition=established", "crd/podgroups.scheduling.x-k8s.io"}}) {
      testing::CommandResult k = (*cluster)->Kubectl(args);
      if (k.exit_code != 0) return fail("the PodGroup CRD", absl::InternalError(k.err));
    }
  }
  // The measured pods' claims and PVs too: only the pods are made while the scheduler runs.
  for (const auto* batch : {&objects.setup, &objects.nodes, &objects.storage, &objects.init_pods}) {
    if (absl::Status st = CreateAll(**http, *batch); !st.ok()) return fail("setup", st);
  }

  const std::string config = (*cluster)->dir() + "/config.yaml";
  std::ofstream(config) << fmt::format(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "clientConnection: {{kubeconfig: {}, qps: 5000, burst: 5000}}\n"
      "leaderElection: {{leaderElect: false}}\n"
      "percentageOfNodesToScore: 0\n",
      (*cluster)->kubeconfig());
  if (w.coscheduling) {
    std::ofstream(config, std::ios::app)
        << "profiles:\n- schedulerName: default-scheduler\n  plugins:\n"
           "    multiPoint: {enabled: [{name: Coscheduling}]}\n"
           "    queueSort: {enabled: [{name: Coscheduling}], disabled: [{name: \"*\"}]}\n";
  }
  std::optional<testing::TestExtender> extender;
  if (w.extender && runner != "ceiling") {
    if (!extender.emplace().Start()) {
      return fail("the test extender", absl::InternalError("cannot listen"));
    }
    std::ofstream(config, std::ios::app) << fmt::format(
        "extenders:\n- {{urlPrefix: {}, filterVerb: filter, prioritizeVerb: prioritize, weight: 1, "
        "nodeCacheCapable: true}}\n",
        extender->url());
  }
  // The init pods' watch ends with their phase, so that it is not served during the measurement.
  std::optional<BindWatcher> init_binds(std::in_place, **http, kInitNamespace);
  BindWatcher measure_binds(**http, kMeasureNamespace);
  Process p(RunnerArgv(runner, **cluster, config, w),
            fmt::format("{}/{}.log", (*cluster)->dir(), runner));
  if (p.pid() <= 0) return fail("starting", absl::InternalError(p.Log()));
  // A runner that exits (a configuration it refuses) ends the wait, with its last error line
  // (klog's "E..."), or else the end of its log.
  auto alive = [&p] { return p.Running(); };
  auto failed = [&](const std::string& what, const absl::Status& st) {
    if (!absl::IsAborted(st)) return fail(what, st);
    const std::string log = p.Log();
    std::string said = log.substr(log.size() - std::min<size_t>(log.size(), 300));
    for (size_t at = log.rfind("\nE"); at != std::string::npos && at > 0;
         at = log.rfind("\nE", at - 1)) {
      if (at + 2 < log.size() && std::isdigit(static_cast<unsigned char>(log[at + 2]))) {
        said = log.substr(at + 1, log.find('\n', at + 1) - at - 1);
        break;
      }
    }
    return fail(what, absl::AbortedError(fmt::format("{}; {}", std::string(st.message()), said)));
  };
  if (absl::Status st = init_binds->WaitFor(w.init_pods, PhaseTimeout(w.init_pods), alive);
      !st.ok()) {
    return failed("init pods", st);
  }
  init_binds.reset();

  std::optional<Process> perf;
  if (!profile.empty() && runner == "ksched") {
    perf.emplace(
        std::vector<std::string>{"perf", "record", "-e", "cpu-clock", "-F", "499", "--call-graph",
                                 "dwarf,16384", "-p", std::to_string(p.pid()), "-o", profile},
        profile + ".log");
  }
  const double cpu0 = metrics::ReadProcessStat(p.pid()).cpu_seconds;
  const int calls0 = extender ? extender->calls("filter") + extender->calls("prioritize") : 0;
  const double busy0 = extender ? extender->busy_seconds() : 0;
  const SteadyTime start = Clock::now();
  std::optional<Churn> churn;
  if (w.churn) churn.emplace(**http, objects);
  absl::Status created, bound;
  if (w.steady_seconds > 0) {
    created = RunSteadily(**http, w, objects, measure_binds);
  } else {
    std::thread creator([&] {
      created = CreateAll(**http, objects.measure_pods);
      r.creation_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    });
    bound = measure_binds.WaitFor(w.measure_pods, PhaseTimeout(w.measure_pods), alive);
    creator.join();
  }
  const double cpu1 = metrics::ReadProcessStat(p.pid()).cpu_seconds;
  if (extender) {
    r.extender_calls = extender->calls("filter") + extender->calls("prioritize") - calls0;
    r.extender_seconds = extender->busy_seconds() - busy0;
  }
  if (perf) perf->Stop(SIGINT);
  r.peak_rss_mib = PeakRssMib(p.pid());
  churn.reset();
  r.bound = static_cast<int>(measure_binds.Count());
  r.watches = measure_binds.watches();
  r.seconds = std::chrono::duration<double>(measure_binds.last() - start).count();
  r.cpu_seconds = cpu1 - cpu0;
  // The steady state's pods are gone by the end: the watch saw when they were bound.
  absl::StatusOr<std::vector<int64_t>> seconds =
      w.steady_seconds > 0 ? measure_binds.seen_seconds() : BindSeconds(**http, kMeasureNamespace);
  if (!seconds.ok()) return fail("reading the bind times", seconds.status());
  r.samples = ThroughputSamples(*std::move(seconds));
  r.throughput = Summarize(r.samples);
  r.throughput.average = ReportedAverage(r.throughput, r.samples.size(), r.bound, r.seconds);
  if (!created.ok()) return fail("measured pods", created);
  if (!bound.ok()) return failed("measured pods", bound);
  if (!p.Running()) return fail("exited", absl::InternalError(p.Log()));
  p.Stop(SIGTERM);
  return r;
}

// --workload NAME[:NODES:INIT:MEASURE]: a workload of PerfWorkloads(), at other sizes if given.
absl::StatusOr<Workload> ParseWorkload(const std::string& arg) {
  std::vector<std::string> parts = absl::StrSplit(arg, ':');
  absl::StatusOr<Workload> w = FindWorkload(parts[0]);
  if (!w.ok() || parts.size() == 1) return w;
  if (parts.size() != 4) {
    return absl::InvalidArgumentError(
        fmt::format("--workload {}: want NAME or NAME:NODES:INIT:MEASURE", arg));
  }
  try {
    w->nodes = std::stoi(parts[1]);
    w->init_pods = std::stoi(parts[2]);
    w->measure_pods = std::stoi(parts[3]);
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(fmt::format("--workload {}: sizes must be numbers", arg));
  }
  return w;
}

// The sets `make bench`, `make bench-quick`, `make bench-volumes` and `make bench-dra` run. The
// default set runs SchedulingBasic, PodAntiAffinity and PreemptionBasic at scheduler_perf's sizes,
// and the others with fewer pods, so that the whole set, three runners each, ends within 20 minutes
// on 2 cores. The volume set runs scheduler_perf's volume workloads at their 500Nodes sizes; the
// DRA set, SchedulingWithResourceClaimTemplate at its 5000pods_500nodes size,
// SteadyStateClusterResourceClaimTemplate, Partitionable and ConsumableCapacity at their 500-node
// ones and ExtendedResource at its 25classes_5000pods_500nodes ones. The gang set runs v1.37.2's
// GangScheduling (both shapes), BasicScheduling, GangPreemptionBasic and TopologyAwareScheduling
// (both shapes) at the sizes workloads.cc gives, and our LargeGangs.
std::vector<std::string> WorkloadSet(const std::string& set) {
  if (set == "quick") {
    return {"SchedulingBasic:500:500:2000", "SchedulingPodAntiAffinity:500:100:300"};
  }
  if (set == "dra") {
    return {"SchedulingWithResourceClaimTemplate",  // 500 nodes, 2500 + 2500
            "SteadyStateClusterResourceClaimTemplate-empty",
            "SteadyStateClusterResourceClaimTemplate-half",
            "SteadyStateClusterResourceClaimTemplate-full",
            "Partitionable-empty",
            "Partitionable-half",
            "Partitionable-full",
            "ConsumableCapacity-empty",
            "ConsumableCapacity-half",
            "ConsumableCapacity-full",
            "ExtendedResource-Explicit",
            "ExtendedResource-Implicit"};
  }
  if (set == "gangs") {
    return {"GangScheduling-1000Gangs_3000Pods",
            "GangScheduling-3Gangs_3000Pods_1000PerGroup",
            "BasicScheduling-1000Groups_3000Pods",
            "GangPreemptionBasic",
            "LargeGangs",
            "TopologyAwareScheduling-5000Nodes_750Gangs_3000Pods",
            "TopologyAwareScheduling-5000Nodes_3Gangs_3000Pods_1000PerGroup"};
  }
  if (set == "volumes") {
    return {"SchedulingInTreePVs:500:500:1000", "SchedulingMigratedInTreePVs:500:500:1000",
            "SchedulingCSIPVs:500:500:1000", "SchedulingWaitForFirstConsumerPVs"};  // 100 nodes
  }
  return {"SchedulingBasic",
          "SchedulingNodeAffinity:5000:1000:5000",
          "SchedulingPodAntiAffinity",
          "SchedulingPodAffinity:5000:1000:2000",
          "TopologySpreading:5000:1000:2000",
          "SchedulingPreferredPodAffinity:5000:1000:1000",
          "SchedulingPreferredPodAntiAffinity:5000:1000:1000",
          "PreemptionBasic",
          "SchedulingWithMixedChurn:5000:0:5000"};
}

int Main(int argc, char** argv) {
  CLI::App app("ksched and kube-scheduler side by side on scheduler_perf's workloads");
  std::string set = "default", out = "build/bench-results", in_process;
  bool profile = false;
  int steady_seconds = 0;
  std::vector<std::string> workload_args;
  std::string runners = "ceiling,kube-scheduler,ksched";
  app.add_option("--set", set, "default, quick, volumes, dra or gangs")
      ->check(CLI::IsMember({"default", "quick", "volumes", "dra", "gangs"}));
  app.add_option("--workload", workload_args,
                 "NAME or NAME:NODES:INIT:MEASURE, repeatable; replaces the set");
  app.add_option("--runners", runners, "comma-separated, in the order they run");
  app.add_option("--out", out, "the results folder");
  app.add_option("--in-process", in_process, "scheduling_bench's --benchmark_out JSON");
  app.add_flag("--profile", profile,
               "record ksched's measured phases with `perf record` into OUT/<workload>.perf.data");
  app.add_option("--steady-seconds", steady_seconds,
                 "how long the steady-state workloads' measured phase lasts (default: "
                 "scheduler_perf's 10 s); longer runs measure with less noise")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  const std::vector<std::string> runner_list = absl::StrSplit(runners, ',');
  const char* before = std::getenv("KSCHED_BEFORE");
  for (const std::string& runner : runner_list) {
    if (runner == "ksched-before" && (before == nullptr || !std::filesystem::exists(before))) {
      std::fprintf(stderr,
                   "side_by_side: runner ksched-before needs KSCHED_BEFORE, the path of "
                   "an earlier ksched binary\n");
      return 2;
    }
    if (runner != "ceiling" && runner != "kube-scheduler" && runner != "ksched" &&
        runner != "ksched-before" && runner != "scheduler-plugins") {
      std::fprintf(stderr, "side_by_side: unknown runner %s\n", runner.c_str());
      return 2;
    }
  }
  if (workload_args.empty()) workload_args = WorkloadSet(set);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);

  std::vector<WorkloadResult> results;
  for (const std::string& arg : workload_args) {
    absl::StatusOr<Workload> w = ParseWorkload(arg);
    if (!w.ok()) {
      std::fprintf(stderr, "side_by_side: %s\n", std::string(w.status().message()).c_str());
      return 2;
    }
    if (w->steady_seconds > 0 && steady_seconds > 0) w->steady_seconds = steady_seconds;
    absl::StatusOr<WorkloadObjects> objects = MakeObjects(*w);
    if (!objects.ok()) {
      std::fprintf(stderr, "side_by_side: %s\n", std::string(objects.status().message()).c_str());
      return 2;
    }
    WorkloadResult wr{.workload = *w};
    for (const std::string& runner : runner_list) {
      std::fprintf(stderr, "side_by_side: %s (%d nodes, %d + %d pods) on %s\n", w->name.c_str(),
                   w->nodes, w->init_pods, w->measure_pods, runner.c_str());
      wr.runs.push_back(
          RunOne(*w, *objects, runner,
                 profile ? fmt::format("{}/{}.perf.data", out, w->name) : std::string()));
    }
    results.push_back(std::move(wr));
  }
  std::printf("%s", SideBySideTable(results).c_str());
  if (absl::Status st = WriteReport(out, results, in_process); !st.ok()) {
    std::fprintf(stderr, "side_by_side: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "side_by_side: the report is %s/results.md\n", out.c_str());
  for (const WorkloadResult& w : results) {
    for (const RunResult& r : w.runs) {
      if (!r.error.empty()) return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace ksched::bench

int main(int argc, char** argv) { return ksched::bench::Main(argc, argv); }
