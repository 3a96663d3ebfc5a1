#include "src/cli/run.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "src/base/log.h"
#include "src/base/strings.h"
#include "src/client/cluster_source.h"
#include "src/client/writer.h"
#include "src/config/load.h"
#include "src/plugins/registry.h"

#ifndef KSCHED_VERSION
#define KSCHED_VERSION "0.0.0"
#endif

namespace ksched::app {
namespace {

// Runs each binding cycle on its own thread, as upstream runs each in its own goroutine: a bind
// waits on the network, and the scheduling loop must not. Wait() returns once all have ended.
class BindingThreads {
 public:
  void Run(std::function<void()> cycle) {
    {
      absl::MutexLock lock(&mu_);
      ++in_flight_;
    }
    std::thread([this, cycle = std::move(cycle)] {
      cycle();
      absl::MutexLock lock(&mu_);
      --in_flight_;
    }).detach();
  }

  void Wait() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int* n) { return *n == 0; }, &in_flight_));
  }

 private:
  absl::Mutex mu_;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

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
  cmd->add_option("--logging-format", flags->logging_format, "Log format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-v,--v", flags->verbosity, "Log verbosity (klog levels)");
}

int RunScheduler(const RunFlags& flags) {
  // SIGTERM and SIGINT are taken by one thread (below); every thread started from here on
  // inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  log::Init(flags.logging_format == "json" ? log::Format::kJson : log::Format::kText,
            flags.verbosity);
  Registry registry = plugins::NewInTreeRegistry();
  absl::StatusOr<config::Configuration> cfg =
      flags.config_file.empty() ? config::DefaultEffectiveConfiguration(registry)
                                : config::LoadConfigFile(flags.config_file, registry);
  if (!cfg.ok()) return Fail(std::string(cfg.status().message()));

  client::RestConfigSource source{.kubeconfig = flags.kubeconfig, .context = flags.context};
  if (source.kubeconfig.empty()) source.kubeconfig = cfg->client_connection.kubeconfig;
  absl::StatusOr<client::RestConfig> rest = client::LoadRestConfig(source);
  if (!rest.ok()) return Fail(std::string(rest.status().message()));
  rest->qps = static_cast<float>(cfg->client_connection.qps);
  rest->burst = cfg->client_connection.burst;
  rest->user_agent = fmt::format("ksched/v{}", KSCHED_VERSION);
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(*rest);
  if (!http.ok()) return Fail(std::string(http.status().message()));

  std::atomic<bool> stopping{false};
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    KLOG(0, "Received a signal; shutting down", {"signal", sig});
    stopping = true;
  });

  client::ApiWriter writer(
      **http,
      {.hostname = Hostname(),
       .on_write_error = [](const std::string& what, const absl::Status& st) {
         KLOG_ERROR("Write failed", {"what", what}, {"err", std::string(AsStd(st.message()))});
       }});
  BindingThreads binds;
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> sched = scheduler::Scheduler::Create(
      {.config = *cfg,
       .writer = &writer,
       .run_binding = [&binds](std::function<void()> cycle) { binds.Run(std::move(cycle)); }},
      registry);
  if (!sched.ok()) {
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
    return Fail(std::string(sched.status().message()));
  }
  scheduler::Scheduler& s = **sched;
  KLOG(0, "Starting Kubernetes Scheduler", {"version", "v" KSCHED_VERSION});

  client::ApiSource informers(**http, s, writer);
  informers.Start();
  while (!stopping && !informers.WaitForSync(absl::Milliseconds(200))) {
  }
  if (!stopping) KLOG(2, "Caches are synced");

  absl::Time next_backoff_flush = absl::Now();
  absl::Time next_unschedulable_flush = absl::Now() + absl::Seconds(30);
  while (!stopping) {
    s.ScheduleOne(absl::Milliseconds(100));
    absl::Time now = absl::Now();
    // Upstream's queue runs these every second and every 30 seconds.
    if (now >= next_backoff_flush) {
      s.queue().FlushBackoffQCompleted();
      next_backoff_flush = now + absl::Seconds(1);
    }
    if (now >= next_unschedulable_flush) {
      s.queue().FlushUnschedulablePodsLeftover();
      next_unschedulable_flush = now + absl::Seconds(30);
    }
  }

  // Stop taking pods; let the binds in flight finish (a failed one is rolled back as usual).
  s.queue().Close();
  binds.Wait();
  informers.Stop();
  signal_thread.join();
  // The last events and status patches get a moment to reach the server.
  (void)(*http)->WaitIdle(absl::Seconds(5));
  http->reset();
  KLOG(0, "Scheduler stopped");
  return 0;
}

}  // namespace ksched::app
