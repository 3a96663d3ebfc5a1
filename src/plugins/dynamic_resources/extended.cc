#include "src/plugins/dynamic_resources/extended.h"

#include <algorithm>
#include <optional>
#include <set>

#include "fmt/format.h"

namespace ksched::plugins::dynamic_resources {
namespace {

// The quantity as a whole number of units, if it is one (upstream's AsInt64).
std::optional<int64_t> WholeUnits(const api::Quantity& q) {
  constexpr __int128 kNano = 1000000000;
  if (q.NanoValue() % kNano != 0) return std::nullopt;
  const __int128 units = q.NanoValue() / kNano;
  if (units > INT64_MAX || units < INT64_MIN) return std::nullopt;
  return static_cast<int64_t>(units);
}

// The request of container `i` for `resource`, after what the requests `reusable` (null where a
// container asked for none) give it; and the mappings of the container to the requests it uses
// (upstream's createResourceRequestAndMappings).
std::optional<api::DeviceRequest> RequestOf(
    size_t i, const api::Container& c, const std::string& resource, const std::string& class_name,
    const std::vector<const api::DeviceRequest*>& reusable,
    std::vector<api::ContainerExtendedResourceRequest>* mappings) {
  auto it = c.resources.requests.find(resource);
  if (it == c.resources.requests.end()) return std::nullopt;
  const std::optional<int64_t> wanted = WholeUnits(it->second);
  if (!wanted || *wanted == 0) return std::nullopt;
  int64_t sum = 0;
  for (const api::DeviceRequest* r : reusable) {
    if (r == nullptr) continue;
    sum += r->exactly->count;
    mappings->push_back(
        {.container_name = c.name, .resource_name = resource, .request_name = r->name});
    if (sum >= *wanted) return std::nullopt;
  }
  // The resource's index among the container's requests, by name (the map keeps them so).
  const auto index = std::distance(c.resources.requests.begin(), it);
  api::DeviceRequest request{.name = fmt::format("container-{}-request-{}", i, index)};
  request.exactly.emplace();
  request.exactly->device_class_name = class_name;
  request.exactly->count = *wanted - sum;
  mappings->push_back(
      {.container_name = c.name, .resource_name = resource, .request_name = request.name});
  return request;
}

}  // namespace

ExtendedRequests ExtendedRequestsFor(const api::Pod& pod, const std::vector<std::string>& resources,
                                     const DraLister& dra) {
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) containers.push_back(&c);
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  const size_t num_init = pod.spec.init_containers.size();
  auto short_lived = [&](size_t i) {
    return i < num_init && containers[i]->restart_policy.value_or("") != "Always";
  };
  ExtendedRequests out;
  std::vector<std::string> sorted = resources;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& resource : sorted) {
    std::shared_ptr<const api::DeviceClass> cls = dra.ExtendedResourceClass(resource);
    if (cls == nullptr) continue;
    std::vector<api::ContainerExtendedResourceRequest> long_mappings, short_mappings;
    std::vector<std::optional<api::DeviceRequest>> long_requests(containers.size());
    for (size_t i = 0; i < containers.size(); ++i) {
      if (short_lived(i)) continue;
      long_requests[i] =
          RequestOf(i, *containers[i], resource, cls->metadata.name, {}, &long_mappings);
    }
    std::optional<api::DeviceRequest> max_short;
    std::set<std::string> short_names;
    for (size_t i = 0; i < containers.size(); ++i) {
      if (!short_lived(i)) continue;
      std::vector<const api::DeviceRequest*> reusable;
      for (size_t k = i; k < containers.size(); ++k) {
        reusable.push_back(long_requests[k] ? &*long_requests[k] : nullptr);
      }
      std::optional<api::DeviceRequest> r =
          RequestOf(i, *containers[i], resource, cls->metadata.name, reusable, &short_mappings);
      if (!r) continue;
      short_names.insert(r->name);
      if (!max_short || max_short->exactly->count < r->exactly->count) max_short = std::move(r);
    }
    if (max_short && short_names.size() > 1) {
      for (api::ContainerExtendedResourceRequest& m : short_mappings) {
        if (short_names.contains(m.request_name)) m.request_name = max_short->name;
      }
    }
    if (max_short) out.requests.push_back(*std::move(max_short));
    for (std::optional<api::DeviceRequest>& r : long_requests) {
      if (r) out.requests.push_back(*std::move(r));
    }
    out.mappings.insert(out.mappings.end(), long_mappings.begin(), long_mappings.end());
    out.mappings.insert(out.mappings.end(), short_mappings.begin(), short_mappings.end());
  }
  std::stable_sort(out.requests.begin(), out.requests.end(),
                   [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::shared_ptr<const api::ResourceClaim> FindExtendedClaim(const api::Pod& pod,
                                                            const DraLister& dra) {
  for (const auto& claim : dra.ListResourceClaims()) {
    const auto& annotations = claim->metadata.annotations;
    auto it = annotations.find(kExtendedClaimAnnotation);
    if (it == annotations.end() || it->second != "true") continue;
    const auto& owners = claim->metadata.owner_references;
    if (std::any_of(owners.begin(), owners.end(), [&](const api::OwnerReference& o) {
          return o.controller && o.name == pod.metadata.name && o.uid == pod.metadata.uid;
        })) {
      return claim;
    }
  }
  return nullptr;
}

api::ResourceClaim NewExtendedClaim(const api::Pod& pod) {
  api::ResourceClaim claim;
  claim.metadata.name = kExtendedClaimName;
  claim.metadata.generate_name = pod.metadata.name + "-extended-resources-";
  claim.metadata.namespace_ = pod.metadata.namespace_;
  claim.metadata.uid = pod.metadata.uid + "/extended-resources";  // Until the API gives one.
  claim.metadata.annotations[kExtendedClaimAnnotation] = "true";
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = pod.metadata.name,
                                             .uid = pod.metadata.uid,
                                             .controller = true});
  return claim;
}

std::pair<std::shared_ptr<const api::ResourceClaim>, Mappings> ExtendedClaim(
    const api::Pod& pod, const std::vector<std::string>& resources, const DraLister& dra) {
  ExtendedRequests r = ExtendedRequestsFor(pod, resources, dra);
  api::ResourceClaim claim = NewExtendedClaim(pod);
  claim.spec.requests = std::move(r.requests);
  return {std::make_shared<const api::ResourceClaim>(std::move(claim)),
          std::make_shared<const std::vector<api::ContainerExtendedResourceRequest>>(
              std::move(r.mappings))};
}

}  // namespace ksched::plugins::dynamic_resources
