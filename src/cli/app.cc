#include "ksched/app.h"

#include <cstdio>

#include "CLI/CLI.hpp"
#include "absl/synchronization/mutex.h"
#include "ksched/strings.h"
#include "src/api/yaml.h"
#include "src/base/log.h"
#include "src/cli/explain.h"
#include "src/cli/feature_gate_flags.h"
#include "src/cli/plugin_library.h"
#include "src/cli/run.h"
#include "src/cli/simulate.h"
#include "src/cli/version.h"
#include "src/config/load.h"
#include "src/plugins/registry.h"

#ifndef KSCHED_VERSION
#define KSCHED_VERSION "0.0.0"
#endif

namespace ksched::app {

// The subcommands, each in its own file of src/cli.
using cli::AddExplainFlags;
using cli::AddRunFlags;
using cli::AddSimulateFlags;
using cli::ExplainFlags;
using cli::FeatureGatesFromFlags;
using cli::LoadPluginLibrary;
using cli::PluginFeatures;
using cli::RunExplain;
using cli::RunFlags;
using cli::RunScheduler;
using cli::RunSimulate;
using cli::SimulateFlags;
using cli::ThisVersion;
using cli::VersionInfo;
using cli::VersionJson;
using cli::VersionText;

namespace {

int RunConfigPrint(const std::string& file, const Registry& registry) {
  absl::StatusOr<config::Configuration> cfg = config::LoadConfigOrDefaults(file, registry);
  if (!cfg.ok()) {
    std::fprintf(stderr, "ksched config print: %s\n", std::string(cfg.status().message()).c_str());
    return 1;
  }
  std::string out = api::JsonToYaml(config::EncodeConfiguration(*cfg));
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

// The in-tree plugins, then the options' and the plugin libraries'.
absl::StatusOr<Registry> BuildRegistry(Registry registry, const std::vector<Option>& options,
                                       const std::vector<std::string>& libraries) {
  for (const Option& option : options) {
    if (absl::Status st = option(registry); !st.ok()) return st;
  }
  for (const std::string& path : libraries) {
    if (absl::Status st = LoadPluginLibrary(path, registry); !st.ok()) return st;
  }
  return registry;
}

}  // namespace

Option WithPlugin(PluginSpec spec) {
  return [spec = std::move(spec)](Registry& r) { return r.Register(spec); };
}

Option WithPlugin(std::string name, PluginFactory factory) {
  return WithPlugin({.name = std::move(name), .factory = std::move(factory)});
}

int Run(int argc, char** argv, const std::vector<Option>& options) {
  // Debian's abseil is built with its Mutex deadlock detector on: every lock taken while another
  // is held records a lock-order edge with a stack trace in one global graph. That is a debugging
  // aid, which the unit tests keep; the scheduler itself runs without it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // `--version` (and `--version=raw`), as kube-scheduler's: printed before anything else.
  const VersionInfo v = ThisVersion();
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--version" || arg == "--version=true") {
      std::printf("ksched %s (kube-scheduler %s)\n", v.version.c_str(), v.kubernetes.c_str());
      return 0;
    }
    if (arg == "--version=raw") {
      std::printf("%s", VersionJson(v).c_str());
      return 0;
    }
  }
  // `ksched [flags]` is `ksched run [flags]`, as kube-scheduler takes its flags with no command.
  std::vector<char*> args(argv, argv + argc);
  static char run_word[] = "run";
  if (argc == 1 || (argv[1][0] == '-' && std::string_view(argv[1]) != "-h" &&
                    std::string_view(argv[1]) != "--help")) {
    args.insert(args.begin() + 1, run_word);
  }

  CLI::App app{"ksched: a Kubernetes scheduler, compatible with kube-scheduler"};
  app.require_subcommand(0, 1);
  CLI::App* version = app.add_subcommand(
      "version",
      "Print ksched's version, its commit, the Kubernetes version it decides as and "
      "its plugin SDK");
  std::string version_output = "text";
  version->add_option("-o,--output", version_output, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));

  std::vector<std::string> plugin_libraries;
  auto add_plugin_library_flag = [&](CLI::App* cmd) {
    cmd->add_option("--plugin-library", plugin_libraries,
                    "A shared library of plugins to load at start (repeatable)")
        ->allow_extra_args(false);
  };
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand(
      "run", "Schedule the pods of a real cluster (the default when no command is given)");
  AddRunFlags(run, &run_flags);
  add_plugin_library_flag(run);

  SimulateFlags sim_flags;
  CLI::App* simulate = app.add_subcommand(
      "simulate", "Schedule the pending pods of manifests on an embedded cluster and report");
  AddSimulateFlags(simulate, &sim_flags);
  add_plugin_library_flag(simulate);

  std::string print_config_file;
  CLI::App* config_cmd = app.add_subcommand("config", "Work with KubeSchedulerConfiguration files");
  config_cmd->require_subcommand(1);
  CLI::App* print = config_cmd->add_subcommand(
      "print", "Print the effective configuration (defaults applied) as YAML");
  print->add_option("--config", print_config_file, "KubeSchedulerConfiguration file");
  add_plugin_library_flag(print);

  ExplainFlags explain_flags;
  CLI::App* explain = app.add_subcommand(
      "explain", "Ask a running ksched why a pod is pending, or why it went to its node");
  AddExplainFlags(explain, &explain_flags);

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  if (version->parsed()) {
    std::printf("%s", (version_output == "json" ? VersionJson(v) : VersionText(v)).c_str());
    return 0;
  }
  if (explain->parsed()) return RunExplain(explain_flags);
  if (!run->parsed() && !simulate->parsed() && !print->parsed()) {
    std::printf("%s", app.help().c_str());
    return 0;
  }
  if (run->parsed()) {  // From here on, so that loading plugin libraries is logged too.
    log::Init(run_flags.logging_format == "json" ? log::Format::kJson : log::Format::kText,
              run_flags.verbosity);
  }
  // The gates first, as kube-scheduler sets them before anything else: the in-tree plugins are
  // made as they say.
  absl::StatusOr<features::FeatureGates> gates = features::FeatureGates();
  if (run->parsed() || simulate->parsed()) {
    gates =
        FeatureGatesFromFlags(run->parsed() ? run_flags.feature_gates : sim_flags.feature_gates);
  }
  if (!gates.ok()) {
    std::fprintf(stderr, "ksched%s: %s\n", simulate->parsed() ? " simulate" : "",
                 std::string(gates.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<Registry> registry =
      BuildRegistry(plugins::NewInTreeRegistry(PluginFeatures(*gates)), options, plugin_libraries);
  if (!registry.ok()) {
    std::fprintf(stderr, "ksched: %s\n", std::string(registry.status().message()).c_str());
    return 1;
  }
  if (run->parsed()) return RunScheduler(run_flags, *gates, *registry);
  if (simulate->parsed()) return RunSimulate(sim_flags, *gates, *registry);
  if (print->parsed()) return RunConfigPrint(print_config_file, *registry);
  std::printf("%s", app.help().c_str());
  return 0;
}

}  // namespace ksched::app
