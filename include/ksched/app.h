// The ksched command line as a library: your own scheduler is a main.cc of a few lines, with your
// plugins registered beside the in-tree ones, as kube-scheduler's
// app.NewSchedulerCommand(app.WithPlugin(name, factory)) does:
//
//   #include "ksched/app.h"
//   int main(int argc, char** argv) {
//     return ksched::app::Run(argc, argv, {ksched::app::WithPlugin(ksched::MakePluginSpec(
//                                             "TeamAware", ParseArgs, ArgsToJson, NewTeamAware))});
//   }
//
// The binary then is the whole `ksched` command: `run` (the default, every flag of it),
// `simulate`, `config print`, `version`, and `--plugin-library` to load more plugins from shared
// libraries (ksched/plugin_library.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ksched/registry.h"

namespace ksched::app {

// A change to the registry that the command's profiles are built from, applied before anything
// runs. An error stops the start with exit code 1 and the message.
using Option = std::function<absl::Status(Registry&)>;

// Registers a plugin by the name a configuration file uses, with its args decoder when it has one
// (ksched/registry.h, MakePluginSpec), so that its pluginConfig args are decoded, defaulted and
// validated when the configuration is loaded. A name that is taken (an in-tree plugin's, or one
// registered twice) is an error.
Option WithPlugin(PluginSpec spec);
// A plugin whose args reach its factory as written.
Option WithPlugin(std::string name, PluginFactory factory);

// Parses the arguments, runs the subcommand and returns the process exit code: 0 on success, 1
// for bad flags, configuration or plugins, 2 for bad input files.
int Run(int argc, char** argv, const std::vector<Option>& options = {});

}  // namespace ksched::app
