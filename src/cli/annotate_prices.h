// `ksched annotate-prices`: Hightower's annotator (guide 001), which gives nodes a price that the
// NodePrice plugin schedules by. It PATCHes a random price from {0.05, 0.10, 0.20, 0.40, 0.80,
// 1.60} onto every node, or onto the nodes named, and prints "<node> <price>" for each; with
// --list it only prints them ("<none>" for a node without one).
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace ksched::app {

struct AnnotatePricesFlags {
  std::string kubeconfig, context, master;  // As `ksched run` takes them.
  std::string annotation = "hightower.com/cost";
  bool list = false;
  std::vector<std::string> nodes;  // Empty: every node.
};

void AddAnnotatePricesFlags(CLI::App* cmd, AnnotatePricesFlags* flags);
// 0, or 1 with the error on stderr (a bad kubeconfig, an unknown node, a refused patch).
int RunAnnotatePrices(const AnnotatePricesFlags& flags);

}  // namespace ksched::app
