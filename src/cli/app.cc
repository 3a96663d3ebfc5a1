#include "src/cli/app.h"

#include <cstdio>

#include "CLI/CLI.hpp"

#ifndef KSCHED_VERSION
#define KSCHED_VERSION "0.0.0"
#endif

namespace ksched::app {

int Run(int argc, char** argv) {
  CLI::App app{"ksched: a Kubernetes scheduler, compatible with kube-scheduler"};
  app.require_subcommand(0, 1);
  CLI::App* version = app.add_subcommand("version", "Print the version");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  if (version->parsed()) {
    std::printf("ksched version v%s\n", KSCHED_VERSION);
    return 0;
  }
  std::printf("%s", app.help().c_str());
  return 0;
}

}  // namespace ksched::app
