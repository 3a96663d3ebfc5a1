// make difftest: the same cases given to the real kube-scheduler and to ksched, and everything
// observable compared (docs/fidelity.md). One control plane serves the whole run; both
// schedulers run side by side on it, each with its own profile names (prefix "up-" or "ks-"), and
// take turns: for each case the nodes and running pods are created once, then each scheduler gets
// the pending pods one at a time, in queue order, each once the cluster has settled after the
// previous one (with the scenario's `burst: true`, identical pods in a row at once; a pod group's
// pods in a row at once, then their PodGroup, whose condition is compared too). The harness
// reads the cluster before each pod on kube-scheduler's turn (which includes the pods it bound
// later, having left them pending at first), brings ksched's cluster to that state before ksched
// gets the same pod, and gives `ksched simulate` that very state, so that every pod is compared on
// the same cluster. A harness step that fails fails the case. A random case that differs is shrunk
// and written out as a scenario file.
//
//   difftest [--scenario-dir DIR] [--seeds N] [--first-seed S] [--out DIR] [--shrink-tries N]
//            [--expect-out DIR] [--feature-gates G] [--emulated-version V]
//            [--min-compatibility-version V]
//
// Exit code 0 when every compared pod matches or differs only by a known gap (a field ksched says
// it does not support yet, or what only a plugin ksched lacks writes), 1 otherwise, 2 for bad
// flags or input.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "nlohmann/json.hpp"
#include "src/api/yaml.h"
#include "src/base/file.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/features/feature_gates.h"
#include "src/plugins/names.h"
#include "src/plugins/registry.h"
#include "src/testing/api_paths.h"
#include "src/testing/command.h"
#include "src/testing/control_plane.h"
#include "test/difftest/case.h"
#include "test/difftest/compare.h"
#include "test/difftest/generate.h"
#include "test/difftest/state.h"
#include "test/extender/test_extender.h"

namespace ksched::difftest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CollectionOf;
using testing::CommandResult;
using testing::ControlPlane;
using testing::PathOf;
using testing::Process;

constexpr char kKwokAnnotation[] = "kwok.x-k8s.io/node";
constexpr char kSelectedNode[] = "volume.kubernetes.io/selected-node";

void Sleep(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// kube-scheduler's plugins: ksched's in-tree ones, which are all upstream's.
std::vector<std::string> UpstreamPlugins() { return plugins::NewInTreeRegistry().Names(); }

// The REST calls of the harness, straight to the API server.
class Api {
 public:
  explicit Api(client::HttpClient& http) : http_(http) {}

  absl::Status Create(const json& o) {
    if (o["metadata"].contains("deletionTimestamp")) return CreateDeleted(o);
    client::HttpResponse r =
        http_.Call({.method = "POST", .path = CollectionOf(o), .body = o.dump()});
    const std::string kind = o.value("kind", "");
    if (r.status == 409 && kind == "Namespace") return absl::OkStatus();
    if (!r.ok() || !o.contains("status") || (kind != "PodDisruptionBudget" && kind != "Pod")) {
      return r.ToStatus();
    }
    // The status the API server ignores on create: a budget's, as the disruption controller would
    // write it, and a pod's start time, which preemption compares. kwok, the fake kubelet, stamps
    // its own start time when it marks a bound pod Running: wait for that, or it may land last.
    auto running = [&] {
      const json now = Get(PathOf(o));
      return now.is_object() && now.value("status", json::object()).value("phase", "") == "Running";
    };
    if (kind == "Pod" && !o["spec"].value("nodeName", "").empty()) {
      for (int i = 0; i < 200 && !running(); ++i) Sleep(25);
    }
    return http_
        .Call({.method = "PATCH",
               .path = PathOf(o) + "/status",
               .body = json{{"status", o["status"]}}.dump(),
               .content_type = "application/merge-patch+json"})
        .ToStatus();
  }
  // The object at `path`, or null when it cannot be read.
  json Get(const std::string& path) { return Read(path).value_or(json()); }
  // The object at `path`, null once it is gone (404), or why it could not be read.
  absl::StatusOr<json> Read(const std::string& path) {
    client::HttpResponse r = http_.Call({.path = path});
    if (r.status == 404) return json();
    if (!r.ok()) return r.ToStatus();
    json out = json::parse(r.body, nullptr, false);
    if (out.is_discarded()) return absl::DataLossError(fmt::format("GET {}: not JSON", path));
    return out;
  }
  // Deletes at once (grace period 0: no kubelet runs) and waits until the object is gone (5 s).
  // Finalizers go too: no controller here removes those of claims and PVs that pods used.
  absl::Status Delete(const json& o) {
    const std::string path = PathOf(o);
    client::HttpResponse r =
        http_.Call({.method = "DELETE", .path = path, .body = R"({"gracePeriodSeconds":0})"});
    if (!r.ok() && r.status != 404) return r.ToStatus();
    for (int i = 0; i < 200; ++i) {
      absl::StatusOr<json> now = Read(path);
      if (!now.ok()) return now.status();
      if (now->is_null()) return absl::OkStatus();
      if (!(*now)["metadata"].value("finalizers", json::array()).empty()) {
        http_.Call({.method = "PATCH",
                    .path = path,
                    .body = R"({"metadata":{"finalizers":null}})",
                    .content_type = "application/merge-patch+json"});
      }
      Sleep(25);
    }
    return absl::DeadlineExceededError(fmt::format("DELETE {}: still there after 5 s", path));
  }

  // Binds the pod, as an extender's bind verb does.
  absl::Status Bind(const std::string& ns, const std::string& name, const std::string& uid,
                    const std::string& node) {
    const json binding = {{"apiVersion", "v1"},
                          {"kind", "Binding"},
                          {"metadata", {{"name", name}, {"namespace", ns}, {"uid", uid}}},
                          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    return http_
        .Call({.method = "POST",
               .path = fmt::format("/api/v1/namespaces/{}/pods/{}/binding", ns, name),
               .body = binding.dump()})
        .ToStatus();
  }

  // A JSON merge patch of `path`.
  absl::Status Patch(const std::string& path, const json& patch) {
    return http_
        .Call({.method = "PATCH",
               .path = path,
               .body = patch.dump(),
               .content_type = "application/merge-patch+json"})
        .ToStatus();
  }

 private:
  // An object the scenario shows being deleted (a claim a finalizer holds): created with a
  // finalizer of the harness's, then deleted.
  absl::Status CreateDeleted(json o) {
    o["metadata"].erase("deletionTimestamp");
    o["metadata"]["finalizers"].push_back("difftest.ksched.io/keep");
    if (absl::Status st = Create(o); !st.ok()) return st;
    return http_.Call({.method = "DELETE", .path = PathOf(o)}).ToStatus();
  }

  client::HttpClient& http_;
};

// One scheduler of the two, running for as long as the cases keep its configuration.
struct Scheduler {
  std::string name;    // kube-scheduler or ksched
  std::string prefix;  // of its profiles' schedulerNames
  std::vector<std::string> argv;
  std::string log_path;
  std::string config_text;  // The case configuration it runs with.
  std::unique_ptr<Process> process;

  size_t LogSize() const {
    std::error_code ec;
    const auto size = fs::file_size(log_path, ec);
    return ec ? 0 : size;
  }
  std::string LogFrom(size_t offset) const {
    std::ifstream in(log_path);
    in.seekg(static_cast<std::streamoff>(offset));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

struct PodResult {
  std::string key;
  Outcome upstream, run, simulate;
  std::vector<Mismatch> run_mismatches, simulate_mismatches;
};

// A PodGroup's PodGroupInitiallyScheduled condition at the end of each scheduler's turn.
struct GroupResult {
  std::string key;
  std::string upstream, run;

  // Whether the conditions differ other than where ksched says it does not support something yet
  // (a group that needs preemption), a known gap.
  bool Differs() const { return upstream != run && run.find(kUnsupported) == std::string::npos; }
};

struct CaseResult {
  std::string name;
  std::string incomparable, error;
  std::vector<std::string> adaptations;
  std::vector<PodResult> pods;
  std::vector<GroupResult> groups;
  bool second_run = false;  // It differed once, and matched when run again.
  // The case's pods once kube-scheduler had been given them all and the cluster had settled.
  PodStates upstream_end;
  // The pods the harness deleted or created on ksched's turn to match kube-scheduler's cluster.
  int moved = 0;
  // The preemptors kube-scheduler left pending after their preemption, which the harness gave it
  // again (GiveStuckPreemptorsAgain).
  std::vector<std::string> given_again;

  // Mismatches other than the known gaps.
  bool Differs() const {
    for (const PodResult& p : pods) {
      for (const auto* list : {&p.run_mismatches, &p.simulate_mismatches}) {
        for (const Mismatch& m : *list) {
          if (m.kind != "unsupported") return true;
        }
      }
    }
    for (const GroupResult& g : groups) {
      if (g.Differs()) return true;
    }
    return !error.empty();
  }
};

class Harness {
 public:
  // `work` holds the schedulers' logs and configs; `states`, the input simulate gets for each pod.
  Harness(const ControlPlane& cluster, client::HttpClient& http, std::string work,
          std::string states)
      : cluster_(cluster), api_(http), work_(std::move(work)), states_(std::move(states)) {
    upstream_ = {.name = "kube-scheduler",
                 .prefix = "up-",
                 .argv = {testing::K8sBinDir() + "/kube-scheduler", "--secure-port=0", "-v=2",
                          "--vmodule=schedule_one=10,schedule_one_podgroup=10,batch=3"},
                 .log_path = work_ + "/kube-scheduler.log"};
    ksched_ = {.name = "ksched",
               .prefix = "ks-",
               .argv = {KSCHED_BINARY, "run", "--secure-port=0", "-v", "10"},
               .log_path = work_ + "/ksched.log"};
  }

  CaseResult Run(const Case& c) {
    CaseResult result{.name = c.name, .incomparable = c.incomparable, .adaptations = c.adaptations};
    if (!c.incomparable.empty()) return result;
    if (absl::Status st = EnsureSchedulers(c); !st.ok()) {
      result.error = std::string(st.message());
      return result;
    }
    std::vector<json> created;
    for (json o : c.setup) {
      // kwok, the fake kubelet, finishes the deletions of preemption's victims on these nodes.
      if (o.value("kind", "") == "Node") o["metadata"]["annotations"][kKwokAnnotation] = "fake";
      // Both schedulers' watches deliver the PodGroups before their running pods: kube-scheduler
      // counts a pod among its group's scheduled pods (which a preemption evicts together) only
      // if it saw the group first.
      if (o.value("kind", "") == "Pod" && !created.empty() &&
          created.back().value("kind", "") == "PodGroup") {
        Sleep(300);
      }
      if (absl::Status st = api_.Create(o); !st.ok()) {
        result.error = fmt::format("creating {} {}: {}", o.value("kind", ""), KeyOf(o),
                                   std::string(st.message()));
        break;
      }
      created.push_back(o);
    }
    try {
      if (result.error.empty()) RunAndCompare(c, &result);
    } catch (const json::exception& e) {  // An answer of an unexpected shape: this case's error.
      result.error = fmt::format("harness: {}", e.what());
    }
    // What is left of the case goes, or the next case would start on a different cluster.
    std::vector<json> gone = c.pending;  // Left over if the case failed midway.
    gone.insert(gone.end(), c.pod_groups.begin(), c.pod_groups.end());
    gone.insert(gone.end(), created.rbegin(), created.rend());
    for (const json& o : gone) {
      if (o.value("kind", "") == "Namespace") continue;
      if (absl::Status st = api_.Delete(o); !st.ok() && result.error.empty()) {
        result.error = fmt::format("deleting {} {} after the case: {}", o.value("kind", "Pod"),
                                   KeyOf(o), std::string(st.message()));
      }
    }
    // And the PVs provisioned on the way.
    if (absl::Status st = ResetStorage({}); !st.ok() && result.error.empty()) {
      result.error = "deleting the PVs and claims after the case: " + std::string(st.message());
    }
    return result;
  }

  void Stop() {
    for (Scheduler* s : {&upstream_, &ksched_}) {
      if (s->process) s->process->Stop(SIGTERM);
      s->process.reset();
    }
  }

 private:
  // What one scheduler decided for each pending pod, and the case's pods as they were just
  // before each was given to it.
  struct Phase {
    std::vector<Outcome> outcomes;
    std::vector<ClusterState> before;
    PodStates end;                         // Once the last pod was decided and the cluster settled.
    int moved = 0;                         // Steps taken to bring the cluster to the targets.
    std::vector<std::string> given_again;  // GiveStuckPreemptorsAgain's pods.
    // Each PodGroup's PodGroupInitiallyScheduled condition at the end (InitiallyScheduled).
    std::map<std::string, std::string> groups;
  };

  // The PodGroup that `pod` names, if the case has it and it was not made on this turn yet
  // (recorded in `made`); else null.
  static const json* PodGroupToCreate(const Case& c, const json& pod, std::set<std::string>* made) {
    const std::string key = PodGroupOf(pod);
    for (const json& group : c.pod_groups) {
      if (!key.empty() && KeyOf(group) == key && made->insert(key).second) return &group;
    }
    return nullptr;
  }

  // Whether `pod`'s PodGroup has a topology constraint (TopologyAwareWorkloadScheduling).
  static bool InTopologyDomains(const Case& c, const json& pod) {
    const json* group = PodGroupNamedBy(c, pod);
    if (group == nullptr) return false;
    const json spec = group->value("spec", json::object());
    return !spec.value("schedulingConstraints", json::object())
                .value("topology", json::array())
                .empty();
  }

  // The PodGroup that `pod` names, among the case's (those made with their pods, or before);
  // null if none.
  static const json* PodGroupNamedBy(const Case& c, const json& pod) {
    const std::string key = PodGroupOf(pod);
    if (key.empty()) return nullptr;
    for (const auto* list : {&c.pod_groups, &c.setup}) {
      for (const json& group : *list) {
        if (group.value("kind", "") == "PodGroup" && KeyOf(group) == key) return &group;
      }
    }
    return nullptr;
  }

  // Whether `pod` waits at PreEnqueue for good, with no condition: it names a PodGroup the case
  // does not have, or a gang whose minCount is more than the case's pods of the group.
  static bool NeverDecided(const Case& c, const json& pod) {
    const std::string key = PodGroupOf(pod);
    if (key.empty()) return false;
    int pods = 0;
    for (const auto* list : {&c.setup, &c.pending}) {
      for (const json& o : *list) pods += o.value("kind", "") == "Pod" && PodGroupOf(o) == key;
    }
    const json* group = PodGroupNamedBy(c, pod);
    if (group == nullptr) return true;
    const json policy = (*group)["spec"].value("schedulingPolicy", json::object());
    return policy.contains("gang") && policy["gang"].value("minCount", 0) > pods;
  }

  // A PodGroup's PodGroupInitiallyScheduled condition as "status reason: message", "" without.
  static std::string InitiallyScheduled(const json& group) {
    for (const json& cond : group.value("status", json::object()).value("conditions", json())) {
      if (cond.value("type", "") != "PodGroupInitiallyScheduled") continue;
      return fmt::format("{} {}: {}", cond.value("status", ""), cond.value("reason", ""),
                         cond.value("message", ""));
    }
    return "";
  }

  // Runs the case's pending pods through both schedulers and simulate, and compares.
  void RunAndCompare(const Case& c, CaseResult* out) {
    CaseResult& result = *out;
    Sleep(300);  // Both schedulers' watches deliver the nodes before the first pod.
    absl::StatusOr<Phase> up = RunPhase(upstream_, c, nullptr);
    if (!up.ok()) {
      result.error = std::string(up.status().message());
      return;
    }
    result.upstream_end = up->end;
    result.given_again = up->given_again;
    // The PVs, claims and resource claims as the case made them, for ksched's turn.
    std::vector<json> storage;
    for (const json& o : c.setup) {
      const std::string kind = o.value("kind", "");
      if (kind == "PersistentVolume" || kind == "PersistentVolumeClaim" ||
          kind == "ResourceClaim") {
        storage.push_back(o);
      }
    }
    if (absl::Status st = HasStorage(c) ? ResetStorage(storage) : absl::OkStatus(); !st.ok()) {
      result.error =
          "making the case's PVs and claims again for ksched: " + std::string(st.message());
      return;
    }
    absl::StatusOr<Phase> run = RunPhase(ksched_, c, &up->before);
    if (!run.ok()) {
      result.error = std::string(run.status().message());
      return;
    }
    result.moved = run->moved;
    for (size_t i = 0; i < c.pending.size(); ++i) {
      PodResult p{.key = KeyOf(c.pending[i]), .upstream = up->outcomes[i], .run = run->outcomes[i]};
      absl::StatusOr<Outcome> simulated = Simulate(c, i, up->before[i]);
      if (!simulated.ok()) {
        result.error = std::string(simulated.status().message());
        return;
      }
      p.simulate = *std::move(simulated);
      p.run_mismatches = Compare(p.upstream, p.run);
      p.simulate_mismatches = Compare(p.upstream, p.simulate);
      // A pod of a group confined to a topology domain is scored once per domain tried; each
      // scheduler's last scoring is of the domain it tried last, and kube-scheduler tries them
      // in Go's map order. Where it goes is compared, not those scores.
      if (InTopologyDomains(c, c.pending[i])) {
        for (auto* list : {&p.run_mismatches, &p.simulate_mismatches}) {
          std::erase_if(*list, [](const Mismatch& m) { return m.kind == "score"; });
        }
      }
      // A group's pod left unschedulable is tried again as later pods come (one may be of its
      // group: GangScheduling's hint), so kube-scheduler's last scoring of it may count pods
      // given after it, which simulate, given the cluster as it was before it, never sees (seed
      // 20263479: a pod of the next gang on node-0). Where it ends and why are compared.
      if (!PodGroupOf(c.pending[i]).empty() && p.upstream.node.empty() &&
          GivenEnd(c, i) < c.pending.size()) {
        std::erase_if(p.simulate_mismatches, [](const Mismatch& m) { return m.kind == "score"; });
      }
      result.pods.push_back(std::move(p));
    }
    // A group's pods alike but for their names, placed on the same nodes but for a tie that sent
    // the first of them elsewhere: which took which node, and the scores after, do not count.
    for (size_t i = 0; i < c.pending.size(); i = GivenEnd(c, i)) {
      const size_t end = GivenEnd(c, i);
      if (PodGroupOf(c.pending[i]).empty() || end - i < 2) continue;
      bool alike = true;
      for (size_t k = i + 1; k < end; ++k) alike &= AlikeButForName(c.pending[k], c.pending[i]);
      if (!alike) continue;
      for (auto [side, list] : {std::pair{&PodResult::run, &PodResult::run_mismatches},
                                std::pair{&PodResult::simulate, &PodResult::simulate_mismatches}}) {
        std::vector<const Outcome*> up, ks;
        for (size_t k = i; k < end; ++k) {
          up.push_back(&result.pods[k].upstream);
          ks.push_back(&(result.pods[k].*side));
        }
        if (!IsGroupTie(up, ks)) continue;
        for (size_t k = i; k < end; ++k) {
          std::erase_if(result.pods[k].*list, [](const Mismatch& m) {
            return m.kind == "placement" || m.kind == "score";
          });
        }
      }
    }
    // A PodGroup whose pods preempted is not compared: its condition is that of whichever cycle
    // wrote last while its victims went (upstream's may even keep "found a placement for
    // podgroup" once the pods are bound), which depends on when each scheduler saw them go.
    // Nor one placed in part: kube-scheduler tries the pods it left again at once, and may write
    // False over its own True before its watch shows the True (seen with gangs.yaml's web).
    std::set<std::string> preempted, placed, left;
    for (size_t i = 0; i < result.pods.size(); ++i) {
      const PodResult& p = result.pods[i];
      const std::string group = PodGroupOf(c.pending[i]);
      if (!p.upstream.evicted.empty() || !p.run.evicted.empty()) preempted.insert(group);
      (p.upstream.node.empty() ? left : placed).insert(group);
    }
    for (const std::string& group : placed) {
      if (left.contains(group)) preempted.insert(group);
    }
    for (const auto& [key, condition] : up->groups) {
      if (preempted.contains(key)) continue;
      result.groups.push_back({.key = key, .upstream = condition, .run = run->groups[key]});
    }
  }

  // Starts both schedulers with the case's configuration, unless they run with it already, and
  // waits until each has bound a probe pod.
  absl::Status EnsureSchedulers(const Case& c) {
    const std::string text = c.config.dump() + json(c.flags).dump();
    if (upstream_.process && upstream_.config_text == text) return absl::OkStatus();
    Stop();
    json probe_node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", {{"name", "difftest-probe"}}},
        {"status", {{"allocatable", {{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}}}}}};
    if (absl::Status st = api_.Create(probe_node); !st.ok()) return st;
    absl::Status result = absl::OkStatus();
    for (Scheduler* s : {&upstream_, &ksched_}) {
      const std::string config_path = fmt::format("{}/{}-config.json", work_, s->name);
      std::ofstream(config_path)
          << WithExtender(ConfigFor(c, s->prefix, cluster_.kubeconfig())).dump(2);
      std::vector<std::string> argv = s->argv;
      argv.insert(argv.end(), c.flags.begin(), c.flags.end());
      argv.push_back("--config=" + config_path);
      s->process = std::make_unique<Process>(argv, s->log_path);
      s->config_text = text;
      const json profile0 = ConfigFor(c, s->prefix, "")["profiles"][0];
      json probe = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "difftest-probe-" + s->name}, {"namespace", "default"}}},
                    {"spec",
                     {{"schedulerName", profile0["schedulerName"]},
                      {"containers", {{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}};
      if (absl::Status st = api_.Create(probe); !st.ok()) {
        result.Update(st);
        break;
      }
      bool bound = false;
      for (int i = 0; i < 600 && !bound && s->process->Running(); ++i) {
        const json now = api_.Get(PathOf(probe));
        bound = now.is_object() && !now["spec"].value("nodeName", "").empty();
        if (!bound) Sleep(100);
      }
      result.Update(api_.Delete(probe));
      if (!bound && result.ok()) {
        result = absl::UnavailableError(
            fmt::format("{} did not bind its probe pod; its log ({}):\n{}", s->name, s->log_path,
                        s->process->Log().substr(0, 4000)));
      }
    }
    result.Update(api_.Delete(probe_node));
    if (!result.ok()) Stop();  // The next case starts them again.
    return result;
  }

  // Gives `s` the case's pending pods one at a time and returns what it decided for each. With
  // `targets` (the cluster before each pod on kube-scheduler's turn), the cluster is first
  // brought to kube-scheduler's before each pod: its decisions, and those it made later for pods
  // it had left pending, so that both decide every pod on the same cluster.
  absl::StatusOr<Phase> RunPhase(Scheduler& s, const Case& c,
                                 const std::vector<ClusterState>* targets) {
    Phase phase{.outcomes = std::vector<Outcome>(c.pending.size(), Outcome{.status = "Pending"})};
    const size_t log_start = s.LogSize();
    absl::Status status = absl::OkStatus();
    size_t given = 0;
    std::set<std::string> made_groups;                    // PodGroups created on this turn.
    std::chrono::steady_clock::time_point last_decision;  // Of the pods given before.
    for (size_t i = 0, end = 0; i < c.pending.size() && status.ok(); i = end) {
      const std::string key = KeyOf(c.pending[i]);
      const std::string moment = "before pod " + key;
      if (targets != nullptr) status = Converge(c, s, (*targets)[i], moment, &phase.moved);
      absl::StatusOr<ClusterState> before = status.ok() ? Settled(c, moment) : status;
      if (before.ok() && &s == &upstream_)
        before = GiveStuckPreemptorsAgain(c, s, *before, moment, log_start, &phase);
      if (!before.ok()) {
        status = before.status();
        break;
      }
      // A pod given apart from the one before never joins that one's batch (OpportunisticBatching
      // keeps a cycle's nodes for 500 ms), on either scheduler's turn, however long the harness
      // took: only a profile of the case's own may batch.
      if (c.config.is_object()) {
        std::this_thread::sleep_until(last_decision + std::chrono::milliseconds(600));
      }
      // Pod i and the pods of its burst, created one right after the other.
      std::vector<json> pods;
      for (end = i; end < c.pending.size() && c.first[end] == i; ++end) {
        pods.push_back(ForScheduler(c.pending[end], s.prefix));
        if (status = api_.Create(pods.back()); !status.ok()) {
          status = Failed(s, "creating pod " + KeyOf(c.pending[end]), status);
          break;
        }
      }
      if (!status.ok()) break;
      // Then the PodGroup of a group's pods, once the scheduler's watch has delivered the pods:
      // it takes them all in one pod group cycle, whatever the group's minCount.
      if (const json* group = PodGroupToCreate(c, c.pending[i], &made_groups)) {
        Sleep(300);
        if (status = api_.Create(*group); !status.ok()) {
          status = Failed(s, "creating PodGroup " + KeyOf(*group), status);
          break;
        }
      }
      given = end;
      for (size_t k = i; k < end && status.ok(); ++k) {
        Outcome& o = phase.outcomes[k];
        o = WaitForDecision(c, pods[k - i], NeverDecided(c, pods[k - i]) ? 1000 : 15000);
        last_decision = std::chrono::steady_clock::now();
        // A preemption deletes its victims right after nominating, asynchronously, one call each:
        // wait for the first, then until none has come for 300 ms (2 s at most).
        for (int wait = 0, quiet = 0; wait < 40; ++wait) {
          absl::StatusOr<ClusterState> now = ReadState(c);
          if (!now.ok()) {
            status = now.status();
            break;
          }
          std::vector<std::string> gone = Removed(before->pods, now->pods);
          quiet = gone.size() == o.evicted.size() ? quiet + 1 : 0;
          o.evicted = std::move(gone);
          if (o.nominated.empty() || (!o.evicted.empty() && quiet >= 6)) break;
          Sleep(50);
        }
        if (!o.evicted.empty()) ReadPreemption(pods[k - i], before->pods, &o);
        o.placed_after_preemption = !o.evicted.empty() && !o.node.empty();
        phase.before.push_back(*before);  // A burst's pods were all given on the same cluster.
      }
      // A PodGroup's preemption is its pods' together, whichever of them was waited on while
      // its victims went.
      if (!PodGroupOf(c.pending[i]).empty() && status.ok()) {
        std::set<std::string> all;
        for (size_t k = i; k < end; ++k) {
          all.insert(phase.outcomes[k].evicted.begin(), phase.outcomes[k].evicted.end());
        }
        for (size_t k = i; k < end; ++k) {
          Outcome& o = phase.outcomes[k];
          if (o.evicted.size() == all.size()) continue;
          o.evicted.assign(all.begin(), all.end());
          ReadPreemption(pods[k - i], before->pods, &o);
          o.placed_after_preemption = !o.evicted.empty() && !o.node.empty();
        }
      }
    }
    if (status.ok()) {
      const std::string moment = "after the last pod";
      absl::StatusOr<ClusterState> end = Settled(c, moment);
      if (end.ok() && &s == &upstream_)
        end = GiveStuckPreemptorsAgain(c, s, *end, moment, log_start, &phase);
      if (end.ok()) phase.end = std::move(end->pods);
      status = end.status();
    }
    for (const json& group : c.pod_groups) {
      const json now = api_.Get(PathOf(group));
      phase.groups[KeyOf(group)] = now.is_object() ? InitiallyScheduled(now) : "";
    }
    Sleep(200);  // The last log lines.
    std::map<std::string, Scores> scores = ScoresInLog(s.LogFrom(log_start));
    for (size_t i = 0; i < given; ++i) {
      if (auto it = scores.find(KeyOf(c.pending[i])); it != scores.end()) {
        phase.outcomes[i].scores = it->second;
      }
      if (absl::Status st = api_.Delete(c.pending[i]); !st.ok() && status.ok()) {
        status = Failed(s, "deleting pod " + KeyOf(c.pending[i]), st);
      }
    }
    for (const json& group : c.pod_groups) {  // Made anew on the next turn.
      if (absl::Status st = api_.Delete(group); !st.ok() && status.ok()) {
        status = Failed(s, "deleting PodGroup " + KeyOf(group), st);
      }
    }
    if (!status.ok()) return status;
    return phase;
  }

  // kube-scheduler v1.36 can leave a preemptor pending for good: held back by DefaultPreemption's
  // PreEnqueue while the deletions of the victims in its way were watched, it waits for an event
  // its rejecting plugins find helpful, and the last victim's deletion may help none of them
  // (kubernetes/kubernetes#141694; seed 95765, in about half of the runs, by the order in which
  // the API server answers). ksched queues such a pod on its last victim's deletion. A pod given
  // to `s` that preempted, is pending and nominated, whose victims are gone, and which `s`'s log
  // shows no attempt at since its "Async Preemption finished completely", is given again (deleted
  // and made anew), as upstream's fix would try it again; the case's report names it. Returns the
  // cluster, settled again if a pod was given again.
  absl::StatusOr<ClusterState> GiveStuckPreemptorsAgain(const Case& c, const Scheduler& s,
                                                        ClusterState now, const std::string& moment,
                                                        size_t log_start, Phase* phase) {
    std::optional<std::string> log;  // Read once a pod looks stuck in the cluster.
    bool given = false;
    for (size_t j = 0; j < phase->outcomes.size(); ++j) {
      const Outcome& o = phase->outcomes[j];
      const std::string key = KeyOf(c.pending[j]);
      auto it = now.pods.find(key);
      if (o.evicted.empty() || it == now.pods.end()) continue;
      const Outcome seen = OutcomeOfPod(it->second);
      if (!seen.node.empty() || seen.nominated.empty() ||
          std::any_of(o.evicted.begin(), o.evicted.end(),
                      [&](const std::string& v) { return now.pods.contains(v); })) {
        continue;
      }
      if (!log) log = s.LogFrom(log_start);
      const size_t finished =
          log->rfind(fmt::format("\"Async Preemption finished completely\" preemptor=\"{}\"", key));
      const size_t tried =
          log->rfind(fmt::format("\"Attempting to schedule pod\" pod=\"{}\"", key));
      if (finished == std::string::npos || (tried != std::string::npos && tried > finished)) {
        continue;
      }
      absl::Status st = api_.Delete(it->second);
      if (st.ok()) st = api_.Create(ForScheduler(c.pending[j], s.prefix));
      if (!st.ok()) return Failed(s, fmt::format("giving pod {} again {}", key, moment), st);
      phase->given_again.push_back(key);
      given = true;
    }
    if (!given) return now;
    return Settled(c, moment);
  }

  // An error of a harness step on `s`'s turn, with its name.
  static absl::Status Failed(const Scheduler& s, const std::string& step, const absl::Status& st) {
    return absl::Status(st.code(),
                        fmt::format("{} ({}'s turn): {}", step, s.name, std::string(st.message())));
  }

  // Whether a claim whose class binds at once (volumeBindingMode Immediate, the default) has no
  // volume yet.
  static bool ImmediateClaimUnbound(const Case& c, const Storage& storage) {
    for (const auto& [key, o] : storage) {
      if (o.value("kind", "") != "PersistentVolumeClaim") continue;
      const json& spec = o.value("spec", json::object());
      if (!spec.value("volumeName", "").empty()) continue;
      const json* sc = SetupObject(c, "StorageClass", spec.value("storageClassName", ""));
      if (sc != nullptr && sc->value("volumeBindingMode", "Immediate") == "Immediate") return true;
    }
    return false;
  }

  // The uids of the pods that claims with binding conditions are reserved for: until such a pod
  // is bound, its scheduler waits in PreBind for the devices to be attached (kube-scheduler looks
  // every 5 s).
  static std::set<std::string> WaitingForDevices(const Storage& storage) {
    std::set<std::string> out;
    for (const auto& [key, o] : storage) {
      if (o.value("kind", "") != "ResourceClaim") continue;
      const json results =
          o.value(json::json_pointer("/status/allocation/devices/results"), json::array());
      if (std::none_of(results.begin(), results.end(), [](const json& r) {
            return !r.value("bindingConditions", json::array()).empty();
          })) {
        continue;
      }
      for (const json& r : o.value(json::json_pointer("/status/reservedFor"), json::array())) {
        out.insert(r.value("uid", ""));
      }
    }
    return out;
  }

  static bool HasStorage(const Case& c) {
    return std::any_of(c.setup.begin(), c.setup.end(),
                       [](const json& o) { return IsStorage(o.value("kind", "")); });
  }

  // The case's pods, and the cluster's PVs and claims if the case has storage, as the API server
  // shows them now. A claim waiting for a provisioner gets its PV first (Provision), and an
  // allocated device that waits for its binding conditions is attached (Attach).
  absl::StatusOr<ClusterState> ReadState(const Case& c) {
    absl::StatusOr<json> list = api_.Read("/api/v1/pods");
    if (!list.ok()) return list.status();
    ClusterState out{.pods = CasePods(c, *list)};
    if (!HasStorage(c)) return out;
    absl::StatusOr<Storage> storage = ReadStorage();
    if (!storage.ok()) return storage.status();
    if (absl::Status st = Provision(c, *storage); !st.ok()) return st;
    Attach(*storage);
    out.storage = *std::move(storage);
    return out;
  }

  absl::StatusOr<Storage> ReadStorage() {
    absl::StatusOr<json> pvs = api_.Read("/api/v1/persistentvolumes");
    if (!pvs.ok()) return pvs.status();
    absl::StatusOr<json> claims = api_.Read("/api/v1/persistentvolumeclaims");
    if (!claims.ok()) return claims.status();
    absl::StatusOr<json> resource_claims = api_.Read("/apis/resource.k8s.io/v1/resourceclaims");
    if (!resource_claims.ok()) return resource_claims.status();
    return StorageOf(*pvs, *claims, *resource_claims);
  }

  // The case's object of this kind and name (from its setup), or null.
  static const json* SetupObject(const Case& c, const std::string& kind, const std::string& name) {
    for (const json& o : c.setup) {
      if (o.value("kind", "") == kind && o["metadata"].value("name", "") == name) return &o;
    }
    return nullptr;
  }

  // The part of a DRA driver's controller that the rig does not run: each allocated device with
  // binding conditions that the claim's status.devices does not speak of gets them all True, as
  // `ksched simulate` attaches it (sim::Cluster::AttachDevices). A claim that changed since it
  // was read (deallocated, deleted) is left for the next read.
  void Attach(const Storage& storage) {
    for (const auto& [key, claim] : storage) {
      if (claim["kind"] != "ResourceClaim") continue;
      json devices = claim.value(json::json_pointer("/status/devices"), json::array());
      bool changed = false;
      for (const json& r :
           claim.value(json::json_pointer("/status/allocation/devices/results"), json::array())) {
        const json wanted = r.value("bindingConditions", json::array());
        if (wanted.empty()) continue;
        const auto same = [&](const json& d) {
          return d.value("driver", "") == r.value("driver", "") &&
                 d.value("pool", "") == r.value("pool", "") &&
                 d.value("device", "") == r.value("device", "");
        };
        if (std::any_of(devices.begin(), devices.end(), same)) continue;
        json conditions = json::array();
        for (const json& type : wanted) {
          conditions.push_back({{"type", type},
                                {"status", "True"},
                                {"reason", "Attached"},
                                {"message", "attached by the difftest harness"},
                                {"lastTransitionTime", api::field::MetaTime(absl::Now())}});
        }
        devices.push_back({{"driver", r["driver"]},
                           {"pool", r["pool"]},
                           {"device", r["device"]},
                           {"conditions", std::move(conditions)}});
        changed = true;
      }
      if (changed) {
        api_.Patch(PathOf(claim) + "/status", {{"status", {{"devices", devices}}}}).IgnoreError();
      }
    }
  }

  // The part of a CSI driver's external provisioner, which the rig does not run: a claim with a
  // selected node, whose class names a provisioner, gets a PV made for it, pre-bound to it, as
  // `ksched simulate` makes one (sim::Provision): topology from the node's labels for the keys
  // the node's CSINode lists for the driver. The PV controller binds the two. The PV is named
  // "pvc-<namespace>-<name>" rather than after the claim's uid, so that both turns show the same.
  absl::Status Provision(const Case& c, const Storage& storage) {
    for (const auto& [key, claim] : storage) {
      if (claim["kind"] != "PersistentVolumeClaim" || Terminating(claim)) continue;
      const json& meta = claim["metadata"];
      const json& spec = claim["spec"];
      const std::string node_name =
          meta.value("annotations", json::object()).value(kSelectedNode, "");
      if (node_name.empty() || !spec.value("volumeName", "").empty()) continue;
      const json* sc = SetupObject(c, "StorageClass", spec.value("storageClassName", ""));
      if (sc == nullptr) continue;
      const std::string provisioner = sc->value("provisioner", "");
      if (provisioner == "kubernetes.io/no-provisioner") continue;
      const std::string name =
          fmt::format("pvc-{}-{}", meta.value("namespace", ""), meta.value("name", ""));
      if (storage.contains("PersistentVolume/" + name)) continue;
      json pv = {
          {"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata",
           {{"name", name}, {"annotations", {{"pv.kubernetes.io/provisioned-by", provisioner}}}}},
          {"spec",
           {{"capacity",
             {{"storage",
               claim.value(json::json_pointer("/spec/resources/requests/storage"), json("1Gi"))}}},
            {"accessModes", spec.value("accessModes", json::array())},
            {"volumeMode", spec.value("volumeMode", "Filesystem")},
            {"storageClassName", spec["storageClassName"]},
            {"persistentVolumeReclaimPolicy", sc->value("reclaimPolicy", "Delete")},
            {"claimRef",
             {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"namespace", meta["namespace"]},
              {"name", meta["name"]},
              {"uid", meta["uid"]}}},
            {"csi", {{"driver", provisioner}, {"volumeHandle", name}}}}}};
      const json* node = SetupObject(c, "Node", node_name);
      const json* csi_node = SetupObject(c, "CSINode", node_name);
      json term = json::array();
      for (const json& d :
           csi_node ? csi_node->at("spec").value("drivers", json::array()) : json::array()) {
        if (d.value("name", "") != provisioner || node == nullptr) continue;
        const json labels = node->at("metadata").value("labels", json::object());
        for (const json& k : d.value("topologyKeys", json::array())) {
          if (labels.contains(k)) {
            term.push_back({{"key", k}, {"operator", "In"}, {"values", {labels[k]}}});
          }
        }
      }
      if (!term.empty()) {
        pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] = {
            {{"matchExpressions", term}}};
      }
      if (absl::Status st = api_.Create(pv); !st.ok()) {
        return absl::Status(st.code(), fmt::format("provisioning {} for claim {}: {}", name, key,
                                                   std::string(st.message())));
      }
    }
    return absl::OkStatus();
  }

  // Deletes every PV, claim and resource claim, claims first, then creates `objects` (as
  // Recreatable makes them: the PV controller binds them again as they were; a resource claim gets
  // its allocation back, as a scheduler wrote it, but no reservation, as its pods are new).
  absl::Status ResetStorage(const std::vector<json>& objects) {
    absl::StatusOr<Storage> now = ReadStorage();
    if (!now.ok()) return now.status();
    // "PersistentVolumeClaim/..." sorts after "PersistentVolume/...".
    for (auto it = now->rbegin(); it != now->rend(); ++it) {
      if (absl::Status st = api_.Delete(it->second); !st.ok()) return st;
    }
    for (const json& o : objects) {
      absl::Status st = api_.Create(Recreatable(o));
      const json allocation = o.value("status", json::object()).value("allocation", json::object());
      if (st.ok() && o.value("kind", "") == "ResourceClaim" && !allocation.empty()) {
        st = api_.Patch(PathOf(o) + "/status", {{"status", {{"allocation", allocation}}}});
      }
      if (!st.ok()) {
        return absl::Status(st.code(), fmt::format("creating {} {}: {}", o.value("kind", ""),
                                                   KeyOf(o), std::string(st.message())));
      }
    }
    return absl::OkStatus();
  }

  // The case's pods and storage once the cluster is still (`moment` names when, for the error):
  // no pod being deleted, no binding the PV controller has yet to finish, and the same placement
  // and binding three reads in a row, 100 ms apart, with no pod waiting for its devices to be
  // attached (WaitingForDevices), so that a decision the scheduler makes for a
  // pod it had left pending lands before the next pod, as it would on a quiet cluster (up to
  // 10 s, then an error). A pod with volumes that is nominated but not bound may be in PreBind,
  // which kube-scheduler checks once a second (seed 95219: read before it bound, the pod was
  // taken off ksched's cluster): then the same for 1.2 s. So too while a claim of an Immediate
  // class is unbound: the PV controller binds it to a PV made after it only at its next periodic
  // sync, once a second in the rig (random-3: bound on one scheduler's turn and not yet on the
  // other's).
  absl::StatusOr<ClusterState> Settled(const Case& c, const std::string& moment) {
    std::string last;
    for (int i = 0, same = 0; i < 100; ++i) {
      absl::StatusOr<ClusterState> now = ReadState(c);
      if (!now.ok()) return now.status();
      const std::string placement = Placement(now->pods) + Binding(now->storage);
      bool busy = BindingInFlight(now->storage), binding = ImmediateClaimUnbound(c, now->storage);
      const std::set<std::string> waiting = WaitingForDevices(now->storage);
      for (const auto& [key, pod] : now->pods) {
        busy |= Terminating(pod) || (pod["spec"].value("nodeName", "").empty() &&
                                     waiting.contains(pod["metadata"].value("uid", "")));
        binding |= pod["spec"].value("nodeName", "").empty() &&
                   !pod.value("status", json::object()).value("nominatedNodeName", "").empty() &&
                   !pod["spec"].value("volumes", json::array()).empty();
      }
      same = placement == last && !busy ? same + 1 : 0;
      if (same == (binding ? 12 : 2)) return now;
      last = placement;
      Sleep(100);
    }
    return absl::DeadlineExceededError(fmt::format(
        "the cluster did not settle in 10 s {}; its pods and volumes:\n{}", moment, last));
  }

  // Brings the cluster to `target`: each pod kube-scheduler had bound, bound to the same node,
  // and no other pod bound (StepsToReach), and the PVs and claims bound as they were (made again
  // if not). The scheduler may act on the changes (a pod it left pending may fit once another is
  // moved away), so it checks again, up to three times. Adds the steps it took to `moved`.
  absl::Status Converge(const Case& c, const Scheduler& s, const ClusterState& target,
                        const std::string& moment, int* moved) {
    for (int round = 0;; ++round) {
      absl::StatusOr<ClusterState> now = Settled(c, moment);
      if (!now.ok()) return now.status();
      const std::vector<Step> steps = StepsToReach(target.pods, now->pods);
      const bool storage_differs = Binding(target.storage) != Binding(now->storage);
      if (steps.empty() && !storage_differs) return absl::OkStatus();
      if (round == 3) {
        return absl::FailedPreconditionError(fmt::format(
            "{}'s cluster still differs from kube-scheduler's {} after three rounds of changes; "
            "kube-scheduler's:\n{}{}{}'s:\n{}{}",
            s.name, moment, Placement(target.pods), Binding(target.storage), s.name,
            Placement(now->pods), Binding(now->storage)));
      }
      *moved += static_cast<int>(steps.size()) + (storage_differs ? 1 : 0);
      if (storage_differs) {
        std::vector<json> objects;
        for (const auto& [key, o] : target.storage) objects.push_back(o);
        if (absl::Status st = ResetStorage(objects); !st.ok()) {
          return Failed(s, "making the PVs and claims of kube-scheduler's cluster " + moment, st);
        }
      }
      for (const Step& step : steps) {
        if (step.remove) {
          if (absl::Status st = api_.Delete(now->pods.at(step.key)); !st.ok()) {
            return Failed(s,
                          fmt::format("deleting pod {} to match kube-scheduler's cluster {}",
                                      step.key, moment),
                          st);
          }
        }
        if (step.node.empty()) continue;
        if (absl::Status st = api_.Create(BoundCopy(c, step.key, step.node, target.pods, s.prefix));
            !st.ok()) {
          return Failed(s,
                        fmt::format("creating pod {} on {} to match kube-scheduler's cluster {}",
                                    step.key, step.node, moment),
                        st);
        }
      }
      Sleep(300);  // The scheduler's watch delivers the changes before the next pod.
    }
  }

  // A preemptor's decision as the events keep it, since by the time the harness looks, the pod may
  // show a later attempt (its victims partly gone) or be bound: the node its victims' "Preempted"
  // events name ("Preempted by pod <uid> on node <node>", from both schedulers), and the message
  // of its first FailedScheduling event. A pod of `o->evicted` whose event names another
  // preemptor is taken out: a pod left pending, tried again once this one's victims were gone,
  // may preempt meanwhile (seed 90029).
  void ReadPreemption(const json& pod, const PodStates& before, Outcome* o) {
    const json now = api_.Get(PathOf(pod));
    if (!now.is_object()) return;
    const std::string uid = now["metadata"].value("uid", "");
    const std::string ns = now["metadata"].value("namespace", "default");
    const json events = api_.Get(fmt::format("/api/v1/namespaces/{}/events", ns));
    if (!events.is_object()) return;
    auto text = [](const json& j, const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    // A PodGroup's preemption names the group (on node "cluster").
    static const std::regex kPreempted("^Preempted by (pod|podgroup) (\\S+) on node (\\S+)");
    std::string group_uid;
    if (const std::string group = PodGroupOf(pod); !group.empty()) {
      const json object = {{"kind", "PodGroup"},
                           {"metadata",
                            {{"namespace", group.substr(0, group.find('/'))},
                             {"name", group.substr(group.find('/') + 1)}}}};
      group_uid = api_.Get(PathOf(object)).value("metadata", json::object()).value("uid", "");
    }
    std::string first;  // The eventTime of the earliest FailedScheduling event.
    bool found = false;
    std::set<std::string> others;  // The uids of pods another preemptor evicted.
    for (const json& e : events.value("items", json::array())) {
      const std::string reason = text(e, "reason");
      const std::string message = text(e, "message");
      std::smatch m;
      if (reason == "Preempted" && std::regex_search(message, m, kPreempted)) {
        if (m[2] != (m[1] == "pod" ? uid : group_uid) || m[2].str().empty()) {
          others.insert(text(e.value("involvedObject", json::object()), "uid"));
        } else {
          o->preempted_on = m[3];
        }
      } else if (reason == "FailedScheduling" &&
                 text(e.value("involvedObject", json::object()), "uid") == uid) {
        const std::string at = text(e, "eventTime");  // RFC 3339 with microseconds, from both.
        if (!found || at < first) {
          found = true;
          first = at;
          o->message = message;
        }
      }
    }
    std::erase_if(o->evicted, [&](const std::string& key) {
      auto it = before.find(key);
      return it != before.end() && others.contains(it->second["metadata"].value("uid", ""));
    });
  }

  // Polls the pod until it is bound or has a PodScheduled=False condition (up to `limit_ms`),
  // provisioning the volumes it waits for.
  Outcome WaitForDecision(const Case& c, const json& pod, int limit_ms) {
    Outcome o{.status = "Pending"};
    for (int i = 0; i < limit_ms / 50; ++i) {
      if (HasStorage(c)) ReadState(c).IgnoreError();  // Only for Provision.
      json now = api_.Get(PathOf(pod));
      if (now.is_object()) o = OutcomeOfPod(now);
      if (o.status != "Pending" && !LostSharedClaimRace(o)) return o;
      Sleep(50);
    }
    return o;
  }

  // kube-scheduler v1.37.2 fails the PreBind of the pods of a pod group's cycle that share a claim
  // one of them allocated in the cycle, but for the pod whose write came first ("claim ... got
  // allocated elsewhere in the meantime", kubernetes/kubernetes#140053, open), and places them on
  // their next attempt, where the claim is; ksched places them at once. That error is not the
  // pod's decision: the harness waits for the next one.
  static bool LostSharedClaimRace(const Outcome& o) {
    return o.status == "SchedulerError" &&
           o.message.find("got allocated elsewhere in the meantime") != std::string::npos;
  }

  // ksched simulate's decision on pod i, on the cluster kube-scheduler decided it on (given with
  // the pods of its burst before it); its input stays in states_/<case>/<pod>.json.
  absl::StatusOr<Outcome> Simulate(const Case& c, size_t i, const ClusterState& state) {
    const json& meta = c.pending[i]["metadata"];
    const std::string manifest =
        fmt::format("{}/{}/{}.{}.json", states_, c.name, meta.value("namespace", "default"),
                    meta.value("name", ""));
    fs::create_directories(fs::path(manifest).parent_path());
    // A group's pods all, as a pod group cycle takes them; a burst's up to pod i.
    const size_t end = PodGroupOf(c.pending[i]).empty() ? i + 1 : GivenEnd(c, i);
    const std::vector<json> pending(c.pending.begin() + static_cast<std::ptrdiff_t>(c.first[i]),
                                    c.pending.begin() + static_cast<std::ptrdiff_t>(end));
    std::ofstream(manifest) << SimulationInput(c, state.pods, state.storage, pending,
                                               upstream_.prefix);
    std::vector<std::string> argv = {KSCHED_BINARY, "simulate", "-o", "json", "--explain"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    if (c.config.is_object()) {
      const std::string config = work_ + "/simulate-config.json";
      std::ofstream(config) << WithExtender(c.config).dump();
      argv.insert(argv.end(), {"--config", config});
    }
    argv.push_back(manifest);
    CommandResult r = testing::RunCommand(argv);
    json sim = json::parse(r.out, nullptr, false);
    if (r.exit_code != 0 || sim.is_discarded()) {
      return absl::InternalError(
          fmt::format("ksched simulate exited {} on {}: {}", r.exit_code, manifest, r.err));
    }
    return OutcomeInSimulation(sim, meta.value("namespace", "default"), meta.value("name", ""),
                               PodGroupOf(c.pending[i]));
  }

  // `config` with the test extender's URL where it names the test extender, which is started on
  // first use and binds through the API server, as a real extender does.
  json WithExtender(const json& config) {
    if (!testing::NamesTestExtender(config)) return config;
    if (extender_ == nullptr) {
      extender_ = std::make_unique<testing::TestExtender>();
      if (!extender_->Start()) std::fprintf(stderr, "difftest: the test extender did not start\n");
      extender_->set_bind(
          [this](const std::string& ns, const std::string& name, const std::string& uid,
                 const std::string& node) { return api_.Bind(ns, name, uid, node); });
    }
    return testing::WithTestExtender(config, extender_->url());
  }

  const ControlPlane& cluster_;
  Api api_;
  std::unique_ptr<testing::TestExtender> extender_;
  std::string work_, states_;
  Scheduler upstream_, ksched_;
};

json ToJson(const CaseResult& r) {
  json j = {{"case", r.name}};
  if (r.second_run) j["matchedOnASecondRun"] = true;
  if (!r.incomparable.empty()) j["incomparable"] = r.incomparable;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.adaptations.empty()) j["adaptations"] = r.adaptations;
  if (r.moved > 0) j["podsMovedOnKschedsTurn"] = r.moved;
  if (!r.given_again.empty()) j["preemptorsKubeSchedulerLeftPending"] = r.given_again;
  j["pods"] = json::array();
  for (const PodResult& p : r.pods) {
    json pj = {{"pod", p.key},
               {"upstream", ToJson(p.upstream)},
               {"run", ToJson(p.run)},
               {"simulate", ToJson(p.simulate)}};
    for (const auto& [name, list] : {std::pair{"runMismatches", &p.run_mismatches},
                                     std::pair{"simulateMismatches", &p.simulate_mismatches}}) {
      for (const Mismatch& m : *list) pj[name].push_back({{"kind", m.kind}, {"detail", m.detail}});
    }
    j["pods"].push_back(std::move(pj));
  }
  for (const GroupResult& g : r.groups) {
    j["podGroups"].push_back({{"podGroup", g.key}, {"upstream", g.upstream}, {"run", g.run}});
  }
  return j;
}

// A scenario file of a case: its cluster, given to simulate one pod at a time as the harness gives
// it, and as the expectation kube-scheduler's outcome once it had been given every pod (a pod it
// left pending at first may have bound later); a pod it evicted has none.
json ScenarioOf(const json& scenario, const CaseResult& r, const std::string& description) {
  json args = {"--one-at-a-time"};
  for (const std::string& flag : GateFlags(scenario)) args.push_back(flag);
  json out = {{"description", description},
              {"args", std::move(args)},
              {"cluster", scenario["cluster"]},
              {"expect", json::object()}};
  if (scenario.contains("config")) out["config"] = scenario["config"];
  if (scenario.contains("burst")) out["burst"] = scenario["burst"];
  for (const PodResult& p : r.pods) {
    auto end = r.upstream_end.find(p.key);
    if (end == r.upstream_end.end()) continue;
    const Outcome o = OutcomeOfPod(end->second);
    json e = {{"status", o.status}};
    if (!o.message.empty() && o.status != "Scheduled") e["message"] = o.message;
    // The node, unless kube-scheduler chose among equal top scores (its last scoring of the pod).
    int top = 0;
    int64_t best = INT64_MIN;
    for (const auto& [node, total] : p.upstream.scores.totals) {
      if (total > best) best = total, top = 0;
      if (total == best) ++top;
    }
    if (!o.node.empty() && top <= 1) e["node"] = o.node;
    out["expect"][p.key] = std::move(e);
  }
  return out;
}

struct Totals {
  int cases = 0, incomparable = 0, errors = 0, cases_matching = 0, second_runs = 0;
  int pods = 0, pods_matching = 0, pods_matching_but_known = 0, ties = 0;
  int hinted = 0;  // Pods kube-scheduler placed by OpportunisticBatching's hint.
  int run_matching = 0, simulate_matching = 0;  // Pods each matches exactly.
  int moved = 0, cases_moved = 0;  // Pods moved on ksched's turn, and in how many cases.
  int given_again = 0;             // Preemptors kube-scheduler left pending, given to it again.
  int groups = 0, groups_matching = 0;  // PodGroups, and those whose conditions match.
  std::map<std::string, int> run_kinds, simulate_kinds;

  void Add(const CaseResult& r) {
    ++cases;
    for (const GroupResult& g : r.groups) {
      ++groups;
      groups_matching += !g.Differs();
    }
    if (!r.incomparable.empty()) ++incomparable;
    if (!r.error.empty()) ++errors;
    if (r.incomparable.empty() && !r.Differs()) ++cases_matching;
    if (r.second_run) ++second_runs;
    moved += r.moved;
    if (r.moved > 0) ++cases_moved;
    given_again += static_cast<int>(r.given_again.size());
    for (const PodResult& p : r.pods) {
      ++pods;
      if (p.run_mismatches.empty() && p.simulate_mismatches.empty()) ++pods_matching;
      if (p.run_mismatches.empty()) ++run_matching;
      if (p.simulate_mismatches.empty()) ++simulate_matching;
      bool only_known = true;
      for (const auto* list : {&p.run_mismatches, &p.simulate_mismatches}) {
        for (const Mismatch& m : *list) {
          only_known &= m.kind == "unsupported";
        }
      }
      if (only_known) ++pods_matching_but_known;
      if (IsTie(p.upstream, p.run) || IsTie(p.upstream, p.simulate)) ++ties;
      if (p.upstream.scores.hinted) ++hinted;
      for (const Mismatch& m : p.run_mismatches) ++run_kinds[m.kind];
      for (const Mismatch& m : p.simulate_mismatches) ++simulate_kinds[m.kind];
    }
  }
  json ToJson() const {
    return {{"cases", cases},
            {"matchedOnASecondRun", second_runs},
            {"incomparable", incomparable},
            {"errors", errors},
            {"casesMatching", cases_matching},
            {"pods", pods},
            {"podsMatching", pods_matching},
            {"podsMatchingButKnownGaps", pods_matching_but_known},
            {"ties", ties},
            {"podsKubeSchedulerBatched", hinted},
            {"podsMatchingRun", run_matching},
            {"podsMatchingSimulate", simulate_matching},
            {"podsMovedOnKschedsTurn", moved},
            {"casesWithPodsMoved", cases_moved},
            {"preemptorsKubeSchedulerLeftPending", given_again},
            {"podGroups", groups},
            {"podGroupsMatchingRun", groups_matching},
            {"runMismatches", run_kinds},
            {"simulateMismatches", simulate_kinds}};
  }
  void Print(const char* title) const {
    const int comparable = cases - incomparable;
    auto percent = [&](int n) { return pods == 0 ? 100.0 : 100.0 * n / pods; };
    std::printf(
        "%s: %d/%d cases match (%d on a second run; %d not comparable, %d errors); of %d pods, "
        "%d (%.1f%%) match exactly (%d through a tie) and %d (%.1f%%) but for known gaps\n",
        title, cases_matching, comparable, second_runs, incomparable, errors, pods, pods_matching,
        percent(pods_matching), ties, pods_matching_but_known, percent(pods_matching_but_known));
    std::printf(
        "  exactly: ksched run %d (%.1f%%), ksched simulate %d (%.1f%%); the harness moved %d "
        "pods on ksched's turn, in %d cases; kube-scheduler placed %d pods by a batch hint\n",
        run_matching, percent(run_matching), simulate_matching, percent(simulate_matching), moved,
        cases_moved, hinted);
    if (groups > 0) {
      std::printf(
          "  PodGroups: the condition ksched run writes matches (but for known gaps) on "
          "%d of %d\n",
          groups_matching, groups);
    }
    if (given_again > 0) {
      std::printf(
          "  preemptors kube-scheduler left pending for good, their victims gone "
          "(kubernetes/kubernetes#141694), given to it again: %d\n",
          given_again);
    }
    for (const auto& [label, kinds] :
         {std::pair{"ksched run", &run_kinds}, std::pair{"ksched simulate", &simulate_kinds}}) {
      for (const auto& [kind, n] : *kinds)
        std::printf("  %s: %d %s mismatches\n", label, n, kind.c_str());
    }
  }
};

// Whether kube-scheduler takes these --feature-gates, --emulated-version and
// --min-compatibility-version flags, as ksched reads them.
absl::Status GatesAccepted(const std::vector<std::string>& flags) {
  features::Flags f;
  for (const std::string& flag : flags) {
    const std::string value = flag.substr(flag.find('=') + 1);
    if (flag.starts_with("--feature-gates=")) f.feature_gates.push_back(value);
    if (flag.starts_with("--emulated-version=")) f.emulated_version.push_back(value);
    if (flag.starts_with("--min-compatibility-version=")) {
      f.min_compatibility_version.push_back(value);
    }
  }
  return features::FeatureGates::FromFlags(f).status();
}

int Main(int argc, char** argv) {
  CLI::App app{"difftest: ksched against kube-scheduler on the same cases"};
  std::string scenario_dir = std::string(KSCHED_SOURCE_DIR) + "/test/scenarios";
  int seeds = 0;
  uint64_t first_seed = 1;
  std::string out_dir = "difftest-results";
  int shrink_tries = 40;
  app.add_option("--scenario-dir", scenario_dir, "Scenario files to compare (\"\" for none)");
  app.add_option("--seeds", seeds, "How many random cases");
  app.add_option("--first-seed", first_seed, "The first random case's seed");
  app.add_option("--out", out_dir, "Where the report and the shrunk cases go");
  app.add_option("--shrink-tries", shrink_tries, "Runs spent shrinking each differing random case");
  std::vector<std::string> gate_flags;
  for (const char* flag :
       {"--feature-gates", "--emulated-version", "--min-compatibility-version"}) {
    app.add_option_function<std::string>(
           flag,
           [&gate_flags, flag](const std::string& v) {
             gate_flags.push_back(fmt::format("{}={}", flag, v));
           },
           "Given to both schedulers and to simulate, after each case's own")
        ->allow_extra_args(false);
  }
  std::string expect_out;
  app.add_option("--expect-out", expect_out,
                 "Where to write each scenario file again, with kube-scheduler's outcome as its "
                 "expectation and --one-at-a-time, as the harness gives its pods");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  const std::vector<std::string> upstream_plugins = UpstreamPlugins();
  std::vector<std::pair<std::string, json>> scenarios;
  if (!scenario_dir.empty()) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(scenario_dir)) {
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      absl::StatusOr<std::string> text = ReadFile(f);
      if (!text.ok()) {
        std::fprintf(stderr, "difftest: %s\n", std::string(text.status().message()).c_str());
        return 2;
      }
      absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(*text);
      if (!docs.ok() || docs->size() != 1) {
        std::fprintf(stderr, "difftest: %s: not one YAML document\n", f.c_str());
        return 2;
      }
      scenarios.emplace_back(f.stem().string(), json::parse((*docs)[0]));
    }
  }

  fs::create_directories(out_dir + "/shrunk");
  // kube-controller-manager runs only its PV binder, which finishes the bindings the schedulers
  // start, and its resourceclaim controller, which frees the devices of a preemption's victims;
  // the disruption controller, for one, would rewrite the budgets' status. The binder looks at
  // every PV and claim each second rather than each 15: cases make PVs and claims of the same
  // names one after the other, and it may first pair a new one with the old one its cache still
  // holds.
  // The API server drops the fields of a gate that is off for it (CSIDriver's
  // preventPodSchedulingIfMissing without VolumeLimitScaling): it gets every gate a case sets.
  // PodGroups are served (scheduling.k8s.io/v1beta1, beta and off by default) for the cases with
  // gangs, and keep their preemptionPolicy (the random cases' PodGroupPreemptionPolicy, which
  // only they set); the schedulers get the gates only from a case that sets them.
  std::vector<std::string> apiserver_flags = {
      "--feature-gates=GenericWorkload=true,PodGroupPreemptionPolicy=true",
      "--runtime-config=scheduling.k8s.io/v1beta1=true"};
  for (const std::string& flag : gate_flags) {
    if (flag.starts_with("--feature-gates=")) apiserver_flags.push_back(flag);
  }
  for (const auto& [name, scenario] : scenarios) {
    for (const std::string& flag : GateFlags(scenario)) {
      if (flag.starts_with("--feature-gates=")) apiserver_flags.push_back(flag);
    }
  }
  // The resourceclaim controller gets the gates too: with DRAWorkloadResourceClaims it removes a
  // PodGroup's reservation of a claim once the group is gone (each turn makes the groups anew),
  // and frees the claim; without, it keeps an entry it does not know.
  std::vector<std::string> controller_flags = {
      "--controllers=persistentvolume-binder-controller,resourceclaim-controller",
      "--pvclaimbinder-sync-period=1s"};
  for (const std::string& flag : apiserver_flags) {
    if (flag.starts_with("--feature-gates=")) controller_flags.push_back(flag);
  }
  absl::StatusOr<std::unique_ptr<ControlPlane>> cluster =
      ControlPlane::Start({.kwok = true,
                           .controller_manager = true,
                           .controller_manager_flags = absl::StrJoin(controller_flags, " "),
                           .apiserver_flags = absl::StrJoin(apiserver_flags, " ")});
  if (!cluster.ok()) {
    std::fprintf(stderr, "difftest: %s\n", std::string(cluster.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = (*cluster)->kubeconfig()});
  if (!rest.ok()) return 1;
  rest->qps = 1000;
  rest->burst = 1000;
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(*rest);
  if (!http.ok()) return 1;
  Harness harness(**cluster, **http, (*cluster)->dir(), out_dir + "/states");

  auto run_once = [&](const std::string& name, json scenario) -> CaseResult {
    for (const std::string& flag : gate_flags) scenario["args"].push_back(flag);
    absl::StatusOr<Case> c = MakeCase(name, scenario, upstream_plugins);
    if (!c.ok()) return {.name = name, .error = std::string(c.status().message())};
    // A case that sets a gate the emulated version does not have yet, say: neither scheduler would
    // start (ksched refuses the flags in kube-scheduler's words).
    if (absl::Status st = GatesAccepted(c->flags); !st.ok() && c->incomparable.empty()) {
      c->incomparable = "kube-scheduler refuses its flags: " + std::string(st.message());
    }
    return harness.Run(*c);
  };
  // A real difference is the same every time; one that goes away on a second run came from timing
  // (a watch that delivered late on a busy machine), and is counted apart.
  auto run = [&](const std::string& name, const json& scenario) -> CaseResult {
    CaseResult first = run_once(name, scenario);
    if (!first.Differs()) return first;
    CaseResult again = run_once(name, scenario);
    if (again.Differs()) return first;
    again.second_run = true;
    return again;
  };
  auto report = [](const CaseResult& r) {
    if (!r.incomparable.empty()) {
      std::printf("%-32s not comparable: %s\n", r.name.c_str(), r.incomparable.c_str());
    } else if (!r.error.empty()) {
      std::printf("%-32s ERROR %s\n", r.name.c_str(), r.error.c_str());
    } else {
      std::printf(
          "%-32s %s\n", r.name.c_str(),
          r.Differs() ? "DIFFERS" : (r.second_run ? "matches (on a second run)" : "matches"));
      for (const PodResult& p : r.pods) {
        for (const auto& [who, list] :
             {std::pair{"run", &p.run_mismatches}, std::pair{"simulate", &p.simulate_mismatches}}) {
          for (const Mismatch& m : *list) {
            std::printf("    %s %s %s: %s\n", p.key.c_str(), who, m.kind.c_str(), m.detail.c_str());
          }
        }
      }
      for (const GroupResult& g : r.groups) {
        if (!g.Differs()) continue;
        std::printf("    PodGroup %s run condition: kube-scheduler \"%s\", ksched \"%s\"\n",
                    g.key.c_str(), g.upstream.c_str(), g.run.c_str());
      }
    }
    std::fflush(stdout);
  };

  json all = json::array();
  Totals scenario_totals, random_totals;
  for (const auto& [name, scenario] : scenarios) {
    CaseResult r = run(name, scenario);
    report(r);
    scenario_totals.Add(r);
    all.push_back(ToJson(r));
    if (!expect_out.empty() && r.incomparable.empty() && r.error.empty()) {
      fs::create_directories(expect_out);
      std::ofstream(fmt::format("{}/{}.yaml", expect_out, name))
          << api::JsonToYaml(ScenarioOf(scenario, r, scenario.value("description", "")));
    }
  }
  for (uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    const std::string name = fmt::format("random-{}", seed);
    const json scenario = GenerateCase(seed);
    CaseResult r = run(name, scenario);
    report(r);
    random_totals.Add(r);
    all.push_back(ToJson(r));
    if (!r.Differs() || !r.error.empty() || shrink_tries <= 0) continue;
    json smallest = Shrink(
        scenario, [&](const json& s) { return run(name, s).Differs(); }, shrink_tries);
    CaseResult shrunk = run(name, smallest);
    const std::string file = fmt::format("{}/shrunk/random_seed_{}.yaml", out_dir, seed);
    std::ofstream(file) << api::JsonToYaml(ScenarioOf(
        smallest, shrunk,
        fmt::format("Found by make difftest ({}), shrunk; the expectation is kube-scheduler "
                    "v1.37.2's outcome.",
                    name)));
    std::printf("    shrunk to %zu objects: %s\n", smallest["cluster"].size(), file.c_str());
  }
  harness.Stop();

  json summary = {{"scenarios", scenario_totals.ToJson()}, {"random", random_totals.ToJson()}};
  std::ofstream(out_dir + "/report.json") << json{{"summary", summary}, {"cases", all}}.dump(2);
  std::printf("\n");
  if (!scenarios.empty()) scenario_totals.Print("scenario files");
  if (seeds > 0) random_totals.Print(fmt::format("{} random cases", seeds).c_str());
  std::printf("report: %s/report.json\n", out_dir.c_str());
  const bool differs =
      scenario_totals.cases_matching + scenario_totals.incomparable != scenario_totals.cases ||
      random_totals.cases_matching + random_totals.incomparable != random_totals.cases;
  return differs ? 1 : 0;
}

}  // namespace
}  // namespace ksched::difftest

int main(int argc, char** argv) { return ksched::difftest::Main(argc, argv); }
