#include "test/e2e/kubelet.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fmt/format.h"

namespace ksched::e2e {
namespace {

using nlohmann::json;

// Whether a resource name is an extended resource (upstream's IsExtendedResourceName): a
// domain-prefixed name outside kubernetes.io, and not a quota's "requests." name.
bool IsExtended(std::string_view name) {
  return name.find('/') != std::string_view::npos &&
         name.find("kubernetes.io/") == std::string_view::npos && !name.starts_with("requests.");
}

}  // namespace

json ExtendedResourcesPatch(const json& node) {
  const json status = node.value("status", json::object());
  const json capacity = status.value("capacity", json::object());
  const json allocatable = status.value("allocatable", json::object());
  json changes = json::object();
  for (const auto& [name, quantity] : capacity.items()) {
    if (IsExtended(name) && allocatable.value(name, json()) != quantity) changes[name] = quantity;
  }
  for (const auto& [name, quantity] : allocatable.items()) {
    if (IsExtended(name) && !capacity.contains(name)) changes[name] = nullptr;
  }
  if (changes.empty()) return nullptr;
  return {{"status", {{"allocatable", changes}}}};
}

absl::Duration PreStopWait(const json& pod) {
  int64_t longest = 0;
  for (const json& c : pod.value("spec", json::object()).value("containers", json::array())) {
    const json sleep = c.value("/lifecycle/preStop/sleep"_json_pointer, json::object());
    longest = std::max<int64_t>(longest, sleep.value("seconds", int64_t{0}));
  }
  const int64_t grace =
      pod.value("metadata", json::object()).value("deletionGracePeriodSeconds", int64_t{0});
  return absl::Seconds(std::min(longest, grace));
}

std::string WithoutPodDeleteStage(std::string_view stages) {
  std::string out;
  for (absl::string_view doc :
       absl::StrSplit(absl::string_view(stages.data(), stages.size()), "\n---\n")) {
    if (absl::StrContains(doc, "\n  name: pod-delete\n")) continue;
    if (absl::StripAsciiWhitespace(doc).empty()) continue;
    if (!out.empty()) out += "\n---\n";
    out.append(doc.data(), doc.size());
  }
  return out + "\n";
}

KubeletStandIn::KubeletStandIn(client::HttpClient& http)
    : http_(http),
      nodes_(http, {.path = "/api/v1/nodes"},
             {.on_add = [this](auto node) { SyncNode(node->metadata.name); },
              .on_update = [this](auto, auto node) { SyncNode(node->metadata.name); }}),
      pods_(http, {.path = "/api/v1/pods", .field_selector = "spec.nodeName!="},
            {.on_add = [this](auto pod) { FinishDeletion(*pod); },
             .on_update = [this](auto, auto pod) { FinishDeletion(*pod); }}) {}

KubeletStandIn::~KubeletStandIn() { Stop(); }

void KubeletStandIn::Start() {
  nodes_.Start();
  pods_.Start();
  delayer_ = std::thread([this] { RunDelayedDeletions(); });
}

bool KubeletStandIn::WaitForSync(absl::Duration timeout) {
  return nodes_.WaitForSync(timeout) && pods_.WaitForSync(timeout);
}

void KubeletStandIn::Stop() {
  nodes_.Stop();
  pods_.Stop();
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (delayer_.joinable()) delayer_.join();
}

void KubeletStandIn::RunDelayedDeletions() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    absl::Time next = absl::InfiniteFuture();
    for (auto it = delayed_.begin(); it != delayed_.end();) {
      if (it->second.due <= absl::Now()) {
        Delete(it->second.ns, it->second.name, it->first);  // Sends; does not wait.
        delayed_.erase(it++);
      } else {
        next = std::min(next, it->second.due);
        ++it;
      }
    }
    // Woken by Stop, or by a new deletion that may be due sooner.
    size_t count = delayed_.size();
    auto changed = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return stopping_ || delayed_.size() != count;
    };
    mu_.AwaitWithDeadline(absl::Condition(&changed), next);
  }
}

// Runs on the nodes' reflector thread; a node changes seldom, so it reads the node whole (the
// quantities as the API wrote them) before it patches.
void KubeletStandIn::SyncNode(const std::string& name) {
  const std::string path = "/api/v1/nodes/" + name;
  client::HttpResponse got = http_.Call({.path = path});
  if (!got.ok()) return;  // Gone, or the next event of the node brings it here again.
  json patch = ExtendedResourcesPatch(json::parse(got.body, nullptr, false));
  if (patch.is_null()) return;
  client::HttpResponse r = http_.Call({.method = "PATCH",
                                       .path = path + "/status",
                                       .body = patch.dump(),
                                       .content_type = "application/merge-patch+json"});
  if (!r.ok()) {
    std::cerr << fmt::format("kubelet stand-in: patching the allocatable of node {}: {}\n", name,
                             r.ToStatus().ToString());
  }
}

// Runs on the pods' reflector thread.
void KubeletStandIn::FinishDeletion(const api::Pod& pod) {
  if (!pod.metadata.deletion_timestamp) return;
  const std::string& ns = pod.metadata.namespace_;
  const std::string& name = pod.metadata.name;
  {
    absl::MutexLock lock(&mu_);
    if (delayed_.contains(pod.metadata.uid)) return;  // Its wait is under way.
  }
  // The hooks and grace period as the API wrote them (the object model keeps neither).
  absl::Duration wait = absl::ZeroDuration();
  client::HttpResponse got =
      http_.Call({.path = fmt::format("/api/v1/namespaces/{}/pods/{}", ns, name)});
  if (got.ok()) wait = PreStopWait(json::parse(got.body, nullptr, false));
  if (wait <= absl::ZeroDuration()) {
    Delete(ns, name, pod.metadata.uid);
    return;
  }
  absl::MutexLock lock(&mu_);
  delayed_[pod.metadata.uid] = {.ns = ns, .name = name, .due = absl::Now() + wait};
}

void KubeletStandIn::Delete(const std::string& ns, const std::string& name,
                            const std::string& uid) {
  json options = {{"apiVersion", "v1"},
                  {"kind", "DeleteOptions"},
                  {"gracePeriodSeconds", 0},
                  {"preconditions", {{"uid", uid}}}};
  std::string key = ns + "/" + name;
  http_.Send({.method = "DELETE",
              .path = fmt::format("/api/v1/namespaces/{}/pods/{}", ns, name),
              .body = options.dump()},
             [key](client::HttpResponse r) {
               // 404: gone already; 409: the name is another pod's now.
               if (r.ok() || r.status == 404 || r.status == 409) return;
               std::cerr << fmt::format("kubelet stand-in: deleting pod {}: {}\n", key,
                                        r.ToStatus().ToString());
             });
}

}  // namespace ksched::e2e
