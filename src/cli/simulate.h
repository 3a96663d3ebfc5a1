// `ksched simulate`: the scheduler on an embedded cluster made from manifests, or from a snapshot
// of a live cluster, with what-if changes; prints each pod's outcome (a table, JSON, a page).
//
//   ksched simulate --explain examples/demo/nodes.yaml examples/demo/pods.yaml
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "ksched/registry.h"
#include "src/features/feature_gates.h"
#include "src/sim/what_if.h"

namespace ksched::cli {

struct SimulateFlags {
  std::string config_file;
  std::string output = "table";
  bool explain = false;
  bool one_at_a_time = false;
  uint64_t seed = 1;
  std::vector<std::string> files;
  std::vector<std::string> filenames;  // -f, read after `files`.
  bool recursive = false;              // Into the directories among `files`.
  std::string kubeconfig, context;     // A live cluster instead of the files.
  std::string html;                    // Where to write the page too.
  std::string validate = "strict";     // kubectl's --validate: strict (true), warn, ignore (false).
  sim::WhatIf what_if;
  features::Flags feature_gates;  // --feature-gates, --emulated-version, ...
};

void AddSimulateFlags(CLI::App* cmd, SimulateFlags* flags);
// 0; 1 for a bad configuration or a cluster that cannot be read; 2 for bad input, with why on
// stderr.
int RunSimulate(const SimulateFlags& flags, const features::FeatureGates& gates,
                const Registry& registry);

}  // namespace ksched::cli
