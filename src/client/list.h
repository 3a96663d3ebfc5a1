// Reading lists of API objects, shared by the reflector and the cluster listing: query escaping,
// and a walk over a list's items that builds no tree of the whole list (each kind's decoder is
// in src/api/kinds.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "simdjson.h"
#include "src/api/decode.h"

namespace ksched::client {

// The pods a scheduler reads: not those that ended (kube-scheduler's informer's field selector),
// as the informers (api_source.cc) and `simulate --kubeconfig`'s listing (cluster_listing.cc) both
// list them.
inline constexpr std::string_view kUnfinishedPods = "status.phase!=Succeeded,status.phase!=Failed";

// `s` escaped for a URL's query ("status.phase!=Failed" → "status.phase%21%3DFailed").
std::string Escape(std::string_view s);

// Hands each item of a list (`{"metadata": {...}, "items": [...]}`) to `fn` and returns the list's
// resourceVersion. A list of every pod is megabytes: its items are found without parsing the whole
// list, and each is parsed on its own with `item_parser`, so that the list costs no more memory
// than its text and one item's tree (a DOM parser needs three times the text; simdjson's on-demand
// walk, an index as large as the text).
absl::StatusOr<std::string> ForEachListItem(std::string_view text,
                                            simdjson::dom::parser& item_parser,
                                            const std::function<void(simdjson::dom::element)>& fn);

}  // namespace ksched::client
