// The chaos soak's invariant checker. It reads only what the API server says (lists through
// kubectl, the audit log kube-apiserver writes) and shares no code with the scheduler: its own
// quantity parsing, its own sums of requests.
//
//   Invariants inv({.lease_duration = absl::Seconds(15)});
//   for (line : audit.log) inv.AddAuditLine(line);
//   std::vector<Violation> v = inv.CheckBinds();                 // twice-bound, bound by a
//   non-leader v = Invariants::CheckCapacity(nodes_list, pods_list);        // overcommitted nodes
//   v = inv.CheckOutcomes(pods_list, events_list, now);          // stuck pods, missing events
//   inv.NoteFitting(nodes_list, pods_list, now); v = inv.CheckFitting();  // fit, never bound
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace ksched::chaos {

struct Violation {
  // double-bind, non-leader-bind, overcommit, not-decided, no-event, fits-but-pending
  std::string kind;
  std::string detail;
};

// One audit event of the ResponseComplete stage, as far as the checks need it.
struct AuditRecord {
  std::string verb;
  std::string resource;     // "bindings", "pods" (subresource "binding") or "leases"
  std::string subresource;  // "binding" for pods/binding
  std::string ns, name;     // The object's; for a binding, the pod's.
  std::string user;
  int code = 0;
  absl::Time received;   // requestReceivedTimestamp
  absl::Time completed;  // stageTimestamp
  std::string holder;    // A Lease write's spec.holderIdentity.
};

// A line of the audit log; nullopt for lines of another stage or that do not parse.
std::optional<AuditRecord> ParseAuditLine(std::string_view line);

// A resource quantity ("100m", "2", "1.5Gi", "64M") in thousandths; nullopt if it does not parse.
std::optional<int64_t> MilliValue(std::string_view quantity);

class Invariants {
 public:
  struct Options {
    std::string lease_namespace = "kube-system";
    std::string lease_name = "kube-scheduler";
    absl::Duration lease_duration = absl::Seconds(15);
    // A pod older than this must be bound or carry PodScheduled=False.
    absl::Duration decide_within = absl::Seconds(60);
    // A bind's Scheduled event may be missing when its replica was killed (-9) this soon after
    // the bind: no process can send what it holds when it is killed so.
    absl::Duration killed_within = absl::Seconds(2);
    // How long a pending pod may fit a node before it must be bound: longer than a leader's
    // hand-over after a stop (the lease and 10 s) and a cut of the API server.
    absl::Duration fit_within = absl::Seconds(90);
  };
  explicit Invariants(Options options) : options_(std::move(options)) {}

  void AddAuditLine(std::string_view line);
  void Add(const AuditRecord& r);
  // The replica whose client user is `user` was killed (-9) at `at`.
  void AddKill(std::string user, absl::Time at) { kills_.emplace(std::move(user), at); }

  // No pod is bound twice, and every bind comes from the replica whose Lease write came last
  // before it, within the lease duration of that write.
  std::vector<Violation> CheckBinds() const;
  // No node's bound, non-terminal pods request more than its allocatable, of any resource, or
  // more pods than it allows.
  static std::vector<Violation> CheckCapacity(const nlohmann::json& nodes,
                                              const nlohmann::json& pods);
  // Of `pods` (a PodList, read at `now`): each older than decide_within is bound or has
  // PodScheduled=False; each pod the audit log saw bound and `events` (an events.k8s.io list)
  // names has its Scheduled event, and so does every bound pod of the list, unless the replica
  // that bound it was killed within killed_within after the bind (those pods go to
  // `lost_to_kill`, when given).
  std::vector<Violation> CheckOutcomes(const nlohmann::json& pods, const nlohmann::json& events,
                                       absl::Time now,
                                       std::vector<std::string>* lost_to_kill = nullptr) const;

  // Notes which of `pods`' pending pods fit a node of `nodes` as the API server has them at `at`
  // (the node matches the pod's nodeSelector, is schedulable, and has the room its requests
  // ask after the bound pods' requests); a pod that fits at every note for fit_within, and is
  // still pending, is a violation of CheckFitting: a scheduler that lost the event that freed
  // the room keeps it pending where kube-scheduler binds it.
  void NoteFitting(const nlohmann::json& nodes, const nlohmann::json& pods, absl::Time at);
  std::vector<Violation> CheckFitting() const { return fits_but_pending_; }

  int binds() const { return static_cast<int>(binds_.size()); }
  int lease_writes() const { return static_cast<int>(leases_.size()); }
  // Who held the Lease after its last write, per the audit log ("" if nobody).
  std::string leader() const;

 private:
  Options options_;
  std::vector<AuditRecord> binds_;                // Successful ones, in the log's order.
  std::vector<AuditRecord> leases_;               // Successful writes of the scheduler's Lease.
  std::multimap<std::string, absl::Time> kills_;  // By user.
  // Pending pods that fitted at every note since `since`; reported once past fit_within.
  struct Fitting {
    absl::Time since;
    bool reported = false;
  };
  std::map<std::string, Fitting> fitting_;
  std::vector<Violation> fits_but_pending_;
};

}  // namespace ksched::chaos
