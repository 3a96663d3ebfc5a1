#include "src/client/cluster_listing.h"

#include <functional>
#include <memory>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/api/api_fields.h"
#include "src/api/decode.h"
#include "src/api/kinds.h"
#include "src/client/list.h"

namespace ksched::client {
namespace {

// Lists `path` (with `query`, if any) in one answer, as the informers list, and hands each item to
// `each`. A list the server does not serve or forbids is a warning, unless `required`.
absl::Status ListItems(HttpClient& http, const std::string& path, const std::string& query,
                       bool required, ClusterListing* out,
                       const std::function<void(simdjson::dom::element)>& each) {
  HttpResponse r = http.Call({.path = path + query, .timeout = absl::Minutes(5)});
  if (!r.ok()) {
    absl::Status st = r.ToStatus();
    const std::string why = fmt::format("listing {}: {}", path, AsStd(st.message()));
    if (required || (r.status != 403 && r.status != 404)) return absl::Status(st.code(), why);
    out->warnings.push_back(why + " (left out)");
    return absl::OkStatus();
  }
  simdjson::dom::parser item_parser;
  absl::StatusOr<std::string> version = ForEachListItem(r.body, item_parser, each);
  if (!version.ok()) {
    return absl::DataLossError(
        fmt::format("listing {}: {}", path, AsStd(version.status().message())));
  }
  out->resource_versions.emplace_back(path, *version);
  return absl::OkStatus();
}

// A warning for an object of `path` that did not decode, which is left out.
void LeftOut(const std::string& path, const api::ObjectMeta& m, const absl::Status& st,
             ClusterListing* out) {
  out->warnings.push_back(fmt::format("{} {}: {} (left out)", path,
                                      m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name,
                                      AsStd(st.message())));
}

// Lists the objects of type T and appends them.
template <typename T>
absl::Status ListInto(HttpClient& http, ClusterListing* out, bool required = false,
                      std::string_view field_selector = "") {
  const std::string path = api::CollectionPath<T>();
  const std::string query =
      field_selector.empty() ? "" : "?fieldSelector=" + Escape(std::string(field_selector));
  const std::string_view kind = api::kKind<T>.name;
  return ListItems(http, path, query, required, out, [&](simdjson::dom::element e) {
    T obj;
    if (absl::Status st = api::kKind<T>.decode(e, &obj); !st.ok()) {
      LeftOut(path, obj.metadata, st, out);
      return;
    }
    for (const std::string& field : api::UnknownFields(e, kind)) {
      out->unknown_fields.push_back(
          fmt::format("{} {}: unknown field \"{}\"", path, api::KeyOf(obj.metadata), field));
    }
    out->objects.emplace_back(std::move(obj));
  });
}

}  // namespace

absl::StatusOr<ClusterListing> ListCluster(HttpClient& http,
                                           const std::vector<CustomResource>& custom) {
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
  // The custom resources, optional as their CRDs may be absent.
  for (const CustomResource& r : custom) {
    const std::string path = fmt::format("/apis/{}/{}/{}", r.Group(), r.Version(), r.Plural());
    status = ListItems(http, path, "", /*required=*/false, &s, [&](simdjson::dom::element e) {
      auto obj = std::make_shared<CustomObject>();
      if (absl::Status st = api::DecodeCustomObject(e, obj.get()); !st.ok()) {
        LeftOut(path, obj->metadata, st, &s);
        return;
      }
      s.custom.emplace_back(r.resource, std::move(obj));
    });
    if (!status.ok()) return status;
  }
  return s;
}

}  // namespace ksched::client
