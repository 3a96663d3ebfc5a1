// chaos: the soak of issue 18. ksched replicas with leader election schedule on a real control
// plane (etcd, kube-apiserver, kwok as the kubelet of a few thousand nodes), reaching the API
// server through toxiproxy, while pods come and go at a steady rate and faults come from a seeded
// schedule: kube-apiserver and etcd killed and restarted, the leader killed or stopped for longer
// than its lease, and the network between ksched and the API server cut, slowed, throttled or
// stalled in the middle of a response. The invariant checker (invariants.h) watches the outcome
// through kubectl and the API server's audit log.
//
//   build/test/chaos/chaos --duration 10m --seed 7 --out build/chaos
//
// Prints a summary and writes <out>/report.json; exits 0 with no violation, 1 with any, 2 when
// the rig could not be set up.
#include <signal.h>
#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <queue>
#include <random>
#include <set>
#include <thread>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/proc_status.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/testing/command.h"
#include "src/testing/control_plane.h"
#include "src/testing/ports.h"
#include "src/testing/toxiproxy.h"
#include "test/chaos/invariants.h"

namespace ksched::chaos {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CommandResult;
using testing::ControlPlane;
using testing::Process;
using testing::RunCommand;

struct Options {
  absl::Duration duration = absl::Minutes(10);
  uint64_t seed = 1;
  int nodes = 2000;
  int replicas = 3;
  double rate = 10;  // Pods created per second.
  absl::Duration fault_every = absl::Seconds(30);
  absl::Duration quiet = absl::Seconds(90);  // The end: no faults, no new pods, then the checks.
  std::string out = "chaos";
};

constexpr char kNamespace[] = "chaos";
constexpr int kTightNodes = 8;  // The pool where low-priority pods fill and urgent ones preempt.
const absl::Duration kLease = absl::Seconds(15);

void Log(const std::string& line) {
  std::fprintf(stderr, "chaos %s %s\n",
               absl::FormatTime("%H:%M:%S", absl::Now(), absl::LocalTimeZone()).c_str(),
               line.c_str());
}

void Sleep(absl::Duration d) { absl::SleepFor(d); }

// The processes the soak started (replicas, toxiproxy), for the signal handler: interrupted or
// timed out, the soak kills them before it dies; the control plane's owner watch stops the rest.
std::atomic<int> g_children[32];
void Track(int slot, int pid) { g_children[slot] = pid; }
void KillChildren(int sig) {
  for (std::atomic<int>& pid : g_children) {
    if (pid > 0) kill(pid, SIGKILL);
  }
  _exit(128 + sig);
}

// The kinds of fault, in the report's words.
enum class Fault {
  kApiServer,
  kEtcd,
  kLeaderKill,
  kLeaderStop,
  kCut,
  kLatency,
  kBandwidth,
  kStall
};
constexpr Fault kFaults[] = {Fault::kApiServer,  Fault::kEtcd, Fault::kLeaderKill,
                             Fault::kLeaderStop, Fault::kCut,  Fault::kLatency,
                             Fault::kBandwidth,  Fault::kStall};
std::string Name(Fault f) {
  switch (f) {
    case Fault::kApiServer:
      return "kube-apiserver killed";
    case Fault::kEtcd:
      return "etcd killed";
    case Fault::kLeaderKill:
      return "leader killed";
    case Fault::kLeaderStop:
      return "leader stopped";
    case Fault::kCut:
      return "network cut";
    case Fault::kLatency:
      return "network latency";
    case Fault::kBandwidth:
      return "network bandwidth";
    case Fault::kStall:
      return "network stall";
  }
  return "?";
}

// One ksched replica: its identity (a client certificate's user), its kubeconfig through the
// proxy, and the process of its current incarnation.
struct Replica {
  int index = 0;
  std::string user;
  std::string kubeconfig;
  int port = 0;  // --secure-port
  std::unique_ptr<Process> process;
  int incarnation = 0;
  absl::Time started;
  absl::Time hold_until = absl::InfinitePast();  // Not restarted before then (a fault holds it).
  struct Sample {
    absl::Time at;
    int64_t rss_kib;
    int sockets;
  };
  std::vector<Sample> samples;        // Of the current incarnation.
  json incarnations = json::array();  // What the earlier ones measured.
};

int64_t RssKib(int pid) { return ProcStatusKib(pid, "VmRSS").value_or(0); }

int Sockets(int pid) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fmt::format("/proc/{}/fd", pid), ec)) {
    std::error_code link_ec;
    if (fs::read_symlink(e.path(), link_ec).string().starts_with("socket:")) ++n;
  }
  return n;
}

class Soak {
 public:
  Soak(Options o, ControlPlane& cluster, client::HttpClient& api)
      : o_(std::move(o)), cluster_(cluster), api_(api), rng_(o_.seed), invariants_({}) {}

  int Run();

 private:
  absl::Status SetUp();
  absl::Status StartProxy();
  absl::Status MakeReplica(int i);
  void StartReplica(Replica& r);
  void Supervise();
  void Load();
  void Sample();
  void TailAudit();
  int FindLeader();
  void Inject(Fault f, json* record);
  absl::Duration Recovery(int n);
  // A call to toxiproxy's REST API; its answer, or null (and a line in the log).
  json Toxiproxy(const std::string& method, const std::string& path, const json& body);
  std::vector<Violation> FinalChecks();
  json List(const std::vector<std::string>& args);
  void AddViolations(const std::vector<Violation>& v, const std::string& when);

  Options o_;
  ControlPlane& cluster_;
  client::HttpClient& api_;  // Straight to the API server, as the admin: load and probes.
  std::mt19937_64 rng_;      // The fault schedule's.
  std::mutex mu_;            // Guards what the threads below share.
  std::vector<Replica> replicas_;
  Invariants invariants_;
  json violations_ = json::array();
  // Bound pods without their Scheduled event because their replica was killed (-9) just after
  // the bind: not violations, but reported.
  std::vector<std::string> events_lost_to_kill_;
  std::set<std::string> reported_;
  int pods_created_ = 0;
  int create_failures_ = 0;
  std::atomic<bool> loading_{true}, running_{true};
  std::unique_ptr<testing::Toxiproxy> toxiproxy_;
  absl::Time start_;
};

json Soak::List(const std::vector<std::string>& args) {
  std::vector<std::string> a = {"get"};
  a.insert(a.end(), args.begin(), args.end());
  a.insert(a.end(), {"-o", "json"});
  CommandResult r = cluster_.Kubectl(a);
  return r.exit_code == 0 ? json::parse(r.out, nullptr, false) : json();
}

void Soak::AddViolations(const std::vector<Violation>& v, const std::string& when) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Violation& x : v) {
    if (!reported_.insert(x.kind + ": " + x.detail).second) continue;  // Seen at an earlier check.
    Log(fmt::format("VIOLATION {}: {}", x.kind, x.detail));
    violations_.push_back({{"kind", x.kind}, {"detail", x.detail}, {"when", when}});
  }
}

json Soak::Toxiproxy(const std::string& method, const std::string& path, const json& body) {
  std::string err;
  json answer = toxiproxy_->Call(method, path, body, &err);
  if (!err.empty()) Log("toxiproxy " + method + " " + path + ": " + err);
  return answer;
}

absl::Status Soak::StartProxy() {
  absl::StatusOr<std::unique_ptr<testing::Toxiproxy>> proxy =
      testing::Toxiproxy::Start(cluster_.api_port(), cluster_.dir() + "/toxiproxy.log");
  if (!proxy.ok()) return proxy.status();
  toxiproxy_ = std::move(*proxy);
  Track(0, toxiproxy_->pid());
  return absl::OkStatus();
}

absl::Status Soak::MakeReplica(int i) {
  Replica r{.index = i, .user = fmt::format("ksched-replica-{}", i)};
  const std::string pki = cluster_.dir() + "/pki";
  const std::string base = fmt::format("{}/{}", cluster_.dir(), r.user);
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"openssl", "req", "-new", "-newkey", "ec", "-pkeyopt",
                                 "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
                                 "/O=system:masters/CN=" + r.user, "-keyout", base + ".key", "-out",
                                 base + ".csr"},
        std::vector<std::string>{"openssl", "x509", "-req", "-in", base + ".csr", "-CA",
                                 pki + "/ca.crt", "-CAkey", pki + "/ca.key", "-CAcreateserial",
                                 "-days", "2", "-out", base + ".crt"}}) {
    CommandResult c = RunCommand(argv);
    if (c.exit_code != 0) return absl::InternalError(testing::ShellQuote(argv) + ": " + c.err);
  }
  r.kubeconfig = base + ".kubeconfig";
  std::ofstream(r.kubeconfig) << fmt::format(
      "apiVersion: v1\nkind: Config\n"
      "clusters: [{{name: c, cluster: {{server: \"https://127.0.0.1:{}\", "
      "certificate-authority: \"{}/ca.crt\"}}}}]\n"
      "users: [{{name: u, user: {{client-certificate: \"{}.crt\", client-key: \"{}.key\"}}}}]\n"
      "contexts: [{{name: c, context: {{cluster: c, user: u}}}}]\ncurrent-context: c\n",
      toxiproxy_->port(), pki, base, base);
  r.port = testing::FreePort();
  replicas_.push_back(std::move(r));
  return absl::OkStatus();
}

void Soak::StartReplica(Replica& r) {
  if (!r.samples.empty()) {
    r.incarnations.push_back({{"incarnation", r.incarnation},
                              {"seconds", absl::ToInt64Seconds(r.samples.back().at - r.started)},
                              {"rss_kib_first", r.samples.front().rss_kib},
                              {"rss_kib_last", r.samples.back().rss_kib}});
  }
  r.samples.clear();
  ++r.incarnation;
  r.started = absl::Now();
  r.process = std::make_unique<Process>(
      std::vector<std::string>{
          KSCHED_BINARY, "run", "--kubeconfig", r.kubeconfig,
          fmt::format("--secure-port={}", r.port),
          "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics", "-v", "2"},
      fmt::format("{}/{}.log", cluster_.dir(), r.user));
  Track(r.index + 1, r.process->pid());
}

absl::Status Soak::SetUp() {
  Log(fmt::format("creating {} nodes (and {} in the tight pool)", o_.nodes, kTightNodes));
  if (absl::Status st = cluster_.CreateNodes(o_.nodes); !st.ok()) return st;
  if (absl::Status st = cluster_.CreateNodes(kTightNodes, {.prefix = "tight-"}); !st.ok()) {
    return st;
  }
  std::vector<std::string> label = {"label", "node"};
  for (int i = 0; i < kTightNodes; ++i) label.push_back(fmt::format("tight-{}", i));
  label.push_back("pool=tight");
  for (const std::vector<std::string>& args :
       {label, std::vector<std::string>{"create", "namespace", kNamespace},
        std::vector<std::string>{"create", "priorityclass", "chaos-low", "--value=100"},
        std::vector<std::string>{"create", "priorityclass", "chaos-high", "--value=1000"}}) {
    CommandResult r = cluster_.Kubectl(args);
    if (r.exit_code != 0) return absl::InternalError("kubectl " + args[0] + ": " + r.err);
  }
  if (absl::Status st = StartProxy(); !st.ok()) return st;
  for (int i = 0; i < o_.replicas; ++i) {
    if (absl::Status st = MakeReplica(i); !st.ok()) return st;
    StartReplica(replicas_.back());
  }
  return absl::OkStatus();
}

// Restarts replicas that exited (a leader that lost its lease exits, as kube-scheduler does), as
// a Deployment's kubelet would.
void Soak::Supervise() {
  while (running_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (Replica& r : replicas_) {
        if (absl::Now() < r.hold_until || (r.process != nullptr && r.process->Running())) continue;
        Log(fmt::format("{} is not running; starting it again", r.user));
        StartReplica(r);
      }
    }
    Sleep(absl::Seconds(1));
  }
}

// Creates pods at the rate asked and deletes each when its time is up: most fit anywhere; some
// fit nowhere (they stay pending, Unschedulable); some fill the tight pool at low priority, and
// some come there at high priority and must preempt.
void Soak::Load() {
  std::mt19937_64 rng(o_.seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_real_distribution<double> u(0, 1);
  using Due = std::pair<absl::Time, std::string>;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> deletions;
  const absl::Duration gap = absl::Seconds(1 / o_.rate);
  absl::Time next = absl::Now();
  for (int n = 0; running_;) {
    const absl::Time now = absl::Now();
    while (!deletions.empty() && deletions.top().first <= now) {
      const std::string name = deletions.top().second;
      deletions.pop();
      client::HttpResponse r =
          api_.Call({.method = "DELETE",
                     .path = fmt::format("/api/v1/namespaces/{}/pods/{}", kNamespace, name),
                     .timeout = absl::Seconds(10)});
      if (!r.ok() && r.status != 404) deletions.push({now + absl::Seconds(5), name});
    }
    if (!loading_ || now < next) {
      Sleep(std::min(absl::Milliseconds(50), next - now));
      continue;
    }
    next += gap;
    const double kind = u(rng);
    const std::string name = fmt::format("pod-{}", n++);
    json spec = {{"containers", {{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}}}};
    json& requests = spec["containers"][0]["resources"]["requests"];
    absl::Duration life = absl::Seconds(20 + 100 * u(rng));
    if (kind < 0.08) {  // Fits nowhere.
      requests = {{"cpu", "64"}};
    } else if (kind < 0.16) {  // Fills the tight pool at low priority.
      requests = {{"cpu", "1"}};
      spec["priorityClassName"] = "chaos-low";
      spec["nodeSelector"] = {{"pool", "tight"}};
      life += absl::Seconds(60);
    } else if (kind < 0.20) {  // Preempts there.
      requests = {{"cpu", "2"}};
      spec["priorityClassName"] = "chaos-high";
      spec["nodeSelector"] = {{"pool", "tight"}};
    } else {
      requests = {{"cpu", fmt::format("{}m", 50 + static_cast<int>(450 * u(rng)))},
                  {"memory", fmt::format("{}Mi", 64 + static_cast<int>(448 * u(rng)))}};
    }
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", kNamespace}}},
                {"spec", spec}};
    client::HttpResponse r =
        api_.Call({.method = "POST",
                   .path = fmt::format("/api/v1/namespaces/{}/pods", kNamespace),
                   .body = pod.dump(),
                   .timeout = absl::Seconds(10)});
    std::lock_guard<std::mutex> lock(mu_);
    if (r.ok()) {
      ++pods_created_;
      deletions.push({absl::Now() + life, name});
    } else {
      ++create_failures_;
    }
  }
}

// Every 5 s each replica's memory and sockets; every 30 s the node capacities, the pending pods
// that fit a node, and the binds of the audit log so far.
void Soak::Sample() {
  absl::Time next_capacity = absl::Now() + absl::Seconds(30);
  while (running_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (Replica& r : replicas_) {
        if (r.process == nullptr || !r.process->Running()) continue;
        const int pid = r.process->pid();
        r.samples.push_back({absl::Now(), RssKib(pid), Sockets(pid)});
      }
    }
    if (absl::Now() >= next_capacity) {
      next_capacity = absl::Now() + absl::Seconds(30);
      json nodes = List({"nodes"});
      json pods = List({"pods", "-n", kNamespace});
      if (nodes.is_object() && pods.is_object()) {
        AddViolations(Invariants::CheckCapacity(nodes, pods), "during the run");
        std::lock_guard<std::mutex> lock(mu_);
        invariants_.NoteFitting(nodes, pods, absl::Now());
      }
      std::vector<Violation> binds;
      {
        std::lock_guard<std::mutex> lock(mu_);
        binds = invariants_.CheckBinds();
      }
      AddViolations(binds, "during the run");
    }
    Sleep(absl::Seconds(5));
  }
}

// Feeds the audit log to the checker as kube-apiserver appends to it.
void Soak::TailAudit() {
  std::ifstream in;
  std::string partial;
  const std::string path = cluster_.dir() + "/audit.log";
  while (true) {
    const bool last = !running_;
    if (!in.is_open()) in.open(path);
    if (in.is_open()) {
      std::string chunk(1 << 16, '\0');
      while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
        partial.append(chunk.data(), static_cast<size_t>(in.gcount()));
        size_t start = 0;
        std::lock_guard<std::mutex> lock(mu_);
        for (size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
          invariants_.AddAuditLine(std::string_view(partial).substr(start, nl - start));
        }
        partial.erase(0, start);
      }
      in.clear();  // At the end for now; the file grows.
    }
    if (last) return;
    Sleep(absl::Milliseconds(500));
  }
}

// The replica whose /metrics says it leads, or -1.
int Soak::FindLeader() {
  std::vector<std::pair<int, int>> ports;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Replica& r : replicas_) {
      if (r.process != nullptr && r.process->Running()) ports.push_back({r.index, r.port});
    }
  }
  for (auto [index, port] : ports) {
    CommandResult m =
        RunCommand({"curl", "-sk", "-m", "3", fmt::format("https://127.0.0.1:{}/metrics", port)});
    if (m.out.find("leader_election_master_status{name=\"kube-scheduler\"} 1") !=
        std::string::npos) {
      return index;
    }
  }
  return -1;
}

void Soak::Inject(Fault f, json* record) {
  std::uniform_real_distribution<double> u(0, 1);
  auto toxic = [&](const json& t, absl::Duration d) {
    Toxiproxy("POST", "/proxies/apiserver/toxics", t);
    Sleep(d);
    Toxiproxy("DELETE", "/proxies/apiserver/toxics/" + t["name"].get<std::string>(), nullptr);
  };
  switch (f) {
    case Fault::kApiServer:
    case Fault::kEtcd: {
      absl::Status st =
          f == Fault::kApiServer ? cluster_.RestartApiServer() : cluster_.RestartEtcd();
      if (!st.ok()) (*record)["error"] = std::string(st.message());
      break;
    }
    case Fault::kLeaderKill:
    case Fault::kLeaderStop: {
      int leader = -1;
      for (int i = 0; i < 60 && (leader = FindLeader()) < 0; ++i) Sleep(absl::Milliseconds(500));
      if (leader < 0) {
        (*record)["error"] = "no replica leads";
        break;
      }
      (*record)["replica"] = fmt::format("ksched-replica-{}", leader);
      int pid = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        Replica& r = replicas_[leader];
        pid = r.process->pid();
        // The supervisor starts a killed replica again 5 s later; a stopped one it leaves alone.
        r.hold_until = absl::Now() + (f == Fault::kLeaderKill ? absl::Seconds(5) : absl::Hours(1));
        if (f == Fault::kLeaderKill) {
          invariants_.AddKill(r.user, absl::Now());
          r.process->Stop(SIGKILL);
        }
      }
      if (f == Fault::kLeaderStop) {
        kill(pid, SIGSTOP);
        Sleep(kLease + absl::Seconds(10));  // Longer than the lease: a standby takes over.
        kill(pid, SIGCONT);
        std::lock_guard<std::mutex> lock(mu_);
        replicas_[leader].hold_until = absl::InfinitePast();
      }
      break;
    }
    case Fault::kCut: {
      const absl::Duration d = absl::Seconds(5 + 10 * u(rng_));
      Toxiproxy("POST", "/proxies/apiserver", {{"enabled", false}});
      Sleep(d);
      Toxiproxy("POST", "/proxies/apiserver", {{"enabled", true}});
      (*record)["seconds"] = absl::ToDoubleSeconds(d);
      break;
    }
    case Fault::kLatency:
      toxic({{"name", "latency"},
             {"type", "latency"},
             {"stream", "downstream"},
             {"attributes", {{"latency", 800}, {"jitter", 400}}}},
            absl::Seconds(30));
      break;
    case Fault::kBandwidth:
      toxic({{"name", "bandwidth"},
             {"type", "bandwidth"},
             {"stream", "downstream"},
             {"attributes", {{"rate", 32}}}},  // KB/s
            absl::Seconds(30));
      break;
    case Fault::kStall:  // Nothing gets through, and the connections stay open: answers stop
                         // in the middle, and what was sent meanwhile is lost.
      toxic({{"name", "stall"},
             {"type", "timeout"},
             {"stream", "downstream"},
             {"attributes", {{"timeout", 0}}}},
            absl::Seconds(20));
      break;
  }
}

// How long after a fault a new pod takes to be bound: the time to recover. A probe that is not
// bound within 3 minutes is a violation.
absl::Duration Soak::Recovery(int n) {
  const std::string name = fmt::format("probe-{}", n);
  const std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}", kNamespace, name);
  const absl::Time start = absl::Now();
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", kNamespace}}},
              {"spec",
               {{"containers",
                 {{{"name", "c"},
                   {"image", "registry.k8s.io/pause:3.10"},
                   {"resources", {{"requests", {{"cpu", "10m"}}}}}}}}}}};
  bool created = false;
  while (absl::Now() - start < absl::Minutes(3)) {
    if (!created) {
      client::HttpResponse r =
          api_.Call({.method = "POST",
                     .path = fmt::format("/api/v1/namespaces/{}/pods", kNamespace),
                     .body = pod.dump(),
                     .timeout = absl::Seconds(5)});
      created = r.ok() || r.status == 409;
    } else {
      client::HttpResponse r = api_.Call({.path = path, .timeout = absl::Seconds(5)});
      json now = r.ok() ? json::parse(r.body, nullptr, false) : json();
      if (now.is_object() && !now["spec"].value("nodeName", "").empty()) {
        const absl::Duration took = absl::Now() - start;
        api_.Call({.method = "DELETE", .path = path, .timeout = absl::Seconds(5)});
        return took;
      }
    }
    Sleep(absl::Milliseconds(200));
  }
  AddViolations({{"no-recovery", fmt::format("probe {} was not bound within 3 minutes", name)}},
                "after a fault");
  return absl::InfiniteDuration();
}

std::vector<Violation> Soak::FinalChecks() {
  json nodes = List({"nodes"});
  json pods = List({"pods", "-n", kNamespace});
  json events = List({"events.v1.events.k8s.io", "-n", kNamespace});
  if (!nodes.is_object() || !pods.is_object() || !events.is_object()) {
    return {{"unchecked", "kubectl could not list nodes, pods or events at the end"}};
  }
  std::vector<Violation> v = Invariants::CheckCapacity(nodes, pods);
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::vector<Violation>& more :
       {invariants_.CheckBinds(),
        invariants_.CheckOutcomes(pods, events, absl::Now(), &events_lost_to_kill_),
        invariants_.CheckFitting()}) {
    v.insert(v.end(), more.begin(), more.end());
  }
  // After warm-up (the event recorder's six minutes, the caches filled), memory and sockets stay
  // within a bound: at most 1.5 times the first figure after warm-up plus 32 MiB, and 16 sockets
  // more.
  const absl::Duration warm_up = std::min(absl::Minutes(6), o_.duration / 3);
  for (const Replica& r : replicas_) {
    auto first = std::find_if(r.samples.begin(), r.samples.end(), [&](const Replica::Sample& s) {
      return s.at - r.started >= warm_up;
    });
    if (first == r.samples.end()) continue;
    const Replica::Sample& last = r.samples.back();
    if (last.rss_kib > first->rss_kib * 3 / 2 + int64_t{32} * 1024 ||
        last.sockets > first->sockets + 16) {
      v.push_back({"growth", fmt::format("{}: RSS {} KiB and {} sockets after warm-up, {} KiB "
                                         "and {} sockets at the end",
                                         r.user, first->rss_kib, first->sockets, last.rss_kib,
                                         last.sockets)});
    }
  }
  return v;
}

int Soak::Run() {
  start_ = absl::Now();
  if (absl::Status st = SetUp(); !st.ok()) {
    Log("setting up: " + std::string(st.message()));
    return 2;
  }
  std::thread supervisor([this] { Supervise(); });
  std::thread load([this] { Load(); });
  std::thread sampler([this] { Sample(); });
  std::thread audit([this] { TailAudit(); });

  // The schedule: each round, every kind of fault once, in a seeded order, at seeded intervals.
  const absl::Time faults_end = start_ + o_.duration - o_.quiet;
  std::uniform_real_distribution<double> u(0.5, 1.5);
  json faults = json::array();
  std::vector<Fault> round;
  for (int n = 0;; ++n) {
    Sleep(o_.fault_every * u(rng_));
    if (absl::Now() >= faults_end) break;
    if (round.empty()) {
      round.assign(std::begin(kFaults), std::end(kFaults));
      std::shuffle(round.begin(), round.end(), rng_);
    }
    const Fault f = round.back();
    round.pop_back();
    json record = {{"kind", Name(f)}, {"at_seconds", absl::ToInt64Seconds(absl::Now() - start_)}};
    Log("fault: " + Name(f));
    Inject(f, &record);
    record["ended_seconds"] = absl::ToInt64Seconds(absl::Now() - start_);
    const absl::Duration recovery = Recovery(n);
    record["recovery_seconds"] = recovery == absl::InfiniteDuration()
                                     ? json(nullptr)
                                     : json(absl::ToDoubleSeconds(recovery));
    Log(fmt::format("recovered from {} in {}", Name(f), absl::FormatDuration(recovery)));
    faults.push_back(record);
  }
  loading_ = false;  // The quiet end: deletions go on, creations stop.
  Log("quiet: no more faults or new pods");
  const absl::Time end = start_ + o_.duration;
  if (absl::Now() < end) Sleep(end - absl::Now());
  running_ = false;
  load.join();
  sampler.join();
  supervisor.join();
  audit.join();
  AddViolations(FinalChecks(), "at the end");

  // The report.
  std::map<std::string, std::vector<double>> recoveries;
  std::map<std::string, int> counts;
  for (const json& f : faults) {
    ++counts[f["kind"]];
    if (f["recovery_seconds"].is_number()) recoveries[f["kind"]].push_back(f["recovery_seconds"]);
  }
  json by_kind = json::object();
  for (const auto& [kind, n] : counts) {
    std::vector<double>& r = recoveries[kind];
    std::sort(r.begin(), r.end());
    by_kind[kind] = {{"count", n},
                     {"recovery_p50_seconds",
                      r.empty()           ? json(nullptr)
                      : r.size() % 2 == 1 ? json(r[r.size() / 2])
                                          : json((r[r.size() / 2 - 1] + r[r.size() / 2]) / 2)},
                     {"recovery_max_seconds", r.empty() ? json(nullptr) : json(r.back())}};
  }
  json memory = json::array();
  int restarts = 0;
  for (Replica& r : replicas_) {
    restarts += r.incarnation - 1;
    json m = {{"replica", r.user}, {"incarnations", r.incarnation}, {"earlier", r.incarnations}};
    if (!r.samples.empty()) {
      m["rss_kib_first"] = r.samples.front().rss_kib;
      m["rss_kib_last"] = r.samples.back().rss_kib;
      m["sockets_first"] = r.samples.front().sockets;
      m["sockets_last"] = r.samples.back().sockets;
      m["seconds"] = absl::ToInt64Seconds(r.samples.back().at - r.started);
    }
    memory.push_back(m);
  }
  json report = {{"duration_seconds", absl::ToInt64Seconds(absl::Now() - start_)},
                 {"seed", o_.seed},
                 {"nodes", o_.nodes + kTightNodes},
                 {"replicas", o_.replicas},
                 {"pods_created", pods_created_},
                 {"pod_creations_refused", create_failures_},
                 {"binds", invariants_.binds()},
                 {"lease_writes", invariants_.lease_writes()},
                 {"replica_restarts", restarts},
                 {"faults_by_kind", by_kind},
                 {"faults", faults},
                 {"violations", violations_},
                 {"events_lost_to_kill", events_lost_to_kill_},
                 {"memory", memory}};
  fs::create_directories(o_.out);
  std::ofstream(o_.out + "/report.json") << report.dump(2) << "\n";
  std::printf("%s\n", report.dump(2).c_str());
  if (!violations_
           .empty()) {  // The cluster's directory goes with the control plane: keep its logs.
    const std::string kept = o_.out + "/logs";
    fs::create_directories(kept);
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cluster_.dir(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".log") || name.find(".log.") != std::string::npos) {
        fs::copy_file(e.path(), fs::path(kept) / name, fs::copy_options::overwrite_existing, ec);
      }
    }
    Log("the logs (replicas, kube-apiserver, etcd, kwok, audit) are kept in " + kept);
  }
  Log(fmt::format(
      "{} pods created, {} binds, {} faults, {} violations ({} events lost to a kill -9 right "
      "after their bind); report: {}/report.json",
      pods_created_, invariants_.binds(), faults.size(), violations_.size(),
      events_lost_to_kill_.size(), o_.out));
  // Stop the replicas before the control plane goes (the destructor of `cluster`).
  for (Replica& r : replicas_) {
    if (r.process != nullptr) {
      kill(r.process->pid(), SIGCONT);
      r.process->Stop(SIGTERM);
    }
  }
  toxiproxy_->Stop();
  return violations_.empty() ? 0 : 1;
}

}  // namespace
}  // namespace ksched::chaos

int main(int argc, char** argv) {
  using namespace ksched;
  chaos::Options o;
  std::string duration = "10m", fault_every = "30s", quiet = "90s";
  CLI::App app{"The chaos soak: ksched replicas under load and faults, and an invariant checker"};
  app.add_option("--duration", duration, "How long the soak runs, quiet end included (10m)");
  app.add_option("--seed", o.seed, "The seed of the fault schedule and the load");
  app.add_option("--nodes", o.nodes, "How many nodes kwok fakes");
  app.add_option("--replicas", o.replicas, "How many ksched replicas elect a leader");
  app.add_option("--rate", o.rate, "Pods created per second");
  app.add_option("--fault-every", fault_every, "The mean time between faults (30s)");
  app.add_option("--quiet", quiet, "The end without faults or new pods, before the checks (90s)");
  app.add_option("--out", o.out, "Where report.json goes");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (auto [text, into] : {std::pair{&duration, &o.duration},
                            std::pair{&fault_every, &o.fault_every}, std::pair{&quiet, &o.quiet}}) {
    absl::Duration d;
    if (!absl::ParseDuration(*text, &d) || d <= absl::ZeroDuration()) {
      std::fprintf(stderr, "chaos: \"%s\" is not a duration such as 90s or 10m\n", text->c_str());
      return 2;
    }
    *into = d;
  }
  if (o.quiet >= o.duration || o.rate <= 0 || o.nodes < 1 || o.replicas < 1 || o.replicas > 30) {
    std::fprintf(stderr,
                 "chaos: --quiet must be shorter than --duration; --rate and --nodes positive, "
                 "--replicas from 1 to 30\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, chaos::KillChildren);
  signal(SIGINT, chaos::KillChildren);
  absl::StatusOr<std::unique_ptr<ksched::testing::ControlPlane>> cluster =
      ksched::testing::ControlPlane::Start({.kwok = true, .audit = true});
  if (!cluster.ok()) {
    std::fprintf(stderr, "chaos: %s\n", std::string(cluster.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = (*cluster)->kubeconfig()});
  if (!rest.ok()) return 2;
  rest->qps = 1000;
  rest->burst = 1000;
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(*rest);
  if (!http.ok()) return 2;
  chaos::Soak soak(o, **cluster, **http);
  return soak.Run();
}
