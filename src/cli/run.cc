#include "src/cli/run.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>

#include "absl/random/random.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/api/yaml.h"
#include "src/auth/delegated_auth.h"
#include "src/base/clock.h"
#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/cli/feature_gate_flags.h"
#include "src/cli/version.h"
#include "src/client/api_source.h"
#include "src/client/leader_election.h"
#include "src/client/writer.h"
#include "src/config/load.h"
#include "src/metrics/scheduler_metrics.h"
#include "src/plugins/registry.h"
#include "src/scheduler/explain_records.h"
#include "src/scheduler/scheduler.h"
#include "src/server/server.h"

namespace ksched::cli {
namespace {

// Binding cycles that may run at once. Each waits on the API server; more only pile up requests
// when the server is the bottleneck.
constexpr size_t kMaxBindingCycles = 64;
// Requests the API client may have outstanding (binds, claims, status patches; watches aside)
// before the next scheduling cycle waits for fewer, at most a second each time: a scheduler faster
// than the API server otherwise holds thousands of pods' writes and cycles in memory (2026-12-06,
// ConsumableCapacity-full: peak RSS 105.8 to 72.2 MiB at the same throughput). kube-scheduler has
// no such limit; its slower cycles rarely outrun the server.
constexpr int kMaxOutstandingRequests = 500;

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "ksched: %s\n", what.c_str());
  return 1;
}

}  // namespace

void AddRunFlags(CLI::App* cmd, RunFlags* flags) {
  cmd->add_option("--config", flags->config_file, "KubeSchedulerConfiguration file");
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "Path to a kubeconfig; overrides clientConnection.kubeconfig and $KUBECONFIG");
  cmd->add_option("--context", flags->context, "The kubeconfig context to use");
  cmd->add_option("--master", flags->master,
                  "The address of the Kubernetes API server (overrides any value in kubeconfig)");
  cmd->add_option("--write-config-to", flags->write_config_to,
                  "If set, write the configuration values to this file and exit");
  cmd->add_option("--kube-api-qps", flags->kube_api_qps,
                  "DEPRECATED: QPS to use while talking with kubernetes apiserver. This parameter "
                  "is ignored if a config file is specified in --config.");
  cmd->add_option("--kube-api-burst", flags->kube_api_burst,
                  "DEPRECATED: burst to use while talking with kubernetes apiserver. This "
                  "parameter is ignored if a config file is specified in --config.");
  cmd->add_option("--logging-format", flags->logging_format, "Log format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-v,--v", flags->verbosity, "Log verbosity (klog levels)");
  RunFlags::LeaderElection& le = flags->leader_election;
  cmd->add_flag("--leader-elect", le.leader_elect,
                "Elect a leader among replicas before scheduling (default true)");
  cmd->add_option("--leader-elect-lease-duration", le.lease_duration,
                  "How long a standby waits before taking an unrenewed lease (default 15s)");
  cmd->add_option("--leader-elect-renew-deadline", le.renew_deadline,
                  "How long the leader retries renewing before it stops (default 10s)");
  cmd->add_option("--leader-elect-retry-period", le.retry_period,
                  "How long to wait between attempts to acquire or renew (default 2s)");
  cmd->add_option("--leader-elect-resource-lock", le.resource_lock,
                  "The lock's resource type; only leases (the default)");
  cmd->add_option("--leader-elect-resource-name", le.resource_name,
                  "The Lease's name (default kube-scheduler)");
  cmd->add_option("--leader-elect-resource-namespace", le.resource_namespace,
                  "The Lease's namespace (default kube-system)");
  RunFlags::Serving& sv = flags->serving;
  cmd->add_option("--secure-port", sv.secure_port,
                  "The port to serve HTTPS on (health, metrics, configz); 0 turns it off")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--bind-address", sv.bind_address, "The IP address to serve on");
  cmd->add_option("--tls-cert-file", sv.tls_cert_file,
                  "The serving certificate (PEM); without it a self-signed one is made");
  cmd->add_option("--tls-private-key-file", sv.tls_private_key_file,
                  "The serving certificate's private key (PEM)");
  cmd->add_option("--authorization-always-allow-paths", sv.always_allow_paths,
                  "Paths served without authorization")
      ->delimiter(',');
  cmd->add_option("--client-ca-file", sv.client_ca_file,
                  "CA bundle (PEM) that client certificates of /metrics and /configz callers are "
                  "verified against; the user is the certificate's CN, its groups the O entries");
  cmd->add_option("--authentication-kubeconfig", sv.authentication_kubeconfig,
                  "kubeconfig of the API server that checks tokens (TokenReview); default: "
                  "ksched's own connection");
  cmd->add_option("--authorization-kubeconfig", sv.authorization_kubeconfig,
                  "kubeconfig of the API server that authorizes requests (SubjectAccessReview); "
                  "default: ksched's own connection");
  cmd->add_flag("--authentication-skip-lookup", sv.authentication_skip_lookup,
                "Do not look up the client CA in configmap/extension-apiserver-authentication in "
                "kube-system when --client-ca-file is not given");
  cmd->add_flag("--authentication-tolerate-lookup-failure",
                sv.authentication_tolerate_lookup_failure,
                "Start even when that lookup fails, without client certificate authentication "
                "(default true)");
  cmd->add_option("--explain-memory-mib", flags->explain_memory_mib,
                  "Memory (MiB) for each pod's last scheduling attempt, served at "
                  "/debug/pods/NAMESPACE/NAME for `ksched explain`; 0 keeps none (default 32)")
      ->check(CLI::Range(0, 1 << 20));
  AddFeatureGateFlags(cmd, &flags->feature_gates);
  cmd->add_flag("--simulator-annotations", flags->simulator_annotations,
                "Write kube-scheduler-simulator's result annotations (filter-result, "
                "score-result, ..., result-history) onto each pod after each attempt, so that "
                "the simulator's web UI shows ksched's decisions");
  flags->cmd = cmd;
}

namespace {

// The leaderElection settings: the file's, with the flags that were given on top.
absl::StatusOr<client::LeaderElectionOptions> LeaderElectionFrom(const RunFlags& flags,
                                                                 config::LeaderElection* le) {
  const RunFlags::LeaderElection& f = flags.leader_election;
  auto given = [&](const char* name) { return flags.cmd != nullptr && flags.cmd->count(name) > 0; };
  if (given("--leader-elect")) le->leader_elect = f.leader_elect;
  for (auto [flag, value, field] :
       {std::tuple{"--leader-elect-lease-duration", &f.lease_duration, &le->lease_duration},
        std::tuple{"--leader-elect-renew-deadline", &f.renew_deadline, &le->renew_deadline},
        std::tuple{"--leader-elect-retry-period", &f.retry_period, &le->retry_period},
        std::tuple{"--leader-elect-resource-lock", &f.resource_lock, &le->resource_lock},
        std::tuple{"--leader-elect-resource-name", &f.resource_name, &le->resource_name},
        std::tuple{"--leader-elect-resource-namespace", &f.resource_namespace,
                   &le->resource_namespace}}) {
    if (given(flag)) *field = *value;
  }
  client::LeaderElectionOptions o{.namespace_ = le->resource_namespace, .name = le->resource_name};
  for (auto [name, text, out] :
       {std::tuple{"--leader-elect-lease-duration", &le->lease_duration, &o.lease_duration},
        std::tuple{"--leader-elect-renew-deadline", &le->renew_deadline, &o.renew_deadline},
        std::tuple{"--leader-elect-retry-period", &le->retry_period, &o.retry_period}}) {
    if (!absl::ParseDuration(*text, out) || *out <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(fmt::format(
          "invalid argument \"{}\" for \"{}\" flag: not a positive duration", *text, name));
    }
  }
  if (o.lease_duration <= o.renew_deadline) {
    return absl::InvalidArgumentError(
        "leaderElection.leaseDuration: Invalid value: leaseDuration must be greater than "
        "renewDeadline");
  }
  if (le->resource_lock != "leases") {
    return absl::InvalidArgumentError(fmt::format(
        "leaderElection.resourceLock: Invalid value: \"{}\": resourceLock value must be "
        "\"leases\"",
        le->resource_lock));
  }
  absl::BitGen rng;
  o.identity = fmt::format("{}_{:016x}{:016x}", Hostname(), absl::Uniform<uint64_t>(rng),
                           absl::Uniform<uint64_t>(rng));
  return o;
}

// A client for delegated authentication or authorization, from the kubeconfig that `flag` names;
// nullptr when it names none, for ksched's own connection to serve (in a pod, the service
// account, which upstream uses when no kubeconfig is given).
absl::StatusOr<std::unique_ptr<client::HttpClient>> ReviewClient(const char* flag,
                                                                 const std::string& kubeconfig,
                                                                 const client::RestConfig& own) {
  if (kubeconfig.empty()) return nullptr;
  absl::StatusOr<client::RestConfig> rest = client::LoadKubeconfig(kubeconfig, "");
  if (!rest.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", flag, AsStd(rest.status().message())));
  }
  rest->qps = own.qps;
  rest->burst = own.burst;
  rest->user_agent = own.user_agent;
  return client::HttpClient::Create(*rest, {.thread_name = "ksched-review"});
}

// Where the client CA comes from, for messages.
std::string ClientCaSource(const RunFlags::Serving& sv) {
  return sv.client_ca_file.empty()
             ? "client-ca-file of configmap kube-system/extension-apiserver-authentication"
             : fmt::format("--client-ca-file \"{}\"", sv.client_ca_file);
}

// The CA bundle that client certificates are verified against: --client-ca-file, else the API
// server's own, looked up in the cluster as upstream does; "" for no client certificates. A
// bundle without a certificate is an error here, before anything starts.
absl::StatusOr<std::string> ClientCa(const RunFlags::Serving& sv, client::HttpClient& authn) {
  absl::StatusOr<std::string> ca;
  if (!sv.client_ca_file.empty()) {
    ca = ReadFile(sv.client_ca_file);
    if (!ca.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--client-ca-file: {}", AsStd(ca.status().message())));
    }
  } else if (sv.authentication_skip_lookup) {
    return "";
  } else if (ca = auth::ClientCaFromCluster(authn); !ca.ok()) {
    if (!sv.authentication_tolerate_lookup_failure) {
      return absl::UnavailableError(fmt::format("unable to load configmap based client CA file: {}",
                                                AsStd(ca.status().message())));
    }
    KLOG_WARNING(
        "Unable to look up client-ca-file in configmap/extension-apiserver-authentication in "
        "kube-system, so client certificate authentication won't work",
        {"err", std::string(AsStd(ca.status().message()))});
    return "";
  }
  if (ca->empty()) return ca;
  if (absl::Status st = server::CheckClientCa(*ca, ClientCaSource(sv)); !st.ok()) return st;
  return ca;
}

// The configuration: --config's file or the defaults, with the deprecated flags that
// kube-scheduler honours only without --config.
absl::StatusOr<config::Configuration> EffectiveConfiguration(const RunFlags& flags,
                                                             const Registry& registry) {
  absl::StatusOr<config::Configuration> cfg =
      config::LoadConfigOrDefaults(flags.config_file, registry);
  if (!cfg.ok() || !flags.config_file.empty() || flags.cmd == nullptr) return cfg;
  if (flags.cmd->count("--kube-api-qps") > 0) cfg->client_connection.qps = flags.kube_api_qps;
  if (flags.cmd->count("--kube-api-burst") > 0) cfg->client_connection.burst = flags.kube_api_burst;
  return cfg;
}

// --write-config-to: the effective configuration as YAML, as kube-scheduler writes it.
absl::Status WriteConfig(const config::Configuration& cfg, const std::string& path) {
  std::ofstream out(path);
  out << api::JsonToYaml(config::EncodeConfiguration(cfg));
  if (!out.flush()) {
    return absl::PermissionDeniedError(fmt::format("--write-config-to: cannot write \"{}\"", path));
  }
  KLOG(0, "Wrote configuration", {"file", path});
  return absl::OkStatus();
}

// The API server connections: ksched's own, and those of delegated authentication and
// authorization when their kubeconfigs are given.
struct Connections {
  // `election` and `events` have clients of their own, as kube-scheduler gives them: renewals
  // never wait behind binds in the rate limit or on a busy connection, and events never take the
  // budget of binds.
  std::unique_ptr<client::HttpClient> api, election, events, authn, authz;
  client::HttpClient& Authn() { return authn ? *authn : *api; }
  client::HttpClient& Authz() { return authz ? *authz : *api; }
};

absl::StatusOr<Connections> Connect(const RunFlags& flags, const config::Configuration& cfg,
                                    client::RestClientMetrics* metrics) {
  client::RestConfigSource source{
      .kubeconfig = flags.kubeconfig, .context = flags.context, .master = flags.master};
  if (source.kubeconfig.empty()) source.kubeconfig = cfg.client_connection.kubeconfig;
  absl::StatusOr<client::RestConfig> rest = client::LoadRestConfig(source);
  if (!rest.ok()) return rest.status();
  rest->qps = static_cast<float>(cfg.client_connection.qps);
  rest->burst = cfg.client_connection.burst;
  rest->user_agent = "ksched/" + ThisVersion().version;
  Connections c;
  for (auto [out, flag, kubeconfig] : {std::tuple{&c.authn, "--authentication-kubeconfig",
                                                  &flags.serving.authentication_kubeconfig},
                                       std::tuple{&c.authz, "--authorization-kubeconfig",
                                                  &flags.serving.authorization_kubeconfig}}) {
    absl::StatusOr<std::unique_ptr<client::HttpClient>> review =
        ReviewClient(flag, *kubeconfig, *rest);
    if (!review.ok()) return review.status();
    *out = std::move(*review);
  }
  // While busy, the API client's I/O thread wakes every 5 ms and the events' every 20 ms, each
  // time for every request and answer that came meanwhile, rather than once for each: at some
  // hundreds of pods a second that is a quarter less CPU, for at most 5 ms more per request.
  using Options = client::HttpClientOptions;
  for (auto [out, options] :
       {std::pair{&c.api, Options{.metrics = metrics,
                          .thread_name = "ksched-api",
                          .coalesce = absl::Milliseconds(5)}},
        std::pair{&c.election, Options{.metrics = metrics, .thread_name = "ksched-election"}},
        std::pair{&c.events, Options{.metrics = metrics,
                             .thread_name = "ksched-events",
                             .coalesce = absl::Milliseconds(20)}}}) {
    absl::StatusOr<std::unique_ptr<client::HttpClient>> made =
        client::HttpClient::Create(*rest, options);
    if (!made.ok()) return made.status();
    *out = std::move(*made);
  }
  return c;
}

// /debug/pods/NAMESPACE/NAME: the pod's last attempt, as ExplainRecords keeps it.
absl::StatusOr<std::string> DebugPod(const scheduler::ExplainRecords* explain,
                                     std::string_view path) {
  constexpr std::string_view kPods = "/debug/pods/";
  if (!path.starts_with(kPods)) return absl::NotFoundError(fmt::format("no debug path {}", path));
  const std::string_view rest = path.substr(kPods.size());
  const size_t slash = rest.find('/');
  const std::string_view ns = rest.substr(0, slash);
  const std::string_view name = slash == rest.npos ? "" : rest.substr(slash + 1);
  if (ns.empty() || name.empty() || name.find('/') != name.npos) {
    return absl::InvalidArgumentError(fmt::format("{}: want /debug/pods/NAMESPACE/NAME", path));
  }
  if (explain == nullptr) {
    return absl::NotFoundError("no scheduling attempts are kept: --explain-memory-mib is 0");
  }
  std::optional<nlohmann::ordered_json> j = explain->Json(ns, name);
  if (!j) {
    return absl::NotFoundError(fmt::format(
        "no scheduling attempt of pod {}/{} is kept: this scheduler has not tried it (it does not "
        "exist, is not its to schedule, or waits for its first attempt), or it was bound or "
        "deleted long enough ago that newer attempts took its place",
        ns, name));
  }
  return j->dump() + "\n";
}

// Serves on --secure-port what kube-scheduler serves: health (with the lease's and, for
// readiness, the caches' and the shutdown's checks), /metrics and /configz.
absl::StatusOr<std::unique_ptr<server::Server>> StartServing(
    const RunFlags::Serving& sv, const std::string& client_ca, const config::Configuration& cfg,
    client::LeaderElector* elector, client::ApiSource& informers, const std::atomic<bool>& stopping,
    metrics::Registry& metrics_registry, server::RequestAuthorizer& authorizer,
    const scheduler::ExplainRecords* explain) {
  std::vector<server::HealthCheck> health;
  if (elector != nullptr) {
    // kube-scheduler's adaptor tolerates 20 seconds past the lease's end.
    health.push_back({"leaderElection", [elector] { return elector->Check(absl::Seconds(20)); }});
  }
  std::vector<server::HealthCheck> ready = health;
  ready.push_back({"sched-handler-sync", [&informers] {
                     return informers.WaitForSync(absl::ZeroDuration())
                                ? absl::OkStatus()
                                : absl::UnavailableError("waiting for handlers to sync");
                   }});
  ready.push_back({"shutdown", [&stopping] {
                     return stopping ? absl::UnavailableError("process is shutting down")
                                     : absl::OkStatus();
                   }});
  return server::Server::Start(
      {.bind_address = sv.bind_address,
       .secure_port = sv.secure_port,
       .cert_file = sv.tls_cert_file,
       .key_file = sv.tls_private_key_file,
       .always_allow_paths = sv.always_allow_paths,
       .client_ca_pem = client_ca,
       .client_ca_source = ClientCaSource(sv)},
      {.metrics = [&metrics_registry] { return metrics_registry.Text(); },
       .configz = [configz = config::EncodeConfiguration(cfg)] { return configz.dump(); },
       .healthz = health,
       .readyz = ready,
       .debug = [explain](std::string_view path) { return DebugPod(explain, path); }},
      &authorizer);
}

// Schedules until `stopping` (or the lease is `lost`), and runs what upstream runs periodically
// meanwhile: the queue flushes its backoffQ every second and its unschedulable pods every 30
// seconds; client-go's event broadcaster ends event series every 6 minutes and refreshes them
// every 30. About every second, too, the free pages inside malloc's heap go back to the system, as
// Go's scavenger gives back kube-scheduler's: blocks freed between long-lived ones (decoding, the
// watch's lines, each cycle's state) otherwise stay resident. Measured on
// SchedulingPreferredPodAffinity (5000 nodes, 1000 + 1000 pods): peak RSS 41.6 MiB instead of 44.0,
// at 0.1 to 0.5 ms a call. A call holds malloc's lock while it walks the heap, longer on a larger
// one, so the next waits a hundred times as long as the last took: under 1% of the time.
void ScheduleUntilStopped(const std::atomic<bool>& stopping, const std::atomic<bool>& lost,
                          scheduler::Scheduler& s, client::ApiWriter& writer) {
  struct Periodic {
    absl::Duration every;
    std::function<void(absl::Time)> run;
    bool on_the_second = false;  // Runs as each whole second begins.
    absl::Time next;
  };
  Periodic periodic[] = {
      // At whole seconds, where the queue's backoffs end (scheduling_queue.h).
      {absl::Seconds(1), [&s](absl::Time) { s.queue().FlushBackoffQCompleted(); }, true},
      {absl::Seconds(30), [&s](absl::Time) { s.queue().FlushUnschedulablePodsLeftover(); }},
      {absl::Minutes(6), [&writer](absl::Time now) { writer.FinishSeries(now); }},
      {absl::Minutes(30), [&writer](absl::Time) { writer.RefreshSeries(); }},
  };
  // The next time a Periodic is due after `now`.
  auto due = [](const Periodic& p, absl::Time now) {
    return (p.on_the_second ? TruncateToSecond(now) : now) + p.every;
  };
  for (Periodic& p : periodic) p.next = due(p, absl::Now());
  absl::Time next_trim = absl::Now() + absl::Seconds(1);
  while (!stopping && !lost) {
    // An idle wait for a pod ends when the next Periodic is due, so that the flush runs on time.
    absl::Duration wait = absl::Milliseconds(100);
    for (const Periodic& p : periodic) wait = std::min(wait, p.next - absl::Now());
    s.ScheduleOne(std::max(wait, absl::ZeroDuration()));
    absl::Time now = absl::Now();
    for (Periodic& p : periodic) {
      if (now < p.next) continue;
      p.run(now);
      p.next = due(p, now);
    }
    if (now >= next_trim) {
      const absl::Time before = absl::Now();
      malloc_trim(0);
      const absl::Time done = absl::Now();
      next_trim = done + std::max(absl::Seconds(1), 100 * (done - before));
    }
  }
}

void TuneMalloc() {
  // Blocks of 1 MiB and more (list responses and their parsers, megabytes each) get pages of their
  // own, given back on free. glibc's default raises this threshold to the largest block freed,
  // after which such blocks come from the heap and its fragments stay resident: measured on 10000
  // pods and 1000 nodes, 96 MiB resident after the first lists instead of 45.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // One malloc arena rather than glibc's eight per core: memory one thread frees serves the
  // others' next blocks. Peak RSS on SchedulingBasic (5000 nodes, 1000 + 5000 pods): 61 MiB with
  // two arenas instead of 65 with eight; on SchedulingPreferredPodAffinity (5000 nodes, 1000 + 1000
  // pods) 39.6 and 39.7 MiB with one instead of 40.0 and 41.7 with two. CPU per pod on
  // SchedulingBasic (1000 + 10000 pods) 0.18 ms with either.
  mallopt(M_ARENA_MAX, 1);
}

// Waits for the lease (upstream's leader election OnStartedLeading), keeps it renewed, and lists
// the pods afresh before the new leader schedules. Returns at once if a signal came meanwhile.
void Lead(client::LeaderElector& elector, client::ApiSource& informers, client::HttpClient& events,
          const std::atomic<bool>& stopping, std::atomic<bool>& lost, metrics::Gauge* leading) {
  if (!elector.Acquire([&] { return stopping.load(); })) return;
  leading->Set(1);
  // As kube-scheduler, a leader that lost its lease exits; its fence already keeps binds and
  // evictions from going out, and its loop stops. Unlike kube-scheduler, which drops them, it
  // first gives the events of what it did up to 15 s to reach the server (the chaos soak found
  // Scheduled events lost so after a network cut).
  elector.KeepRenewing([&lost, &events] {
    KLOG_ERROR("Leaderelection lost");
    lost = true;
    (void)events.WaitIdle(absl::Seconds(15));
    std::_Exit(1);
  });
  // Unlike kube-scheduler, a new leader lists the pods afresh before it schedules: a standby's
  // watch may lag behind its predecessor's binds (a backoff after a fault, a slow link), and a
  // node would then look emptier than it is (the chaos soak saw one overcommitted so).
  while (!stopping && !lost && !informers.ResyncPods(absl::Seconds(30))) {
    KLOG_WARNING("Pods not yet listed afresh since the lease was acquired; still waiting");
  }
  KLOG(2, "Pods listed afresh; scheduling");
}

}  // namespace

int RunScheduler(const RunFlags& flags, const features::FeatureGates& gates,
                 const Registry& registry) {
  TuneMalloc();
  // SIGTERM and SIGINT are taken by one thread (started below); every thread started from here on
  // inherits the blocked mask.
  ShutdownSignals signals;
  absl::StatusOr<config::Configuration> cfg = EffectiveConfiguration(flags, registry);
  if (!cfg.ok()) return Fail(std::string(cfg.status().message()));
  absl::StatusOr<client::LeaderElectionOptions> election =
      LeaderElectionFrom(flags, &cfg->leader_election);
  if (!election.ok()) return Fail(std::string(election.status().message()));
  if (!flags.write_config_to.empty()) {
    absl::Status written = WriteConfig(*cfg, flags.write_config_to);
    return written.ok() ? 0 : Fail(std::string(written.message()));
  }
  metrics::Registry metrics_registry;
  metrics::AddProcessMetrics(&metrics_registry);
  RecordFeatureGates(gates, &metrics_registry);
  client::RestClientMetrics rest_metrics(metrics_registry);
  absl::StatusOr<Connections> connections = Connect(flags, *cfg, &rest_metrics);
  if (!connections.ok()) return Fail(std::string(connections.status().message()));
  std::unique_ptr<client::HttpClient>& http = connections->api;
  absl::StatusOr<std::string> client_ca = flags.serving.secure_port == 0
                                              ? absl::StatusOr<std::string>("")
                                              : ClientCa(flags.serving, connections->Authn());
  if (!client_ca.ok()) return Fail(std::string(client_ca.status().message()));

  signals.Start();
  const std::atomic<bool>& stopping = signals.received();

  std::unique_ptr<client::LeaderElector> elector;
  std::atomic<bool> lost{false};  // The lease, once held, was lost: stop scheduling.
  if (cfg->leader_election.leader_elect) {
    elector = std::make_unique<client::LeaderElector>(*connections->election, *election);
  }
  client::ApiWriter writer(
      *http,
      {.hostname = Hostname(),
       .on_write_error =
           [](const std::string& what, const absl::Status& st) {
             KLOG_ERROR("Write failed", {"what", what}, {"err", std::string(AsStd(st.message()))});
           },
       .may_write =
           [&elector] { return elector == nullptr ? absl::OkStatus() : elector->Leading(); },
       .events = connections->events.get()});
  metrics::Gauge* leading =
      metrics_registry
          .AddGauge("leader_election_master_status",
                    "Gauge of if the reporting system is master of the relevant lease, 0 "
                    "indicates backup, 1 indicates master. 'name' is the string used to identify "
                    "the lease. Please make sure to group by name.",
                    metrics::Stability::kAlpha, {"name"})
          .With({election->name});
  std::unique_ptr<scheduler::ExplainRecords> explain;
  std::vector<scheduler::AttemptObserver*> observers;
  if (flags.explain_memory_mib > 0) {
    explain = std::make_unique<scheduler::ExplainRecords>(scheduler::ExplainOptions{
        .max_bytes = static_cast<size_t>(flags.explain_memory_mib) << 20});
    observers.push_back(explain.get());
  }
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> sched = scheduler::Scheduler::Create(
      {.config = *cfg,
       .writer = &writer,
       .binding_threads = kMaxBindingCycles,
       .observers = std::move(observers),
       .metrics_registry = &metrics_registry,
       .simulator_annotations = flags.simulator_annotations,
       .nominated_node_name_for_expectation = gates.Enabled("NominatedNodeNameForExpectation"),
       .opportunistic_batching = gates.Enabled("OpportunisticBatching"),
       .throttle = [&http] { (void)http->WaitForFewer(kMaxOutstandingRequests, absl::Seconds(1)); },
       .generic_workload = gates.Enabled("GenericWorkload"),
       .topology_aware_workload_scheduling = gates.Enabled("TopologyAwareWorkloadScheduling"),
       .pod_group_preemption_policy = gates.Enabled("PodGroupPreemptionPolicy")},
      registry);
  if (!sched.ok()) {
    return Fail(std::string(sched.status().message()));
  }
  scheduler::Scheduler& s = **sched;
  KLOG(0, "Starting Kubernetes Scheduler", {"version", ThisVersion().version});

  // Served from the start, as upstream: a standby replica is live, and ready once synced.
  client::ApiSource informers(*http, s, writer,
                              [&gates](std::string_view gate) { return gates.Enabled(gate); });
  auth::DelegatingAuthorizer authorizer(connections->Authn(), connections->Authz());
  std::unique_ptr<server::Server> server;
  if (flags.serving.secure_port != 0) {
    absl::StatusOr<std::unique_ptr<server::Server>> started =
        StartServing(flags.serving, *client_ca, *cfg, elector.get(), informers, stopping,
                     metrics_registry, authorizer, explain.get());
    if (!started.ok()) {
      return Fail(std::string(started.status().message()));
    }
    server = std::move(*started);
  }
  informers.Start();
  while (!stopping && !informers.WaitForSync(absl::Milliseconds(200))) {
  }
  if (!stopping) KLOG(2, "Caches are synced");
  if (elector != nullptr && !stopping) {
    Lead(*elector, informers, *connections->events, stopping, lost, leading);
  }

  ScheduleUntilStopped(stopping, lost, s, writer);

  // Stop taking pods; let the binds in flight finish (a failed one is rolled back as usual).
  s.queue().Close();
  s.WaitForBindings();
  informers.Stop();
  if (elector != nullptr) elector->Release();
  leading->Set(0);
  if (server != nullptr) server->Stop();
  // The last events and status patches get a moment to reach the server.
  (void)http->WaitIdle(absl::Seconds(5));
  (void)connections->events->WaitIdle(absl::Seconds(5));
  http.reset();
  KLOG(0, "Scheduler stopped");
  return 0;
}

}  // namespace ksched::cli
