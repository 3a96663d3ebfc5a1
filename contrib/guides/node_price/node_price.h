// NodePrice: prefers the cheapest node, by a price annotation on each node (Kelsey Hightower's
// toy scheduler of guide 001, which binds every pod to the node with the lowest
// hightower.com/cost; `annotate-prices` writes those prices). As a Score plugin it ranks
// the nodes the Filters let through, so a pod never lands on a cheap node it does not fit. Not in
// the default profile:
//
//   profiles:
//   - schedulerName: my-custom-scheduler
//     plugins:
//       multiPoint:
//         enabled: [{name: NodePrice, weight: 10}]   # weight: how much price outweighs the rest
//     pluginConfig:                                   # optional; this is the default
//     - name: NodePrice
//       args: {annotationKey: hightower.com/cost}
//
// Scores, after NormalizeScore: a priced node scores 100 * cheapest / its price (so the cheapest
// scores 100 and one twice its price 50), and at least 1; a node without a price scores 0. When
// the cheapest is free (price 0), free nodes score 100 and every other priced node 1.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "contrib/guides/names.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"

namespace ksched::guides::node_price {

// NodePriceArgs.
struct NodePriceArgs {
  std::string annotation_key = "hightower.com/cost";
};

// A price as written in the annotation: a non-negative decimal number ("0.05", "1.6", "2"), at
// most 9e9; nullopt for anything else. In billionths, as an integer: 0.05 is 50'000'000.
std::optional<int64_t> ParsePrice(std::string_view text);

class NodePrice final : public ScorePlugin, public ScoreExtensions {
 public:
  explicit NodePrice(NodePriceArgs args) : args_(std::move(args)) {}

  std::string_view Name() const override { return names::kNodePrice; }

  // The node's price in billionths (ParsePrice), or -1 when it has none. A price that does not
  // parse counts as none and is logged as an error, once per node and value. Thread-safe.
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;

  // Maps the raw prices into [0, 100] as the header comment says.
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;

 private:
  // Logs a price that does not parse, unless this node's value was logged already.
  void LogUnparsable(const std::string& node, const std::string& value);

  const NodePriceArgs args_;
  absl::Mutex mu_;
  // Node name → the unparsable value last logged for it.
  absl::flat_hash_map<std::string, std::string> logged_ ABSL_GUARDED_BY(mu_);
};

// Decodes {annotationKey}; left out (or null), it keeps the default. InvalidArgument names the
// field below `path`. Unknown fields are errors.
absl::StatusOr<NodePriceArgs> ParseNodePriceArgs(const nlohmann::json& args,
                                                 std::string_view path = "");
// The args as a v1 document, the default filled in.
nlohmann::json NodePriceArgsToJson(const NodePriceArgs& args);

absl::StatusOr<std::unique_ptr<Plugin>> New(const NodePriceArgs& args, Handle& handle);

}  // namespace ksched::guides::node_price
