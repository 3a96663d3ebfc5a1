// FitError: why a pod fits no node, and the message kube-scheduler prints for it, as upstream's
// framework.FitError. The scheduler builds one for every pod that fits nowhere; a PostFilter
// plugin that explains its own failure builds one the same way (DefaultPreemption's "0/3 nodes
// are available: 3 No preemption victims found for incoming pod.").
//
//   FitError fe{.num_all_nodes = 3};
//   fe.diagnosis.node_to_status.absent = Status::Unschedulable("Insufficient cpu");
//   fe.Error();  // "0/3 nodes are available: 3 Insufficient cpu."
//
// Thread safety: a value type; not synchronized.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "ksched/plugin.h"

namespace ksched {

// What the filtering of one pod found (upstream's Diagnosis).
struct Diagnosis {
  NodeToStatus node_to_status;
  std::set<std::string, std::less<>> unschedulable_plugins;
  std::set<std::string, std::less<>> pending_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;

  // Records the plugin of a rejecting status among the unschedulable (and pending) plugins.
  void AddPluginStatus(const Status& status);
};

struct FitError {
  int num_all_nodes = 0;
  Diagnosis diagnosis;

  // "0/N nodes are available: <count> <reason>, ...." with the "count reason" strings sorted as
  // Go's sort.Strings sorts them, the PreFilter message instead of the counts when PreFilter
  // rejected the pod, and the PostFilter message appended.
  std::string Error() const;
};

// The message of a pod that found no node because the cluster has none.
inline constexpr char kNoNodesAvailableMsg[] = "no nodes available to schedule pods";

// Events' notes are at most 1024 characters; longer messages end in " ...".
std::string TruncateEventMessage(std::string message);

}  // namespace ksched
