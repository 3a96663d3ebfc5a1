#include "ksched/app.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/api/api_fields.h"
#include "src/api/yaml.h"
#include "src/base/log.h"
#include "src/cli/explain.h"
#include "src/cli/plugin_library.h"
#include "src/cli/run.h"
#include "src/cli/version.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/client/snapshot.h"
#include "src/config/load.h"
#include "src/plugins/registry.h"
#include "src/sim/html.h"
#include "src/sim/manifests.h"
#include "src/sim/simulate.h"
#include "src/sim/what_if.h"

#ifndef KSCHED_VERSION
#define KSCHED_VERSION "0.0.0"
#endif

namespace ksched::app {
namespace {

struct SimulateFlags {
  std::string config_file;
  std::string output = "table";
  bool explain = false;
  bool one_at_a_time = false;
  uint64_t seed = 1;
  std::vector<std::string> files;
  bool recursive = false;           // Into the directories among `files`.
  std::string kubeconfig, context;  // A live cluster instead of the files.
  std::string html;                 // Where to write the page too.
  sim::WhatIf what_if;
};

// The effective configuration: the file's, or the defaults. Nothing starts unless it is valid.
absl::StatusOr<config::Configuration> LoadConfig(const std::string& file,
                                                 const Registry& registry) {
  if (file.empty()) return config::DefaultEffectiveConfiguration(registry);
  return config::LoadConfigFile(file, registry);
}

int SimulateFailed(std::string_view why, int code) {
  std::fprintf(stderr, "ksched simulate: %.*s\n", static_cast<int>(why.size()), why.data());
  return code;
}

// The cluster to simulate: the manifests, or a live cluster's snapshot. Sets *code on error: 2 for
// bad input, 1 for a cluster that cannot be read.
absl::StatusOr<std::vector<api::Object>> SimulatedCluster(const SimulateFlags& flags,
                                                          std::vector<std::string>* warnings,
                                                          int* code) {
  *code = 2;
  const bool live = !flags.kubeconfig.empty() || !flags.context.empty();
  if (live && !flags.files.empty()) {
    return absl::InvalidArgumentError(
        "manifests or --kubeconfig, not both (--add FILE adds manifests to a live cluster)");
  }
  if (!live) {
    if (flags.files.empty()) {
      return absl::InvalidArgumentError("no cluster: give manifests, or --kubeconfig FILE");
    }
    absl::StatusOr<std::vector<std::string>> paths =
        sim::ManifestPaths(flags.files, flags.recursive);
    if (!paths.ok()) return paths.status();
    return sim::LoadManifests(*paths, flags.what_if.fields, warnings);
  }
  *code = 1;
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = flags.kubeconfig, .context = flags.context});
  if (!rest.ok()) return rest.status();
  rest->user_agent = "ksched-simulate";
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(*rest);
  if (!http.ok()) return http.status();
  absl::StatusOr<client::Snapshot> snapshot = client::TakeSnapshot(**http);
  if (!snapshot.ok()) return snapshot.status();
  for (const std::string& w : snapshot->warnings) warnings->push_back(w);
  // A newer API server's fields: refused as a file's would be, unless --validate says otherwise.
  const sim::FieldValidation validate = flags.what_if.fields;
  if (!snapshot->unknown_fields.empty() && validate == sim::FieldValidation::kStrict) {
    *code = 2;
    return absl::InvalidArgumentError(fmt::format(
        "{} (a field of a newer Kubernetes than ksched's types, {}; --validate=warn goes on "
        "without it)",
        snapshot->unknown_fields[0], api::ApiFieldsRelease()));
  }
  if (validate == sim::FieldValidation::kWarn) {
    for (const std::string& u : snapshot->unknown_fields) warnings->push_back(u);
  }
  return std::move(snapshot->objects);
}

int RunSimulate(const SimulateFlags& flags, const Registry& registry) {
  absl::StatusOr<config::Configuration> cfg = LoadConfig(flags.config_file, registry);
  if (!cfg.ok()) return SimulateFailed(AsStd(cfg.status().message()), 1);
  int code = 0;
  std::vector<std::string> warnings;
  auto warn = [&] {
    for (const std::string& w : warnings)
      std::fprintf(stderr, "ksched simulate: warning: %s\n", w.c_str());
    warnings.clear();
  };
  absl::StatusOr<std::vector<api::Object>> objects = SimulatedCluster(flags, &warnings, &code);
  warn();
  if (!objects.ok()) return SimulateFailed(AsStd(objects.status().message()), code);
  // A live cluster, or a change to one, is summed up: the pods left pending, each node's load.
  const bool summed = !flags.kubeconfig.empty() || !flags.context.empty() || !flags.what_if.empty();
  std::vector<sim::NodeLoad> before;
  if (summed) before = sim::LoadsBefore(*objects);
  absl::StatusOr<std::map<std::string, std::string>> moved =
      sim::ApplyWhatIf(flags.what_if, &*objects, &warnings);
  warn();
  if (!moved.ok()) return SimulateFailed(AsStd(moved.status().message()), 2);
  absl::StatusOr<sim::SimulationResult> result =
      sim::Simulate(std::move(*objects), registry,
                    {.config = *std::move(cfg),
                     .seed = flags.seed,
                     .explain = flags.explain,
                     .one_at_a_time = flags.one_at_a_time});
  if (!result.ok()) return SimulateFailed(AsStd(result.status().message()), 1);
  std::string out;
  if (flags.output == "json") {
    out = sim::FormatJson(*result, flags.explain);
    if (summed) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(out);
      j["summary"] = sim::SummaryJson(sim::Summarize(std::move(before), *result, *moved));
      out = j.dump(2) + "\n";
    }
  } else {
    out = sim::FormatTable(*result, flags.explain);
    if (summed) {
      out += sim::FormatSummaryTable(sim::Summarize(std::move(before), *result, *moved));
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!flags.html.empty()) {
    std::string title = flags.kubeconfig.empty() ? "" : "the cluster of " + flags.kubeconfig;
    for (const std::string& f : flags.files) title += (title.empty() ? "" : " ") + f;
    std::ofstream page(flags.html, std::ios::binary);
    page << sim::FormatHtml(*result, title);
    if (!page.flush()) return SimulateFailed(fmt::format("--html {}: cannot write", flags.html), 1);
  }
  return 0;
}

int RunConfigPrint(const std::string& file, const Registry& registry) {
  absl::StatusOr<config::Configuration> cfg = LoadConfig(file, registry);
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
  simulate->add_option("--config", sim_flags.config_file, "KubeSchedulerConfiguration file");
  simulate->add_option("-o,--output", sim_flags.output, "Output format: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  simulate->add_flag("--explain", sim_flags.explain,
                     "Show every node's filter verdict and each plugin's score");
  simulate->add_option("--seed", sim_flags.seed, "Seed for tie-breaks between equal scores");
  simulate->add_flag("--one-at-a-time", sim_flags.one_at_a_time,
                     "Give the pending pods to the scheduler one at a time, in queue order, each "
                     "once the one before is decided, as pods created one after another arrive");
  simulate->add_option("files", sim_flags.files,
                       "Manifests: YAML or JSON files, objects or lists; a directory's .yaml, .yml "
                       "and .json files; - for standard input");
  std::vector<std::string> filenames;
  simulate->add_option("-f,--filename", filenames, "A manifest, as the positional ones; repeatable")
      ->allow_extra_args(false);
  simulate->add_flag("-R,--recursive", sim_flags.recursive,
                     "Read the directories given, and the directories in them, as kubectl -R");
  simulate->add_option("--html", sim_flags.html,
                       "Also write the result as one self-contained page: the nodes' requests "
                       "against their allocatable, the pods placed, the pending ones and why");
  simulate->add_option("--kubeconfig", sim_flags.kubeconfig,
                       "Simulate a live cluster: a snapshot of it, read with this kubeconfig (the "
                       "cluster is not changed)");
  simulate->add_option("--context", sim_flags.context, "The kubeconfig context to use");
  std::string validate = "strict";
  simulate
      ->add_option("--validate", validate,
                   "Unknown fields in manifests, as kubectl's --validate: strict (true) refuses "
                   "them, warn prints them, ignore (false) drops them")
      ->transform(CLI::IsMember({"strict", "true", "warn", "ignore", "false"}, CLI::ignore_case))
      ->default_str("strict");
  simulate
      ->add_option("--add", sim_flags.what_if.add,
                   "What if these manifests' objects were added (a Deployment, ReplicaSet or "
                   "StatefulSet brings its replicas' pods); repeatable")
      ->allow_extra_args(false);
  simulate
      ->add_option("--drain", sim_flags.what_if.drain,
                   "What if this node were drained: cordoned, its pods pending again "
                   "(DaemonSet pods aside); repeatable")
      ->allow_extra_args(false);
  simulate
      ->add_option("--cordon", sim_flags.what_if.cordon,
                   "What if this node were cordoned; repeatable")
      ->allow_extra_args(false);
  simulate
      ->add_option("--delete-node", sim_flags.what_if.delete_nodes,
                   "What if this node were deleted, its pods pending again; repeatable")
      ->allow_extra_args(false);
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
  absl::StatusOr<Registry> registry =
      BuildRegistry(plugins::NewInTreeRegistry(), options, plugin_libraries);
  if (!registry.ok()) {
    std::fprintf(stderr, "ksched: %s\n", std::string(registry.status().message()).c_str());
    return 1;
  }
  if (run->parsed()) return RunScheduler(run_flags, *registry);
  if (simulate->parsed()) {
    sim_flags.files.insert(sim_flags.files.end(), filenames.begin(), filenames.end());
    sim_flags.what_if.fields = validate == "warn" ? sim::FieldValidation::kWarn
                               : validate == "ignore" || validate == "false"
                                   ? sim::FieldValidation::kIgnore
                                   : sim::FieldValidation::kStrict;
    return RunSimulate(sim_flags, *registry);
  }
  if (print->parsed()) return RunConfigPrint(print_config_file, *registry);
  std::printf("%s", app.help().c_str());
  return 0;
}

}  // namespace ksched::app
