#include "src/client/cluster_source.h"

#include "fmt/format.h"
#include "src/base/log.h"
#include "src/base/strings.h"

namespace ksched::client {
namespace {

// The handlers of objects the scheduler keeps by name for plugins: `set` on add and update,
// `remove` on delete; an object that cannot be decoded is logged with its `kind`.
template <typename T>
ReflectorHandlers<T> ByNameHandlers(std::string kind,
                                    std::function<void(std::shared_ptr<const T>)> set,
                                    std::function<void(const T&)> remove) {
  return {.on_add = set,
          .on_update = [set](const std::shared_ptr<const T>&,
                             std::shared_ptr<const T> obj) { set(std::move(obj)); },
          .on_delete = [remove](const std::shared_ptr<const T>& obj) { remove(*obj); },
          .on_decode_error =
              [kind](const T& obj, const absl::Status& st) {
                KLOG_ERROR(fmt::format("Unable to decode {}", kind), {kind, obj.metadata.name},
                           {"err", std::string(AsStd(st.message()))});
              }};
}

}  // namespace

ApiSource::ApiSource(HttpClient& http, ClusterEventSink& s, ClusterWriter& writer)
    : sink_(s),
      writer_(writer),
      nodes_(
          http, {.path = "/api/v1/nodes"},
          {.on_add = [&s](const std::shared_ptr<const api::Node>& n) { s.OnNodeAdd(n); },
           .on_update = [&s](const std::shared_ptr<const api::Node>& o,
                             const std::shared_ptr<const api::Node>& n) { s.OnNodeUpdate(o, n); },
           .on_delete = [&s](const std::shared_ptr<const api::Node>& n) { s.OnNodeDelete(n); },
           .on_decode_error =
               [](const api::Node& n, const absl::Status& st) {
                 KLOG_ERROR("Unable to decode node", {"node", n.metadata.name},
                            {"err", std::string(AsStd(st.message()))});
               }}),
      pods_(
          http,
          {.path = "/api/v1/pods",
           .field_selector = "status.phase!=Succeeded,status.phase!=Failed"},
          {.on_add = [&s](std::shared_ptr<const api::Pod> p) { s.OnPodAdd(std::move(p)); },
           .on_update = [&s](const std::shared_ptr<const api::Pod>& o,
                             std::shared_ptr<const api::Pod> p) { s.OnPodUpdate(o, std::move(p)); },
           .on_delete = [&s](const std::shared_ptr<const api::Pod>& p) { s.OnPodDelete(p); },
           .on_decode_error =
               [this](const api::Pod& p, const absl::Status& st) {
                 KLOG_ERROR("Unable to decode pod",
                            {"pod", p.metadata.namespace_ + "/" + p.metadata.name},
                            {"err", std::string(AsStd(st.message()))});
                 if (p.spec.node_name.empty() && sink_.IsResponsibleFor(p)) {
                   writer_.RecordEvent(
                       p, "Warning", "FailedScheduling", "Scheduling",
                       fmt::format("failed to decode pod: {}", AsStd(st.message())));
                 }
               }}),
      namespaces_(http, {.path = "/api/v1/namespaces"},
                  ByNameHandlers<api::Namespace>(
                      "namespace", [&s](auto ns) { s.OnNamespaceSet(std::move(ns)); },
                      [&s](const api::Namespace& ns) { s.OnNamespaceDelete(ns); })),
      priority_classes_(http,
                        {.path = "/apis/scheduling.k8s.io/v1/priorityclasses", .optional = true},
                        ByNameHandlers<api::PriorityClass>(
                            "priorityClass", [&s](auto pc) { s.OnPriorityClassSet(std::move(pc)); },
                            [&s](const api::PriorityClass& pc) { s.OnPriorityClassDelete(pc); })) {}

void ApiSource::Start() {
  namespaces_.Start();
  priority_classes_.Start();
  nodes_.Start();
  pods_.Start();
}

void ApiSource::Stop() {
  pods_.Stop();
  nodes_.Stop();
  priority_classes_.Stop();
  namespaces_.Stop();
}

bool ApiSource::WaitForSync(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  return namespaces_.WaitForSync(timeout) &&
         priority_classes_.WaitForSync(deadline - absl::Now()) &&
         nodes_.WaitForSync(deadline - absl::Now()) && pods_.WaitForSync(deadline - absl::Now());
}

bool ApiSource::HasSynced() {
  return namespaces_.HasSynced() && priority_classes_.HasSynced() && nodes_.HasSynced() &&
         pods_.HasSynced();
}

}  // namespace ksched::client
