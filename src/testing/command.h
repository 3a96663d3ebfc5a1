// Runs a program and captures what it prints, for tests that drive command-line tools (ksched
// itself, kubectl, the control-plane scripts).
//
//   CommandResult r = RunCommand({"kubectl", "get", "nodes", "-o", "name"});
//   EXPECT_EQ(r.exit_code, 0) << r.err;
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::testing {

struct CommandResult {
  // The exit status, or 128 + the signal number if a signal ended the program, or -1 if it could
  // not be started (then `err` says why).
  int exit_code = -1;
  std::string out;  // standard output
  std::string err;  // standard error
};

// Runs argv[0] (looked up in PATH) with `argv` and `input` on its standard input, and waits for it
// to exit. `env` holds extra "NAME=value" entries on top of this process's environment. Blocks the
// calling thread; safe to call from several threads at once. Never throws.
CommandResult RunCommand(const std::vector<std::string>& argv, std::string_view input = {},
                         const std::vector<std::string>& env = {});

// Quotes `argv` for a shell, for messages that show what was run.
std::string ShellQuote(const std::vector<std::string>& argv);

}  // namespace ksched::testing
