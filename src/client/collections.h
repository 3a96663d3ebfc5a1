// What the informers (api_source.cc) and `simulate --kubeconfig`'s listing (cluster_listing.cc)
// read alike, beyond each kind's collection (api::CollectionPath, src/api/kinds.h).
#pragma once

#include <string_view>


namespace ksched::client {

// The pods a scheduler reads: not those that ended (kube-scheduler's informer's field selector).
inline constexpr std::string_view kUnfinishedPods = "status.phase!=Succeeded,status.phase!=Failed";

}  // namespace ksched::client
