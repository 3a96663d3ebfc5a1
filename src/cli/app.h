// The ksched command line: `ksched [run]`, `ksched simulate`, `ksched version`.
#pragma once

namespace ksched::app {

// Parses the arguments, runs the subcommand and returns the process exit code: 0 on success,
// 1 for bad flags or configuration, 2 for bad input files.
int Run(int argc, char** argv);

}  // namespace ksched::app
