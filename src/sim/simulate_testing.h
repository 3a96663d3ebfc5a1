// Test helpers of the sim tests: the embedded cluster's scheduler, with the in-tree plugins (and
// the options' GenericWorkload gate), on decoded objects or on manifest text. A failure to decode
// or to simulate fails the test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/plugins/registry.h"
#include "src/sim/manifests.h"
#include "src/sim/simulate.h"

namespace ksched::sim {

inline SimulationResult SimulateObjects(std::vector<api::Object> objects,
                                        const SimulationOptions& options = {}) {
  Registry registry = plugins::NewInTreeRegistry(
      {.generic_workload = options.generic_workload,
       .topology_aware_workload_scheduling = options.topology_aware_workload_scheduling});
  absl::StatusOr<SimulationResult> result = Simulate(std::move(objects), registry, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : SimulationResult{};
}

inline SimulationResult SimulateYaml(const std::string& yaml,
                                     const SimulationOptions& options = {}) {
  absl::StatusOr<std::vector<api::Object>> objects = ParseManifest(yaml, "test.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? SimulateObjects(*std::move(objects), options) : SimulationResult{};
}

}  // namespace ksched::sim
