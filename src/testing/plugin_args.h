// Table tests of the plugins' ArgsDecoders (ksched/registry.h): a document decoded under a path,
// and what a user sees of it, the complete args document or the error message.
//
//   const std::vector<ArgsCase> cases = {
//       {"weight above 100", R"({"hardPodAffinityWeight": 101})", "",
//        "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
//   };
//   for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(DecodeArgs, c), c.want) << c.name;
#pragma once

#include <string>

#include "absl/status/status.h"
#include "ksched/registry.h"
#include "nlohmann/json.hpp"
#include "src/base/strings.h"

namespace ksched::testing {

struct ArgsCase {
  std::string name;
  std::string doc;   // The args as JSON.
  std::string path;  // The args object's own path: "" or "profiles[0].pluginConfig[0].args".
  std::string want;  // The encoded args (nlohmann's compact dump) or the error message.
};

// The decoded document as compact JSON, or the error's message. A code other than
// InvalidArgument, which args errors must have, shows in full.
inline std::string DecodedOrError(const ArgsDecoder& decode, const ArgsCase& c) {
  absl::StatusOr<nlohmann::json> out = decode(nlohmann::json::parse(c.doc), c.path);
  if (out.ok()) return out->dump();
  const absl::Status& s = out.status();
  return s.code() == absl::StatusCode::kInvalidArgument ? std::string(AsStd(s.message()))
                                                        : s.ToString();
}

}  // namespace ksched::testing
