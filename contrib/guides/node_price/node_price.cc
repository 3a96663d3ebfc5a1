#include "contrib/guides/node_price/node_price.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "contrib/guides/annotation_key_args.h"
#include "ksched/log.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::guides::node_price {

namespace {

constexpr int64_t kNoPrice = -1;
constexpr double kBillion = 1e9;
constexpr double kMaxPrice = 9e9;  // 9e18 billionths still fit an int64_t.

}  // namespace

std::optional<int64_t> ParsePrice(std::string_view text) {
  double price = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, price, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || !std::isfinite(price) || price < 0 || price > kMaxPrice) {
    return std::nullopt;
  }
  return std::llround(price * kBillion);
}

Status NodePrice::Score(const CycleState&, const api::Pod&, const NodeInfo& node, int64_t* score) {
  if (node.node() == nullptr) return Status::Error("node not found");
  *score = kNoPrice;
  const api::StringMap& annotations = node.node()->metadata.annotations;
  auto it = annotations.find(args_.annotation_key);
  if (it == annotations.end()) return Status();
  if (std::optional<int64_t> price = ParsePrice(it->second)) {
    *score = *price;
  } else {
    LogUnparsable(node.name(), it->second);
  }
  return Status();
}

void NodePrice::LogUnparsable(const std::string& node, const std::string& value) {
  {
    absl::MutexLock lock(&mu_);
    auto [it, added] = logged_.try_emplace(node, value);
    if (!added && it->second == value) return;
    it->second = value;
  }
  KLOG_ERROR("Node price does not parse; the node is scored as having no price", {"node", node},
             {"annotation", args_.annotation_key}, {"value", value});
}

Status NodePrice::NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) {
  int64_t cheapest = std::numeric_limits<int64_t>::max();
  for (const NodeScore& s : scores) {
    if (s.score != kNoPrice) cheapest = std::min(cheapest, s.score);
  }
  for (NodeScore& s : scores) {
    if (s.score == kNoPrice) {
      s.score = kMinNodeScore;
    } else if (s.score == 0) {
      s.score = kMaxNodeScore;  // Free, and so the cheapest.
    } else {
      // cheapest * 100 may not fit an int64_t.
      const __int128 scaled = static_cast<__int128>(cheapest) * kMaxNodeScore / s.score;
      s.score = std::max<int64_t>(1, static_cast<int64_t>(scaled));
    }
  }
  return Status();
}

absl::StatusOr<NodePriceArgs> ParseNodePriceArgs(const nlohmann::json& args,
                                                 std::string_view path) {
  NodePriceArgs out;
  KSCHED_RETURN_IF_ERROR(DecodeAnnotationKeyArgs(args, path, &out.annotation_key));
  return out;
}

nlohmann::json NodePriceArgsToJson(const NodePriceArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "NodePriceArgs"},
          {kAnnotationKeyField, args.annotation_key}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const NodePriceArgs& args, Handle&) {
  return std::make_unique<NodePrice>(args);
}

}  // namespace ksched::guides::node_price
