#include "src/client/snapshot.h"

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/client/list.h"

namespace ksched::client {
namespace {

// Lists `path` (a whole list in one answer, as the informers list) and appends its objects of
// type T. Objects that do not decode are left out with a warning. A list the server does not
// serve or forbids is a warning too, unless `required`.
template <typename T>
absl::Status ListInto(HttpClient& http, const std::string& path, const std::string& field_selector,
                      bool required, Snapshot* out) {
  std::string query = path;
  if (!field_selector.empty()) query += "?fieldSelector=" + Escape(field_selector);
  HttpResponse r = http.Call({.path = query, .timeout = absl::Minutes(5)});
  if (!r.ok()) {
    absl::Status st = r.ToStatus();
    const std::string why = fmt::format("listing {}: {}", path, AsStd(st.message()));
    if (required || (r.status != 403 && r.status != 404)) return absl::Status(st.code(), why);
    out->warnings.push_back(why + " (left out)");
    return absl::OkStatus();
  }
  simdjson::dom::parser item_parser;
  absl::StatusOr<std::string> version =
      ForEachListItem(&r.body, item_parser, [&](simdjson::dom::element e) {
        T obj;
        if (absl::Status st = DecodeInto(e, &obj); !st.ok()) {
          out->warnings.push_back(fmt::format(
              "{} {}: {} (left out)", path,
              obj.metadata.namespace_.empty() ? obj.metadata.name
                                              : obj.metadata.namespace_ + "/" + obj.metadata.name,
              AsStd(st.message())));
          return;
        }
        out->objects.emplace_back(std::move(obj));
      });
  if (!version.ok()) {
    return absl::DataLossError(
        fmt::format("listing {}: {}", path, AsStd(version.status().message())));
  }
  out->resource_versions.emplace_back(path, *version);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Snapshot> TakeSnapshot(HttpClient& http) {
  Snapshot s;
  const absl::Status statuses[] = {
      ListInto<api::Namespace>(http, "/api/v1/namespaces", "", false, &s),
      ListInto<api::PriorityClass>(http, "/apis/scheduling.k8s.io/v1/priorityclasses", "", false,
                                   &s),
      ListInto<api::Service>(http, "/api/v1/services", "", false, &s),
      ListInto<api::ReplicationController>(http, "/api/v1/replicationcontrollers", "", false, &s),
      ListInto<api::ReplicaSet>(http, "/apis/apps/v1/replicasets", "", false, &s),
      ListInto<api::StatefulSet>(http, "/apis/apps/v1/statefulsets", "", false, &s),
      ListInto<api::PodDisruptionBudget>(http, "/apis/policy/v1/poddisruptionbudgets", "", false,
                                         &s),
      ListInto<api::StorageClass>(http, "/apis/storage.k8s.io/v1/storageclasses", "", false, &s),
      ListInto<api::PersistentVolume>(http, "/api/v1/persistentvolumes", "", false, &s),
      ListInto<api::PersistentVolumeClaim>(http, "/api/v1/persistentvolumeclaims", "", false, &s),
      ListInto<api::CSINode>(http, "/apis/storage.k8s.io/v1/csinodes", "", false, &s),
      ListInto<api::CSIDriver>(http, "/apis/storage.k8s.io/v1/csidrivers", "", false, &s),
      ListInto<api::CSIStorageCapacity>(http, "/apis/storage.k8s.io/v1/csistoragecapacities", "",
                                        false, &s),
      ListInto<api::VolumeAttachment>(http, "/apis/storage.k8s.io/v1/volumeattachments", "", false,
                                      &s),
      ListInto<api::DeviceClass>(http, "/apis/resource.k8s.io/v1/deviceclasses", "", false, &s),
      ListInto<api::ResourceSlice>(http, "/apis/resource.k8s.io/v1/resourceslices", "", false, &s),
      ListInto<api::ResourceClaimTemplate>(http, "/apis/resource.k8s.io/v1/resourceclaimtemplates",
                                           "", false, &s),
      ListInto<api::ResourceClaim>(http, "/apis/resource.k8s.io/v1/resourceclaims", "", false, &s),
      ListInto<api::Node>(http, "/api/v1/nodes", "", true, &s),
      ListInto<api::Pod>(http, "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed", true,
                         &s),
  };
  for (const absl::Status& st : statuses) {
    if (!st.ok()) return st;
  }
  return s;
}

}  // namespace ksched::client
