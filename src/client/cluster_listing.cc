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
  absl::Status status;
  // Every kind of the table, nodes and pods last, as the informers start. Only nodes and pods are
  // required: a simulation of a cluster whose other lists a user may not read still runs, and
  // says what it left out (the informers of `ksched run` wait for the kinds kube-scheduler
  // watches).
  api::ForEachKindPodsLast([&]<typename T>() {
    if (!status.ok()) return;
    if constexpr (std::is_same_v<T, api::Pod>) {
      status = ListInto<T>(http, &s, /*required=*/true, kUnfinishedPods);
    } else {
      status = ListInto<T>(http, &s, /*required=*/std::is_same_v<T, api::Node>);
    }
  });
  if (!status.ok()) return status;
  return s;
}

}  // namespace ksched::client
