#include "src/client/cluster_listing.h"

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/api/api_fields.h"
#include "src/api/kinds.h"
#include "src/client/list.h"

namespace ksched::client {
namespace {

// Lists the objects of type T (a whole list in one answer, as the informers list) and appends
// them. Objects that do not decode are left out with a warning. A list the server does not serve
// or forbids is a warning too, unless `required`.
template <typename T>
absl::Status ListInto(HttpClient& http, ClusterListing* out, bool required = false,
                      std::string_view field_selector = "") {
  const std::string path = api::CollectionPath<T>();
  std::string query = path;
  if (!field_selector.empty()) query += "?fieldSelector=" + Escape(std::string(field_selector));
  HttpResponse r = http.Call({.path = query, .timeout = absl::Minutes(5)});
  if (!r.ok()) {
    absl::Status st = r.ToStatus();
    const std::string why = fmt::format("listing {}: {}", path, AsStd(st.message()));
    if (required || (r.status != 403 && r.status != 404)) return absl::Status(st.code(), why);
    out->warnings.push_back(why + " (left out)");
    return absl::OkStatus();
  }
  simdjson::dom::parser item_parser;
  const std::string_view kind = api::kKind<T>.name;
  absl::StatusOr<std::string> version =
      ForEachListItem(r.body, item_parser, [&](simdjson::dom::element e) {
        T obj;
        if (absl::Status st = api::kKind<T>.decode(e, &obj); !st.ok()) {
          out->warnings.push_back(fmt::format(
              "{} {}: {} (left out)", path,
              obj.metadata.namespace_.empty() ? obj.metadata.name
                                              : obj.metadata.namespace_ + "/" + obj.metadata.name,
              AsStd(st.message())));
          return;
        }
        for (const std::string& field : api::UnknownFields(e, kind)) {
          out->unknown_fields.push_back(
              fmt::format("{} {}: unknown field \"{}\"", path, api::KeyOf(obj.metadata), field));
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

absl::StatusOr<ClusterListing> ListCluster(HttpClient& http) {
  ClusterListing s;
  const absl::Status statuses[] = {
      ListInto<api::Namespace>(http, &s),
      ListInto<api::PriorityClass>(http, &s),
      ListInto<api::Service>(http, &s),
      ListInto<api::ReplicationController>(http, &s),
      ListInto<api::ReplicaSet>(http, &s),
      ListInto<api::StatefulSet>(http, &s),
      ListInto<api::PodDisruptionBudget>(http, &s),
      ListInto<api::StorageClass>(http, &s),
      ListInto<api::PersistentVolume>(http, &s),
      ListInto<api::PersistentVolumeClaim>(http, &s),
      ListInto<api::CSINode>(http, &s),
      ListInto<api::CSIDriver>(http, &s),
      ListInto<api::CSIStorageCapacity>(http, &s),
      ListInto<api::VolumeAttachment>(http, &s),
      ListInto<api::DeviceClass>(http, &s),
      ListInto<api::ResourceSlice>(http, &s),
      ListInto<api::ResourceClaimTemplate>(http, &s),
      ListInto<api::ResourceClaim>(http, &s),
      ListInto<api::Node>(http, &s, /*required=*/true),
      ListInto<api::Pod>(http, &s, /*required=*/true, kUnfinishedPods),
  };
  for (const absl::Status& st : statuses) {
    if (!st.ok()) return st;
  }
  return s;
}

}  // namespace ksched::client
