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
//   build/bench/side_by_side [--set default|quick|volumes|dra]
//                            [--workload NAME[:NODES:INIT:MEASURE]]...
//                            [--runners ceiling,kube-scheduler,ksched] [--out DIR]
//                            [--in-process scheduling_bench.json] [--profile]
//                            [--steady-seconds N]
//
// The report (bench/report.h) goes to --out; the table is also printed.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "bench/bind_watcher.h"
#include "bench/report.h"
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
#include "src/testing/storage_json.h"

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

// Priority admission computes spec.priority from the class and refuses one given by hand, so a
// template's spec.priority becomes PriorityClass bench-priority-<value>, added to `classes`.
void AdmitPriority(json& pod, std::set<int64_t>& classes) {
  json& spec = pod["spec"];
  if (!spec.contains("priority")) return;
  const int64_t value = spec["priority"].get<int64_t>();
  classes.insert(value);
  spec["priorityClassName"] = fmt::format("bench-priority-{}", value);
  spec.erase("priority");
}

json PriorityClass(int64_t value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", {{"name", fmt::format("bench-priority-{}", value)}}},
          {"value", value}};
}

json Named(json o, const std::string& name, const std::string& ns = "") {
  o["metadata"].erase("generateName");
  o["metadata"]["name"] = name;
  if (!ns.empty()) o["metadata"]["namespace"] = ns;
  return o;
}

// The objects of a workload, ready to create: first what the pods need (namespaces, priority
// classes, the StorageClass), then the nodes (and their CSINodes), the pods' claims and PVs, the
// init pods and the measured pods.
struct WorkloadObjects {
  std::vector<json> setup, nodes, storage, init_pods, measure_pods;
  json churn_node, churn_pod, churn_service;
};

constexpr char kEbsDriver[] = "ebs.csi.aws.com";

// Pod `i` of namespace `ns` mounts claim "pvc-<i>", added to `storage` with its PV
// (Workload::volumes).
void AddVolume(const Workload& w, const json& pv_template, const json& pvc_template,
               const std::string& ns, int i, json& pod, std::vector<json>* storage) {
  const std::string claim = fmt::format("pvc-{}", i);
  json pvc = Named(pvc_template, claim, ns);
  json pv;
  if (w.volumes == "local-wffc") {
    pvc["metadata"].erase("annotations");
    pvc["spec"]["storageClassName"] = "local";
    pvc["spec"]["accessModes"] = {"ReadWriteOnce"};
    pv = testing::LocalVolumeJson(fmt::format("{}-local-{}", ns, i), "local", NodeName(i % w.nodes),
                                  "1Gi");
  } else {  // As scheduler_perf's volume factory and CreatePodWithPersistentVolume.
    const std::string id = fmt::format("vol-{}", i);
    pv = Named(pv_template, ns + "-" + id);
    json& spec = pv["spec"];
    if (spec.contains("csi")) {
      spec["csi"]["volumeHandle"] = ns + "-" + id;
    } else {
      spec["awsElasticBlockStore"]["volumeID"] = id;
    }
    spec["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                        {"apiVersion", "v1"},
                        {"namespace", ns},
                        {"name", claim}};
    pv["status"] = {{"phase", "Bound"}};
    pvc["spec"]["volumeName"] = pv["metadata"]["name"];
    pvc["status"] = {{"phase", "Bound"}};
  }
  storage->push_back(std::move(pvc));
  storage->push_back(std::move(pv));
  pod["spec"]["volumes"] = {{{"name", "vol"}, {"persistentVolumeClaim", {{"claimName", claim}}}}};
}

// The ResourceSlice scheduler_perf's createResourceDriver publishes for a node: devices
// instance-<i> with its attributes and capacity.
json DriverSlice(const std::string& node, const Workload& w) {
  json devices = json::array();
  for (int i = 0; i < w.devices_per_node; ++i) {
    devices.push_back({{"name", fmt::format("instance-{}", i)},
                       {"attributes",
                        {{"model", {{"string", "A100"}}},
                         {"family", {{"string", "GPU"}}},
                         {"driverVersion", {{"version", "1.2.3"}}},
                         {"dra.example.com/numa", {{"int", i}}}}},
                       {"capacity", {{"memory", {{"value", "1Gi"}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", node}}},
          {"spec",
           {{"driver", "test-driver.cdi.k8s.io"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"resourceSliceCount", 1}}},
            {"devices", std::move(devices)}}}};
}

// Workload::init_claims claims, each allocated a device of a node picked at random (seeded, so
// that every runner gets the same), as scheduler_perf's allocResourceClaims picks them.
absl::StatusOr<std::vector<json>> AllocatedClaims(const Workload& w) {
  std::vector<json> out;
  if (w.init_claims == 0) return out;
  if (w.init_claims > w.nodes * w.devices_per_node) {
    return absl::InvalidArgumentError(fmt::format("{}: {} claims for {} devices", w.name,
                                                  w.init_claims, w.nodes * w.devices_per_node));
  }
  absl::StatusOr<json> claim_template = TemplateJson("resourceclaim");
  if (!claim_template.ok()) return claim_template.status();
  std::mt19937 random(1);
  std::vector<int> used(w.nodes, 0);  // Devices instance-0 .. instance-<used - 1> are taken.
  for (int i = 0; i < w.init_claims; ++i) {
    int node = std::uniform_int_distribution<int>(0, w.nodes - 1)(random);
    while (used[node] == w.devices_per_node) node = (node + 1) % w.nodes;
    const std::string name = NodeName(node);
    json claim = Named(*claim_template, fmt::format("test-claim-{}", i), kInitNamespace);
    json match = {{"key", "metadata.name"}, {"operator", "In"}, {"values", {name}}};
    claim["status"]["allocation"] = {
        {"devices",
         {{"results",
           {{{"request", "req-0"},
             {"driver", "test-driver.cdi.k8s.io"},
             {"pool", name},
             {"device", fmt::format("instance-{}", used[node]++)}}}}}},
        {"nodeSelector", {{"nodeSelectorTerms", {{{"matchFields", {match}}}}}}}};
    out.push_back(std::move(claim));
  }
  return out;
}

absl::StatusOr<WorkloadObjects> MakeObjects(const Workload& w) {
  WorkloadObjects out;
  absl::StatusOr<json> node = TemplateJson("node");
  absl::StatusOr<json> init = TemplateJson(w.init_template);
  absl::StatusOr<json> measure = TemplateJson(w.measure_template);
  for (const absl::Status& st : {node.status(), init.status(), measure.status()}) {
    if (!st.ok()) return st;
  }
  std::set<int64_t> classes;
  AdmitPriority(*init, classes);
  AdmitPriority(*measure, classes);
  if (w.churn) {
    absl::StatusOr<json> n = TemplateJson("churn-node");
    absl::StatusOr<json> p = TemplateJson("pod-high-priority-large-cpu");
    absl::StatusOr<json> s = TemplateJson("churn-service");
    for (const absl::Status& st : {n.status(), p.status(), s.status()}) {
      if (!st.ok()) return st;
    }
    AdmitPriority(*p, classes);
    out.churn_node = *n;
    out.churn_pod = *p;
    out.churn_service = *s;
  }
  for (const char* ns : {kInitNamespace, kMeasureNamespace, "churn"}) {
    out.setup.push_back(
        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
  for (int64_t value : classes) out.setup.push_back(PriorityClass(value));
  if (w.volumes == "local-wffc") {
    out.setup.push_back({{"apiVersion", "storage.k8s.io/v1"},
                         {"kind", "StorageClass"},
                         {"metadata", {{"name", "local"}}},
                         {"provisioner", "kubernetes.io/no-provisioner"},
                         {"volumeBindingMode", "WaitForFirstConsumer"}});
  }
  for (int i = 0; i < w.nodes; ++i) {
    json n = Named(*node, NodeName(i));
    for (const auto& [key, value] : NodeLabels(w, i)) n["metadata"]["labels"][key] = value;
    if (w.csi_attach_limit > 0) {
      const std::string count = std::to_string(w.csi_attach_limit);
      // Allocatable, once given, is not defaulted to the capacity any more.
      if (!n["status"].contains("allocatable"))
        n["status"]["allocatable"] = n["status"]["capacity"];
      for (const char* list : {"capacity", "allocatable"}) {
        n["status"][list][fmt::format("attachable-volumes-csi-{}", kEbsDriver)] = count;
      }
      json driver = {{"name", kEbsDriver},
                     {"nodeID", NodeName(i)},
                     {"allocatable", {{"count", w.csi_attach_limit}}}};
      json csi_node = {{"apiVersion", "storage.k8s.io/v1"},
                       {"kind", "CSINode"},
                       {"metadata", {{"name", NodeName(i)}}},
                       {"spec", {{"drivers", {driver}}}}};
      csi_node["metadata"]["annotations"]["storage.alpha.kubernetes.io/migrated-plugins"] =
          w.migrated ? "kubernetes.io/aws-ebs" : "";
      out.nodes.push_back(std::move(n));
      out.nodes.push_back(std::move(csi_node));
    } else {
      out.nodes.push_back(std::move(n));
    }
  }
  if (w.devices_per_node > 0) {
    absl::StatusOr<json> device_class = TemplateJson("deviceclass");
    absl::StatusOr<json> claim_template = TemplateJson("resourceclaimtemplate");
    for (const absl::Status& st : {device_class.status(), claim_template.status()}) {
      if (!st.ok()) return st;
    }
    out.setup.push_back(*device_class);
    for (const char* ns : {kInitNamespace, kMeasureNamespace}) {
      out.setup.push_back(Named(*claim_template, "test-claim-template", ns));
    }
    for (int i = 0; i < w.nodes; ++i) out.storage.push_back(DriverSlice(NodeName(i), w));
    absl::StatusOr<std::vector<json>> claims = AllocatedClaims(w);
    if (!claims.ok()) return claims.status();
    out.storage.insert(out.storage.end(), claims->begin(), claims->end());
  }
  json pv_template, pvc_template;
  if (!w.volumes.empty()) {
    absl::StatusOr<json> pv = TemplateJson(w.volumes == "local-wffc" ? "pv-csi" : w.volumes);
    absl::StatusOr<json> pvc = TemplateJson("pvc");
    for (const absl::Status& st : {pv.status(), pvc.status()}) {
      if (!st.ok()) return st;
    }
    pv_template = *pv;
    pvc_template = *pvc;
  }
  for (int i = 0; i < w.init_pods; ++i) {
    json pod = Named(*init, fmt::format("init-{}", i), kInitNamespace);
    if (!w.volumes.empty()) {
      AddVolume(w, pv_template, pvc_template, kInitNamespace, i, pod, &out.storage);
    }
    out.init_pods.push_back(std::move(pod));
  }
  for (int i = 0; i < w.measure_pods; ++i) {
    json pod = Named(*measure, fmt::format("measure-{}", i), kMeasureNamespace);
    if (!w.volumes.empty()) {
      AddVolume(w, pv_template, pvc_template, kMeasureNamespace, i, pod, &out.storage);
    }
    out.measure_pods.push_back(std::move(pod));
  }
  return out;
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

// The command line of a runner against `cluster`, whose schedulers read `config`.
std::vector<std::string> RunnerArgv(const std::string& runner, const ControlPlane& cluster,
                                    const std::string& config) {
  if (runner == "ceiling") {
    return {TRIVIAL_BINDER, "--kubeconfig", cluster.kubeconfig(), "--qps", "5000",
            "--burst",      "5000"};
  }
  const char* before = std::getenv("KSCHED_BEFORE");
  const std::string bin = runner == "ksched"          ? std::string(KSCHED_BINARY)
                          : runner == "ksched-before" ? std::string(before ? before : "")
                                                      : testing::K8sBinDir() + "/kube-scheduler";
  return {bin, "--config=" + config, "--secure-port=0", "--v=1"};
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
  const bool dra = w.devices_per_node > 0;
  absl::StatusOr<std::unique_ptr<ControlPlane>> cluster = ControlPlane::Start(
      {.controller_manager = w.volumes == "local-wffc" || dra,
       .controller_manager_flags = std::string("--kube-api-qps=5000 --kube-api-burst=5000") +
                                   (dra ? " --controllers=resourceclaim-controller" : "")});
  if (!cluster.ok()) return fail("starting the control plane", cluster.status());
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = (*cluster)->kubeconfig()});
  if (!rest.ok()) return fail("kubeconfig", rest.status());
  rest->qps = 5000;
  rest->burst = 5000;
  rest->user_agent = "side-by-side";
  auto http = client::HttpClient::Create(*rest);
  if (!http.ok()) return fail("client", http.status());
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
  // The init pods' watch ends with their phase, so that it is not served during the measurement.
  std::optional<BindWatcher> init_binds(std::in_place, **http, kInitNamespace);
  BindWatcher measure_binds(**http, kMeasureNamespace);
  Process p(RunnerArgv(runner, **cluster, config),
            fmt::format("{}/{}.log", (*cluster)->dir(), runner));
  if (p.pid() <= 0) return fail("starting", absl::InternalError(p.Log()));
  if (absl::Status st = init_binds->WaitFor(w.init_pods, PhaseTimeout(w.init_pods)); !st.ok()) {
    return fail("init pods", st);
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
    bound = measure_binds.WaitFor(w.measure_pods, PhaseTimeout(w.measure_pods));
    creator.join();
  }
  const double cpu1 = metrics::ReadProcessStat(p.pid()).cpu_seconds;
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
  // Too short a run for a sample (under three seconds): its mean rate, from the watch.
  if (r.samples.empty() && r.seconds > 0) r.throughput.average = r.bound / r.seconds;
  if (!created.ok()) return fail("measured pods", created);
  if (!bound.ok()) return fail("measured pods", bound);
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
// DRA set, SchedulingWithResourceClaimTemplate at its 5000pods_500nodes size and
// SteadyStateClusterResourceClaimTemplate at its 500-node ones.
std::vector<std::string> WorkloadSet(const std::string& set) {
  if (set == "quick") {
    return {"SchedulingBasic:500:500:2000", "SchedulingPodAntiAffinity:500:100:300"};
  }
  if (set == "dra") {
    return {"SchedulingWithResourceClaimTemplate",  // 500 nodes, 2500 + 2500
            "SteadyStateClusterResourceClaimTemplate-empty",
            "SteadyStateClusterResourceClaimTemplate-half",
            "SteadyStateClusterResourceClaimTemplate-full"};
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
  app.add_option("--set", set, "default, quick, volumes or dra")
      ->check(CLI::IsMember({"default", "quick", "volumes", "dra"}));
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
        runner != "ksched-before") {
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
