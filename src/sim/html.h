// `ksched simulate --html FILE`: the simulation as one self-contained page (no script, no file or
// font from elsewhere): each node as two bars, CPU and memory, of what its pods request against
// its allocatable (what was running before in grey, what the simulation placed in blue, past
// allocatable in red), with the pods placed there; then the pods left pending with their reasons,
// and the pods preemption evicted.
//
//   std::ofstream(path) << FormatHtml(result, "examples/demo/*.yaml");
#pragma once

#include <string>

#include "src/sim/simulate.h"

namespace ksched::sim {

// `title` names what was simulated (the manifests, or the cluster).
std::string FormatHtml(const SimulationResult& result, const std::string& title);

}  // namespace ksched::sim
