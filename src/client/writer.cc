#include "src/client/writer.h"

#include <algorithm>
#include <future>
#include <memory>
#include <optional>
#include <utility>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/strings.h"
#include "src/api/decode.h"
#include "src/client/json_text.h"

namespace ksched::client {
namespace {

using nlohmann::json;

std::string PodPath(const api::Pod& pod, std::string_view sub) {
  return fmt::format("/api/v1/namespaces/{}/pods/{}/{}", pod.metadata.namespace_, pod.metadata.name,
                     sub);
}

}  // namespace

std::string ApiWriter::BindingBody(const api::Pod& pod, std::string_view node_name) {
  std::string out;
  AppendJsonField(&out, R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":)",
                  pod.metadata.name);
  AppendJsonField(&out, R"(,"namespace":)", pod.metadata.namespace_);
  AppendJsonField(&out, R"(,"uid":)", pod.metadata.uid);
  AppendJsonField(&out, R"(},"target":{"kind":"Node","name":)", node_name);
  out.append("}}");
  return out;
}

HttpRequest ApiWriter::BindingRequest(const api::Pod& pod, std::string_view node_name) const {
  return {.method = "POST",
          .path = PodPath(pod, "binding"),
          .body = BindingBody(pod, node_name),
          .guard = options_.may_write};
}

absl::Status ApiWriter::Bind(const api::Pod& pod, std::string_view node_name) {
  // Where waiting would be a deadlock, Call refuses (and says so).
  if (http_.OnIoThread()) return http_.Call(BindingRequest(pod, node_name)).ToStatus();
  std::promise<absl::Status> answered;
  std::future<absl::Status> answer = answered.get_future();
  BindAsync(pod, node_name, [&answered](absl::Status st) { answered.set_value(std::move(st)); });
  return answer.get();
}

void ApiWriter::BindAsync(const api::Pod& pod, std::string_view node_name,
                          std::function<void(absl::Status)> done) {
  auto send = [&http = http_, request = BindingRequest(pod, node_name),
               done = std::move(done)]() mutable {
    http.Send(std::move(request),
              [done = std::move(done)](const HttpResponse& r) { done(r.ToStatus()); });
  };
  {
    absl::MutexLock lock(&patches_->mu);
    auto it = patches_->pods.find(pod.metadata.uid);
    if (it != patches_->pods.end() && it->second.in_flight) {
      it->second.next.reset();
      it->second.bind = std::move(send);
      return;
    }
  }
  send();
}

json ApiWriter::DeleteBody(const api::Pod& pod) {
  return {{"apiVersion", "v1"},
          {"kind", "DeleteOptions"},
          {"preconditions", {{"uid", pod.metadata.uid}}}};
}

absl::Status ApiWriter::DeletePod(const api::Pod& pod) {
  HttpResponse r = http_.Call({.method = "DELETE",
                               .path = fmt::format("/api/v1/namespaces/{}/pods/{}",
                                                   pod.metadata.namespace_, pod.metadata.name),
                               .body = DeleteBody(pod).dump(),
                               .guard = options_.may_write});
  return r.ToStatus();
}

absl::Status ApiWriter::PatchPodAnnotations(const api::Pod& pod,
                                            const std::map<std::string, std::string>& annotations) {
  std::string what =
      fmt::format("annotations of pod {}/{}", pod.metadata.namespace_, pod.metadata.name);
  http_.Send({.method = "PATCH",
              .path = fmt::format("/api/v1/namespaces/{}/pods/{}", pod.metadata.namespace_,
                                  pod.metadata.name),
              .body = json{{"metadata", {{"annotations", annotations}}}}.dump(),
              .content_type = "application/merge-patch+json",
              .guard = options_.may_write},
             [report = options_.on_write_error, what = std::move(what)](const HttpResponse& r) {
               if (!r.ok() && r.status != 404 && report) report(what, r.ToStatus());
             });
  return absl::OkStatus();
}

absl::Status ApiWriter::SetPodGroupCondition(const api::PodGroup& group, const api::Condition& c,
                                             int64_t generation) {
  std::string what =
      fmt::format("status of podgroup {}/{}", group.metadata.namespace_, group.metadata.name);
  const json condition = {{"type", c.type},
                          {"status", c.status},
                          {"observedGeneration", generation},
                          {"lastTransitionTime", c.last_transition_time},
                          {"reason", c.reason},
                          {"message", c.message}};
  http_.Send(
      {.method = "PATCH",
       .path = fmt::format("/apis/scheduling.k8s.io/v1beta1/namespaces/{}/podgroups/{}/status",
                           group.metadata.namespace_, group.metadata.name),
       .body = json{{"status", {{"conditions", json::array({condition})}}}}.dump(),
       .content_type = "application/strategic-merge-patch+json",
       .guard = options_.may_write},
      [report = options_.on_write_error, what = std::move(what)](const HttpResponse& r) {
        if (!r.ok() && r.status != 404 && report) report(what, r.ToStatus());
      });
  return absl::OkStatus();
}

void ApiWriter::FinishSeries(absl::Time now) {
  events_.FinishSeries(now);
  absl::MutexLock lock(&patches_->mu);
  absl::erase_if(patches_->pods, [&](const auto& kv) {
    return !kv.second.in_flight && now - kv.second.at > absl::Minutes(1);
  });
}

json ApiWriter::StatusPatch(const api::PodCondition& c, const std::string* nominated_node) {
  json cond = {{"type", c.type},
               {"status", c.status},
               {"lastProbeTime", nullptr},
               {"reason", c.reason},
               {"message", c.message},
               {"lastTransitionTime",
                c.last_transition_time.empty() ? json(nullptr) : json(c.last_transition_time)}};
  json status = c.type.empty() ? json::object() : json{{"conditions", json::array({cond})}};
  if (nominated_node != nullptr) {
    status["nominatedNodeName"] = nominated_node->empty() ? json(nullptr) : json(*nominated_node);
  }
  return {{"status", status}};
}

namespace {

// Whether the pod carries the condition (status, reason, message) and nominated node already.
bool HasStatus(const api::Pod& pod, const api::PodCondition& condition,
               const std::string* nominated_node) {
  bool same_nominated =
      nominated_node == nullptr || *nominated_node == pod.status.nominated_node_name;
  return same_nominated &&
         (condition.type.empty() ||
          std::any_of(pod.status.conditions.begin(), pod.status.conditions.end(),
                      [&](const api::PodCondition& c) {
                        return c.type == condition.type && c.status == condition.status &&
                               c.reason == condition.reason && c.message == condition.message;
                      }));
}

HttpRequest StatusPatchRequest(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) {
  return {.method = "PATCH",
          .path = PodPath(pod, "status"),
          .body = ApiWriter::StatusPatch(condition, nominated_node).dump(),
          .content_type = "application/strategic-merge-patch+json"};
}

}  // namespace

absl::Status ApiWriter::UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                                        const std::string* nominated_node) {
  if (HasStatus(pod, condition, nominated_node)) return absl::OkStatus();
  HttpRequest request = StatusPatchRequest(pod, condition, nominated_node);
  request.retries = 5;
  request.retry_delay = options_.status_retry_delay;
  std::string what = fmt::format("status of pod {}/{}", pod.metadata.namespace_, pod.metadata.name);
  {
    absl::MutexLock lock(&patches_->mu);
    StatusPatches::OfPod& p = patches_->pods[pod.metadata.uid];
    const absl::Time now = absl::Now();
    if (p.body == request.body && (p.in_flight || now - p.at < absl::Minutes(1))) {
      p.next.reset();  // What waited is older than what the server has, or is about to.
      return absl::OkStatus();
    }
    if (p.in_flight) {
      p.next = std::move(request);
      p.next_what = std::move(what);
      return absl::OkStatus();
    }
    p = {.in_flight = true, .body = request.body, .at = now};
  }
  SendStatusPatch(patches_, http_, std::move(request), options_.on_write_error, std::move(what),
                  pod.metadata.uid);
  return absl::OkStatus();
}

void ApiWriter::SendStatusPatch(std::shared_ptr<StatusPatches> patches, HttpClient& http,
                                HttpRequest request, WriteErrorHandler report, std::string what,
                                std::string uid) {
  http.Send(std::move(request), [patches, &http, report, what = std::move(what),
                                 uid = std::move(uid)](const HttpResponse& r) mutable {
    if (!r.ok() && report) report(what, r.ToStatus());
    std::function<void()> bind;
    std::optional<HttpRequest> next;
    std::string next_what;
    {
      absl::MutexLock lock(&patches->mu);
      auto it = patches->pods.find(uid);
      if (it == patches->pods.end()) return;
      StatusPatches::OfPod& p = it->second;
      bind = std::exchange(p.bind, nullptr);
      if (r.status == 404) {  // The pod is gone: so is what waited (a bind learns it itself).
        patches->pods.erase(it);
      } else {
        if (!r.ok()) p.body.clear();  // Not taken: an equal patch may go again.
        if (bind || !p.next) {        // A bind goes in place of what waited.
          p.in_flight = false;
          p.next.reset();
        } else {
          next = std::exchange(p.next, std::nullopt);
          next_what = std::move(p.next_what);
          p.body = next->body;
          p.at = absl::Now();
        }
      }
    }
    if (bind) {
      bind();
      return;
    }
    if (!next) return;
    SendStatusPatch(std::move(patches), http, *std::move(next), std::move(report),
                    std::move(next_what), std::move(uid));
  });
}

absl::Status ApiWriter::UpdatePodStatusAndWait(const api::Pod& pod,
                                               const api::PodCondition& condition) {
  if (HasStatus(pod, condition, nullptr)) return absl::OkStatus();
  return http_.Call(StatusPatchRequest(pod, condition, nullptr)).ToStatus();
}

json ApiWriter::VolumeBindingPatch(const api::PersistentVolume& pv,
                                   const api::PersistentVolumeClaim& claim) {
  const api::ObjectMeta& c = claim.metadata;
  json patch = {{"metadata", {{"resourceVersion", pv.metadata.resource_version}}},
                {"spec",
                 {{"claimRef",
                   {{"kind", "PersistentVolumeClaim"},
                    {"apiVersion", "v1"},
                    {"namespace", c.namespace_},
                    {"name", c.name},
                    {"uid", c.uid},
                    {"resourceVersion", c.resource_version}}}}}};
  if (auto it = pv.metadata.annotations.find(api::kAnnBoundByController);
      it != pv.metadata.annotations.end()) {
    patch["metadata"]["annotations"] = {{it->first, it->second}};
  }
  return patch;
}

json ApiWriter::SelectedNodePatch(const api::PersistentVolumeClaim& claim, std::string_view node) {
  return {{"metadata",
           {{"resourceVersion", claim.metadata.resource_version},
            {"annotations", {{api::kAnnSelectedNode, node}}}}}};
}

namespace {

// The object of an answer.
template <typename T>
absl::StatusOr<T> Decoded(const HttpResponse& r, const std::string& path,
                          absl::Status (*decode)(simdjson::dom::element, T*)) {
  if (!r.ok()) return r.ToStatus();
  // One per thread, kept: a parser allocates its buffers for the first document it reads.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (auto err = parser.parse(r.body).get(e)) {
    return absl::InternalError(
        fmt::format("{}: invalid JSON in the answer: {}", path, simdjson::error_message(err)));
  }
  T out;
  if (absl::Status st = decode(e, &out); !st.ok()) {
    return absl::InternalError(fmt::format("{}: {}", path, AsStd(st.message())));
  }
  return out;
}

// PATCHes `path` with a JSON merge patch (or another `content_type`) and decodes the object the
// API server returns.
template <typename T>
absl::StatusOr<T> MergePatch(HttpClient& http, std::string path, const json& patch,
                             absl::Status (*decode)(simdjson::dom::element, T*),
                             const std::function<absl::Status()>& guard,
                             std::string content_type = "application/merge-patch+json") {
  HttpResponse r = http.Call({.method = "PATCH",
                              .path = path,
                              .body = patch.dump(),
                              .content_type = std::move(content_type),
                              .guard = guard});
  return Decoded<T>(r, path, decode);
}

// MergePatch without waiting: `done` gets the object, on the client's I/O thread.
template <typename T>
void MergePatchAsync(HttpClient& http, std::string path, const json& patch,
                     absl::Status (*decode)(simdjson::dom::element, T*),
                     const std::function<absl::Status()>& guard,
                     std::function<void(absl::StatusOr<T>)> done,
                     std::string content_type = "application/merge-patch+json") {
  HttpRequest request{.method = "PATCH",
                      .path = path,
                      .body = patch.dump(),
                      .content_type = std::move(content_type),
                      .guard = guard};
  http.Send(std::move(request), [path = std::move(path), decode, done = std::move(done)](
                                    const HttpResponse& r) { done(Decoded<T>(r, path, decode)); });
}

}  // namespace

absl::StatusOr<api::PersistentVolume> ApiWriter::BindVolumeToClaim(
    const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) {
  return MergePatch<api::PersistentVolume>(
      http_, fmt::format("/api/v1/persistentvolumes/{}", pv.metadata.name),
      VolumeBindingPatch(pv, claim), api::DecodePersistentVolume, options_.may_write);
}

absl::StatusOr<api::PersistentVolumeClaim> ApiWriter::SetSelectedNode(
    const api::PersistentVolumeClaim& claim, std::string_view node) {
  return MergePatch<api::PersistentVolumeClaim>(
      http_,
      fmt::format("/api/v1/namespaces/{}/persistentvolumeclaims/{}", claim.metadata.namespace_,
                  claim.metadata.name),
      SelectedNodePatch(claim, node), api::DecodePersistentVolumeClaim, options_.may_write);
}

namespace {

constexpr char kStrategicMergePatch[] = "application/strategic-merge-patch+json";

json RequirementsJson(const std::vector<api::NodeSelectorRequirement>& reqs) {
  json out = json::array();
  for (const api::NodeSelectorRequirement& r : reqs) {
    json j = {{"key", r.key}, {"operator", r.op}};
    if (!r.values.empty()) j["values"] = r.values;
    out.push_back(std::move(j));
  }
  return out;
}

json TolerationsJson(const std::vector<api::DeviceToleration>& tolerations) {
  json out = json::array();
  for (const api::DeviceToleration& t : tolerations) {
    json j = {{"operator", t.op}};
    if (!t.key.empty()) j["key"] = t.key;
    if (!t.value.empty()) j["value"] = t.value;
    if (!t.effect.empty()) j["effect"] = t.effect;
    if (t.toleration_seconds) j["tolerationSeconds"] = *t.toleration_seconds;
    out.push_back(std::move(j));
  }
  return out;
}

std::string ClaimPath(const api::ResourceClaim& claim, std::string_view subresource = "") {
  return fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims/{}{}",
                     claim.metadata.namespace_, claim.metadata.name, subresource);
}

}  // namespace

json ApiWriter::AllocationJson(const api::AllocationResult& allocation) {
  json results = json::array();
  for (const api::DeviceRequestAllocationResult& r : allocation.results) {
    json j = {{"request", r.request}, {"driver", r.driver}, {"pool", r.pool}, {"device", r.device}};
    if (r.admin_access) j["adminAccess"] = true;
    if (!r.tolerations.empty()) j["tolerations"] = TolerationsJson(r.tolerations);
    if (r.share_id) j["shareID"] = *r.share_id;
    for (const auto& [name, value] : r.consumed_capacity) {
      j["consumedCapacity"][name] = value.String();
    }
    if (!r.binding_conditions.empty()) j["bindingConditions"] = r.binding_conditions;
    if (!r.binding_failure_conditions.empty()) {
      j["bindingFailureConditions"] = r.binding_failure_conditions;
    }
    results.push_back(std::move(j));
  }
  json config = json::array();
  for (const api::DeviceAllocationConfiguration& c : allocation.config) {
    json j = {
        {"source", c.source},
        {"opaque",
         {{"driver", c.configuration.driver},
          {"parameters",
           json::parse(c.configuration.parameters.empty() ? "{}" : c.configuration.parameters)}}}};
    if (!c.configuration.requests.empty()) j["requests"] = c.configuration.requests;
    config.push_back(std::move(j));
  }
  json out = {{"devices", {{"results", std::move(results)}}}};
  if (!config.empty()) out["devices"]["config"] = std::move(config);
  if (allocation.node_selector) {
    json terms = json::array();
    for (const api::NodeSelectorTerm& t : allocation.node_selector->node_selector_terms) {
      json term = json::object();
      if (!t.match_expressions.empty())
        term["matchExpressions"] = RequirementsJson(t.match_expressions);
      if (!t.match_fields.empty()) term["matchFields"] = RequirementsJson(t.match_fields);
      terms.push_back(std::move(term));
    }
    out["nodeSelector"] = {{"nodeSelectorTerms", std::move(terms)}};
  }
  if (!allocation.allocation_timestamp.empty()) {
    out["allocationTimestamp"] = allocation.allocation_timestamp;
  }
  return out;
}

absl::StatusOr<api::ResourceClaim> ApiWriter::ReserveResourceClaim(
    const api::ResourceClaim& claim, const api::AllocationResult* allocation,
    const api::ResourceClaimConsumerReference& consumer) {
  std::promise<absl::StatusOr<api::ResourceClaim>> promise;
  std::future<absl::StatusOr<api::ResourceClaim>> written = promise.get_future();
  ReserveResourceClaimAsync(
      claim, allocation, consumer,
      [&promise](absl::StatusOr<api::ResourceClaim> r) { promise.set_value(std::move(r)); });
  return written.get();
}

// One ReserveResourceClaimAsync, across its tries.
struct ApiWriter::Reservation {
  ApiWriter* writer;
  std::string key, path;  // The claim's namespace/name, and its path.
  std::optional<api::AllocationResult> allocation;
  api::ResourceClaimConsumerReference consumer;
  std::function<void(absl::StatusOr<api::ResourceClaim>)> done;
  int tries = 0;
};

void ApiWriter::ReserveResourceClaimAsync(
    const api::ResourceClaim& claim, const api::AllocationResult* allocation,
    const api::ResourceClaimConsumerReference& consumer,
    std::function<void(absl::StatusOr<api::ResourceClaim>)> done) {
  auto r = std::make_shared<Reservation>(Reservation{
      .writer = this,
      .key = api::KeyOf(claim.metadata),
      .path = ClaimPath(claim),
      .allocation =
          allocation != nullptr ? std::optional<api::AllocationResult>(*allocation) : std::nullopt,
      .consumer = consumer,
      .done = std::move(done)});
  ReserveOnce(std::move(r), claim);
}

void ApiWriter::ReserveOnce(std::shared_ptr<Reservation> r, const api::ResourceClaim& claim) {
  ++r->tries;
  const api::ResourceClaimConsumerReference& consumer = r->consumer;
  json status = {
      {"reservedFor",
       {{{"resource", consumer.resource}, {"name", consumer.name}, {"uid", consumer.uid}}}}};
  if (!consumer.api_group.empty()) status["reservedFor"][0]["apiGroup"] = consumer.api_group;
  if (r->allocation) {
    status["allocation"] = AllocationJson(*r->allocation);
  } else if (claim.allocation && claim.allocation->allocation_timestamp.empty()) {
    // Allocated by someone who did not say when: now, as upstream's bindClaim fills it in.
    status["allocation"] = {{"allocationTimestamp", api::field::MetaTime(absl::Now())}};
  }
  // Upstream's retry.RetryOnConflict with retry.DefaultRetry: five tries, 10 ms apart.
  auto answered = [r](absl::StatusOr<api::ResourceClaim> written) {
    if (r->tries < 5 && absl::IsAlreadyExists(written.status())) {
      r->writer->ReserveAgain(r);
    } else {
      r->done(std::move(written));
    }
  };
  auto set_status = [r, path = ClaimPath(claim, "/status"), status = std::move(status),
                     answered](const std::string& version) mutable {
    MergePatchAsync<api::ResourceClaim>(
        r->writer->http_, std::move(path),
        {{"metadata", {{"resourceVersion", version}}}, {"status", std::move(status)}},
        api::DecodeResourceClaim, r->writer->options_.may_write, std::move(answered),
        kStrategicMergePatch);
  };
  if (!r->allocation) {
    set_status(claim.metadata.resource_version);
    return;
  }
  // The finalizer first, in the object itself (the status subresource ignores metadata); the
  // strategic merge adds it to those there.
  MergePatchAsync<api::ResourceClaim>(
      http_, r->path,
      {{"metadata",
        {{"resourceVersion", claim.metadata.resource_version},
         {"finalizers", {api::kResourceClaimFinalizer}}}}},
      api::DecodeResourceClaim, options_.may_write,
      [set_status = std::move(set_status),
       answered](absl::StatusOr<api::ResourceClaim> finalized) mutable {
        if (!finalized.ok()) {
          answered(finalized.status());
        } else {
          set_status(finalized->metadata.resource_version);
        }
      },
      kStrategicMergePatch);
}

namespace {

// Whether both allocate the same devices to the same requests: a pod that shares a claim in its
// pod group's cycle finds it allocated by another pod of the group, as it would have allocated
// it.
bool SameDevices(const api::AllocationResult& a, const api::AllocationResult& b) {
  return std::equal(a.results.begin(), a.results.end(), b.results.begin(), b.results.end(),
                    [](const auto& x, const auto& y) {
                      return x.request == y.request && x.driver == y.driver && x.pool == y.pool &&
                             x.device == y.device && x.share_id == y.share_id;
                    });
}

}  // namespace

void ApiWriter::ReserveAgain(std::shared_ptr<Reservation> r) {
  http_.Send({.path = r->path, .delay = absl::Milliseconds(10)}, [r](const HttpResponse& a) {
    absl::StatusOr<api::ResourceClaim> now =
        Decoded<api::ResourceClaim>(a, r->path, api::DecodeResourceClaim);
    const std::string& key = r->key;
    if (!now.ok()) {
      r->done(absl::AbortedError(fmt::format("get updated claim {} after conflict: {}", key,
                                             AsStd(now.status().message()))));
    } else if (now->metadata.deletion_timestamp) {
      r->done(absl::AbortedError(fmt::format("claim {} got deleted in the meantime", key)));
    } else if (r->allocation && now->allocation && !SameDevices(*r->allocation, *now->allocation)) {
      r->done(
          absl::AbortedError(fmt::format("claim {} got allocated elsewhere in the meantime", key)));
    } else if (!r->allocation && !now->allocation) {
      r->done(absl::AbortedError(
          fmt::format("claim {} got deallocated elsewhere in the meantime", key)));
    } else {
      if (now->allocation) r->allocation.reset();  // Only the reservation is left to write.
      r->writer->ReserveOnce(r, *now);
    }
  });
}

absl::Status ApiWriter::UnreserveResourceClaim(const api::ResourceClaim& claim,
                                               std::string_view consumer_uid) {
  return MergePatch<api::ResourceClaim>(
             http_, ClaimPath(claim, "/status"),
             {{"metadata", {{"uid", claim.metadata.uid}}},
              {"status", {{"reservedFor", {{{"$patch", "delete"}, {"uid", consumer_uid}}}}}}},
             api::DecodeResourceClaim, options_.may_write, kStrategicMergePatch)
      .status();
}

json ApiWriter::ExtendedResourceClaimJson(const api::ResourceClaim& claim) {
  json owners = json::array();
  for (const api::OwnerReference& o : claim.metadata.owner_references) {
    owners.push_back({{"apiVersion", o.api_version},
                      {"kind", o.kind},
                      {"name", o.name},
                      {"uid", o.uid},
                      {"controller", o.controller}});
  }
  json requests = json::array();
  for (const api::DeviceRequest& r : claim.spec.requests) {
    if (!r.exactly) continue;  // The scheduler's requests are all `exactly`.
    requests.push_back({{"name", r.name},
                        {"exactly",
                         {{"deviceClassName", r.exactly->device_class_name},
                          {"allocationMode", r.exactly->allocation_mode},
                          {"count", r.exactly->count}}}});
  }
  json meta = {{"namespace", claim.metadata.namespace_}, {"ownerReferences", std::move(owners)}};
  if (!claim.metadata.generate_name.empty()) meta["generateName"] = claim.metadata.generate_name;
  if (!claim.metadata.annotations.empty()) meta["annotations"] = claim.metadata.annotations;
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"metadata", std::move(meta)},
          {"spec", {{"devices", {{"requests", std::move(requests)}}}}}};
}

absl::StatusOr<api::ResourceClaim> ApiWriter::CreateResourceClaim(const api::ResourceClaim& claim) {
  const std::string path = fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims",
                                       claim.metadata.namespace_);
  HttpResponse r = http_.Call({.method = "POST",
                               .path = path,
                               .body = ExtendedResourceClaimJson(claim).dump(),
                               .guard = options_.may_write});
  return Decoded<api::ResourceClaim>(r, path, api::DecodeResourceClaim);
}

absl::Status ApiWriter::DeleteResourceClaim(const api::ResourceClaim& claim) {
  // The finalizer first, as upstream's deleteClaim (a strategic merge takes it out of the list).
  absl::StatusOr<api::ResourceClaim> updated = MergePatch<api::ResourceClaim>(
      http_, ClaimPath(claim),
      {{"metadata", {{"$deleteFromPrimitiveList/finalizers", {api::kResourceClaimFinalizer}}}}},
      api::DecodeResourceClaim, options_.may_write, kStrategicMergePatch);
  if (!updated.ok() && !absl::IsNotFound(updated.status())) {
    return absl::Status(updated.status().code(),
                        fmt::format("update resourceclaim {}: {}", api::KeyOf(claim.metadata),
                                    AsStd(updated.status().message())));
  }
  absl::Status deleted =
      http_.Call({.method = "DELETE", .path = ClaimPath(claim), .guard = options_.may_write})
          .ToStatus();
  if (absl::IsNotFound(deleted)) return absl::OkStatus();
  return deleted;
}

absl::Status ApiWriter::SetExtendedResourceClaimStatus(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  json mappings = json::array();
  for (const api::ContainerExtendedResourceRequest& m : status.request_mappings) {
    mappings.push_back({{"containerName", m.container_name},
                        {"resourceName", m.resource_name},
                        {"requestName", m.request_name}});
  }
  return http_
      .Call({.method = "PATCH",
             .path = PodPath(pod, "status"),
             .body = json{{"status",
                           {{"extendedResourceClaimStatus",
                             {{"requestMappings", std::move(mappings)},
                              {"resourceClaimName", status.resource_claim_name}}}}}}
                         .dump(),
             .content_type = kStrategicMergePatch,
             .guard = options_.may_write})
      .ToStatus();
}

absl::Status ApiWriter::DeallocateResourceClaim(const api::ResourceClaim& claim) {
  return MergePatch<api::ResourceClaim>(
             http_, ClaimPath(claim, "/status"),
             {{"metadata", {{"resourceVersion", claim.metadata.resource_version}}},
              {"status",
               {{"allocation", nullptr}, {"reservedFor", nullptr}, {"devices", nullptr}}}},
             api::DecodeResourceClaim, options_.may_write)
      .status();
}

}  // namespace ksched::client
