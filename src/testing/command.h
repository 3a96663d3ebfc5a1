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

// A program running in the background (ksched under test), its output going to a log file. The
// destructor kills it (SIGKILL) if it still runs, and reaps it.
//
//   Process ksched({"build/ksched", "--kubeconfig", kc}, dir + "/ksched.log");
//   ...
//   EXPECT_EQ(ksched.Stop(SIGTERM), 0) << ksched.Log();
class Process {
 public:
  // Starts argv[0] (looked up in PATH) with stdout and stderr appended to `log_path`. If it could
  // not be started, pid() is -1 and Log() says why.
  Process(const std::vector<std::string>& argv, std::string log_path,
          const std::vector<std::string>& env = {});
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  int pid() const { return pid_; }
  bool Running();
  // Sends `sig` and waits for the exit; returns the exit code as CommandResult does.
  int Stop(int sig);
  // What the program has printed so far.
  std::string Log() const;

 private:
  int pid_ = -1;
  int exit_code_ = -1;
  std::string log_path_;
  std::string start_error_;
};

// Quotes `argv` for a shell, for messages that show what was run.
std::string ShellQuote(const std::vector<std::string>& argv);

}  // namespace ksched::testing
