// TracedPlugin: a plugin wrapped so that each of its outcomes goes into the attempt's
// SimulatorTrace (the cycle state's, when it has one), as kube-scheduler-simulator wraps every
// plugin (simulator/scheduler/plugin/wrappedplugin.go). The framework runs the wrapper as it runs
// any plugin and knows nothing of the trace; the wrapper serves exactly the extension points the
// plugin serves (Plugin::Serves), and answers what the plugin answers.
//
//   if (trace) plugin = TracePlugin(std::move(plugin));  // when the profile is built
#pragma once

#include <memory>

#include "ksched/plugin.h"

namespace ksched::framework {

std::unique_ptr<Plugin> TracePlugin(std::unique_ptr<Plugin> plugin);

}  // namespace ksched::framework
