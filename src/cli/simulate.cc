#include "src/cli/simulate.h"

#include <cstdio>
#include <fstream>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/api/api_fields.h"
#include "src/cli/feature_gate_flags.h"
#include "src/client/cluster_listing.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/config/load.h"
#include "src/sim/html.h"
#include "src/sim/manifests.h"
#include "src/sim/simulate.h"

namespace ksched::cli {
namespace {

int SimulateFailed(std::string_view why, int code) {
  std::fprintf(stderr, "ksched simulate: %.*s\n", static_cast<int>(why.size()), why.data());
  return code;
}

// The cluster to simulate: the manifests, or a live cluster's snapshot. Sets *code on error: 2 for
// bad input, 1 for a cluster that cannot be read.
absl::StatusOr<std::vector<api::Object>> SimulatedCluster(
    const SimulateFlags& flags, const std::vector<CustomResource>& custom_kinds,
    std::vector<sim::CustomManifestObject>* custom, std::vector<std::string>* warnings, int* code) {
  *code = 2;
  const bool live = !flags.kubeconfig.empty() || !flags.context.empty();
  if (live && !flags.files.empty()) {
    return absl::InvalidArgumentError(
        "manifests or --kubeconfig, not both (--add FILE adds manifests to a live cluster)");
  }
  if (!live) {
    if (flags.files.empty()) {
      return absl::InvalidArgumentError("no cluster: give manifests, or --kubeconfig FILE");
    }
    absl::StatusOr<std::vector<std::string>> paths =
        sim::ManifestPaths(flags.files, flags.recursive);
    if (!paths.ok()) return paths.status();
    return sim::LoadManifests(*paths, flags.what_if.fields, warnings, custom_kinds, custom);
  }
  *code = 1;
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = flags.kubeconfig, .context = flags.context});
  if (!rest.ok()) return rest.status();
  rest->user_agent = "ksched-simulate";
  absl::StatusOr<std::unique_ptr<client::HttpClient>> http = client::HttpClient::Create(*rest);
  if (!http.ok()) return http.status();
  absl::StatusOr<client::ClusterListing> listing = client::ListCluster(**http, custom_kinds);
  if (!listing.ok()) return listing.status();
  for (const std::string& w : listing->warnings) warnings->push_back(w);
  for (auto& [resource, object] : listing->custom) {
    custom->push_back({std::move(resource), std::move(object)});
  }
  // A newer API server's fields: refused as a file's would be, unless --validate says otherwise.
  const sim::FieldValidation validate = flags.what_if.fields;
  if (!listing->unknown_fields.empty() && validate == sim::FieldValidation::kStrict) {
    *code = 2;
    return absl::InvalidArgumentError(fmt::format(
        "{} (a field of a newer Kubernetes than ksched's types, {}; --validate=warn goes on "
        "without it)",
        listing->unknown_fields[0], api::ApiFieldsRelease()));
  }
  if (validate == sim::FieldValidation::kWarn) {
    for (const std::string& u : listing->unknown_fields) warnings->push_back(u);
  }
  return std::move(listing->objects);
}

// What the API server does to a PodGroup by its gates, as it creates one: without
// TopologyAwareWorkloadScheduling it drops spec.schedulingConstraints, without
// DRAWorkloadResourceClaims spec.resourceClaims, without PodGroupPreemptionPolicy
// spec.preemptionPolicy (here too, with a warning: kube-scheduler with the gate off would not read
// them). With PodGroupPreemptionPolicy, the group's policy is
// defaulted to PreemptLowerPriority, then the priority admission plugin refuses it unless it is
// its priority class's (PreemptLowerPriority without one): a group of a class with Never must say
// Never (kube-apiserver v1.37.2).
absl::Status ApplyPodGroupGates(const features::FeatureGates& gates,
                                std::vector<api::Object>* objects,
                                std::vector<std::string>* warnings) {
  std::map<std::string, std::string, std::less<>> class_policy;
  for (const api::Object& object : *objects) {
    if (const auto* pc = std::get_if<api::PriorityClass>(&object)) {
      class_policy[pc->metadata.name] = pc->preemption_policy.value_or("PreemptLowerPriority");
    }
  }
  auto drop = [&](const api::PodGroup& group, std::string_view field, std::string_view gate) {
    warnings->push_back(fmt::format(
        "PodGroup {}/{}: {} is dropped, as the API server drops it, with the {} feature gate off "
        "(--feature-gates GenericWorkload=true,{}=true turns it on)",
        group.metadata.namespace_.empty() ? "default" : group.metadata.namespace_,
        group.metadata.name, field, gate, gate));
  };
  for (api::Object& object : *objects) {
    auto* group = std::get_if<api::PodGroup>(&object);
    if (group == nullptr) continue;
    if (!gates.Enabled("TopologyAwareWorkloadScheduling") && group->scheduling_constraints) {
      group->scheduling_constraints.reset();
      drop(*group, "spec.schedulingConstraints", "TopologyAwareWorkloadScheduling");
    }
    if (!gates.Enabled("DRAWorkloadResourceClaims") && !group->resource_claims.empty()) {
      group->resource_claims.clear();
      drop(*group, "spec.resourceClaims", "DRAWorkloadResourceClaims");
    }
    if (!gates.Enabled("PodGroupPreemptionPolicy")) {
      if (group->preemption_policy) {
        group->preemption_policy.reset();
        drop(*group, "spec.preemptionPolicy", "PodGroupPreemptionPolicy");
      }
      continue;
    }
    // A live cluster's were admitted when they were made.
    if (!group->metadata.resource_version.empty()) continue;
    // The class is resolved already (the global default's name where the group names none).
    auto it = class_policy.find(group->priority_class_name);
    const std::string policy = it == class_policy.end() ? "PreemptLowerPriority" : it->second;
    const std::string given = group->preemption_policy.value_or("PreemptLowerPriority");
    if (given != policy) {
      return absl::InvalidArgumentError(fmt::format(
          "podgroups.scheduling.k8s.io \"{}\" is forbidden: the string value of "
          "PreemptionPolicy ({}) must not be provided in pod group spec; priority admission "
          "controller computed {} from the given PriorityClass name",
          group->metadata.name, given, policy));
    }
    group->preemption_policy = policy;
  }
  return absl::OkStatus();
}

}  // namespace

void AddSimulateFlags(CLI::App* cmd, SimulateFlags* flags) {
  cmd->add_option("--config", flags->config_file, "KubeSchedulerConfiguration file");
  AddFeatureGateFlags(cmd, &flags->feature_gates);
  cmd->add_option("-o,--output", flags->output, "Output format: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag("--explain", flags->explain,
                "Show every node's filter verdict and each plugin's score");
  cmd->add_option("--seed", flags->seed, "Seed for tie-breaks between equal scores");
  cmd->add_flag("--one-at-a-time", flags->one_at_a_time,
                "Give the pending pods to the scheduler one at a time, in queue order, each "
                "once the one before is decided, as pods created one after another arrive");
  cmd->add_option("files", flags->files,
                  "Manifests: YAML or JSON files, objects or lists; a directory's .yaml, .yml "
                  "and .json files; - for standard input");
  cmd->add_option("-f,--filename", flags->filenames,
                  "A manifest, as the positional ones; repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("-R,--recursive", flags->recursive,
                "Read the directories given, and the directories in them, as kubectl -R");
  cmd->add_option("--html", flags->html,
                  "Also write the result as one self-contained page: the nodes' requests "
                  "against their allocatable, the pods placed, the pending ones and why");
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "Simulate a live cluster: a snapshot of it, read with this kubeconfig (the "
                  "cluster is not changed)");
  cmd->add_option("--context", flags->context, "The kubeconfig context to use");
  cmd->add_option("--validate", flags->validate,
                  "Unknown fields in manifests, as kubectl's --validate: strict (true) refuses "
                  "them, warn prints them, ignore (false) drops them")
      ->transform(CLI::IsMember({"strict", "true", "warn", "ignore", "false"}, CLI::ignore_case))
      ->default_str("strict");
  cmd->add_option("--add", flags->what_if.add,
                  "What if these manifests' objects were added (a Deployment, ReplicaSet or "
                  "StatefulSet brings its replicas' pods); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--drain", flags->what_if.drain,
                  "What if this node were drained: cordoned, its pods pending again "
                  "(DaemonSet pods aside); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--cordon", flags->what_if.cordon, "What if this node were cordoned; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--delete-node", flags->what_if.delete_nodes,
                  "What if this node were deleted, its pods pending again; repeatable")
      ->allow_extra_args(false);
}

int RunSimulate(const SimulateFlags& given, const features::FeatureGates& gates,
                const Registry& registry) {
  SimulateFlags flags = given;
  flags.files.insert(flags.files.end(), given.filenames.begin(), given.filenames.end());
  flags.what_if.fields = flags.validate == "warn" ? sim::FieldValidation::kWarn
                         : flags.validate == "ignore" || flags.validate == "false"
                             ? sim::FieldValidation::kIgnore
                             : sim::FieldValidation::kStrict;
  absl::StatusOr<config::Configuration> cfg =
      config::LoadConfigOrDefaults(flags.config_file, registry);
  if (!cfg.ok()) return SimulateFailed(AsStd(cfg.status().message()), 1);
  int code = 0;
  std::vector<std::string> warnings;
  auto warn = [&] {
    for (const std::string& w : warnings)
      std::fprintf(stderr, "ksched simulate: warning: %s\n", w.c_str());
    warnings.clear();
  };
  absl::StatusOr<std::vector<CustomResource>> custom_kinds =
      sim::WatchedCustomResources(*cfg, registry);
  if (!custom_kinds.ok()) return SimulateFailed(AsStd(custom_kinds.status().message()), 1);
  std::vector<sim::CustomManifestObject> custom;
  absl::StatusOr<std::vector<api::Object>> objects =
      SimulatedCluster(flags, *custom_kinds, &custom, &warnings, &code);
  warn();
  if (!objects.ok()) return SimulateFailed(AsStd(objects.status().message()), code);
  // A live cluster, or a change to one, is summed up: the pods left pending, each node's load.
  const bool summed = !flags.kubeconfig.empty() || !flags.context.empty() || !flags.what_if.empty();
  std::vector<sim::NodeLoad> before;
  if (summed) before = sim::LoadsBefore(*objects);
  absl::StatusOr<std::map<std::string, std::string>> moved =
      sim::ApplyWhatIf(flags.what_if, &*objects, &warnings);
  warn();
  if (!moved.ok()) return SimulateFailed(AsStd(moved.status().message()), 2);
  absl::Status admitted = ApplyPodGroupGates(gates, &*objects, &warnings);
  warn();
  if (!admitted.ok()) return SimulateFailed(AsStd(admitted.message()), 2);
  absl::StatusOr<sim::SimulationResult> result = sim::Simulate(
      std::move(*objects), registry,
      {.config = *std::move(cfg),
       .seed = flags.seed,
       .explain = flags.explain,
       .one_at_a_time = flags.one_at_a_time,
       .nominated_node_name_for_expectation = gates.Enabled("NominatedNodeNameForExpectation"),
       .opportunistic_batching = gates.Enabled("OpportunisticBatching"),
       .generic_workload = gates.Enabled("GenericWorkload"),
       .topology_aware_workload_scheduling = gates.Enabled("TopologyAwareWorkloadScheduling"),
       .pod_group_preemption_policy = gates.Enabled("PodGroupPreemptionPolicy"),
       .custom_objects = std::move(custom)});
  if (!result.ok()) return SimulateFailed(AsStd(result.status().message()), 1);
  std::string out;
  if (flags.output == "json") {
    out = sim::FormatJson(*result, flags.explain);
    if (summed) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(out);
      j["summary"] = sim::SummaryJson(sim::Summarize(std::move(before), *result, *moved));
      out = j.dump(2) + "\n";
    }
  } else {
    out = sim::FormatTable(*result, flags.explain);
    if (summed) {
      out += sim::FormatSummaryTable(sim::Summarize(std::move(before), *result, *moved));
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!flags.html.empty()) {
    std::string title = flags.kubeconfig.empty() ? "" : "the cluster of " + flags.kubeconfig;
    for (const std::string& f : flags.files) title += (title.empty() ? "" : " ") + f;
    std::ofstream page(flags.html, std::ios::binary);
    page << sim::FormatHtml(*result, title);
    if (!page.flush()) return SimulateFailed(fmt::format("--html {}: cannot write", flags.html), 1);
  }
  return 0;
}

}  // namespace ksched::cli
