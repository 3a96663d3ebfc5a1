// test-extender: the test extender (test_extender.h) as a program, for the README's example and
// for kube-scheduler in the differential harness.
//
//   test-extender --port 38081                      # serves until killed
//   test-extender --port 38081 -- ksched simulate --config ext.yaml nodes.yaml pods.yaml
//                                                   # serves while the command runs; its exit code
//   test-extender --port 38081 --fault 500          # every verb fails so
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "test/extender/test_extender.h"

int main(int argc, char** argv) {
  CLI::App app(
      "A scheduler extender for tests: filter, prioritize, preempt and bind at /ext/<verb>, "
      "by the pods' test-extender/* annotations");
  int port = 38081;
  std::string fault = "none";
  std::vector<std::string> command;
  app.add_option("--port", port, "The port on 127.0.0.1 to serve on");
  app.add_option("--fault", fault, "none, 500, slow, malformed, unknown-node, score-out-of-range");
  app.add_option("command", command, "A command to run while serving (after --)");
  CLI11_PARSE(app, argc, argv);
  using Fault = ksched::testing::TestExtender::Fault;
  const std::map<std::string, Fault> faults = {{"none", Fault::kNone},
                                               {"500", Fault::kError500},
                                               {"slow", Fault::kSlow},
                                               {"malformed", Fault::kMalformed},
                                               {"unknown-node", Fault::kUnknownNode},
                                               {"score-out-of-range", Fault::kScoreOutOfRange}};
  auto f = faults.find(fault);
  if (f == faults.end()) {
    std::fprintf(stderr, "test-extender: --fault %s: unknown fault\n", fault.c_str());
    return 2;
  }
  ksched::testing::TestExtender ext;
  ext.set_fault(f->second);
  if (!ext.Start(port)) {
    std::fprintf(stderr, "test-extender: cannot listen on 127.0.0.1:%d\n", port);
    return 1;
  }
  std::fprintf(stderr, "test-extender: serving %s\n", ext.url().c_str());
  if (command.empty()) {
    pause();
    return 0;
  }
  const pid_t child = fork();
  if (child == 0) {
    std::vector<char*> args;
    for (std::string& a : command) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "test-extender: %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
