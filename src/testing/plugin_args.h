// Table tests of the plugins' ArgsDecoders (ksched/registry.h): a document decoded under a path,
// and what a user sees of it, the complete args document or the error message. And plugins built
// from an args document as the scheduler builds them: decoded once, then given typed to the
// factory.
//
//   const std::vector<ArgsCase> cases = {
//       {"weight above 100", R"({"hardPodAffinityWeight": 101})", "",
//        "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
//   };
//   const ArgsDecoder decode = MakeArgsDecoder(ParseArgs, ArgsToJson);
//   for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(decode, c), c.want) << c.name;
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "ksched/registry.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/testing/fake_handle.h"

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
  absl::StatusOr<std::shared_ptr<const PluginArgs>> out =
      decode(nlohmann::json::parse(c.doc), c.path);
  if (out.ok()) return (*out)->ToJson().dump();
  const absl::Status& s = out.status();
  return s.code() == absl::StatusCode::kInvalidArgument ? std::string(AsStd(s.message()))
                                                        : s.ToString();
}

// The plugin `factory` builds from `doc` decoded by `decode`, or the decoding error.
inline absl::StatusOr<std::unique_ptr<Plugin>> NewFromArgs(const ArgsDecoder& decode,
                                                           const PluginFactory& factory,
                                                           const nlohmann::json& doc,
                                                           Handle& handle) {
  absl::StatusOr<std::shared_ptr<const PluginArgs>> args = decode(doc, "");
  if (!args.ok()) return args.status();
  return factory(**args, handle);
}

// NewFromArgs as the plugin type P: nullptr, with a test failure, when the args do not decode,
// the factory fails, or it builds another type. The FakeHandle lives only for the call: for
// plugins that do not keep their Handle.
//
//   std::unique_ptr<NodePrice> p = NewPluginAs<NodePrice>(
//       MakeArgsDecoder(ParseNodePriceArgs, NodePriceArgsToJson), TypedFactory<NodePriceArgs>(New),
//       {{"annotationKey", "example.com/price"}});
template <typename P>
std::unique_ptr<P> NewPluginAs(const ArgsDecoder& decode, const PluginFactory& factory,
                               const nlohmann::json& doc = nlohmann::json::object()) {
  FakeHandle handle;
  absl::StatusOr<std::unique_ptr<Plugin>> plugin = NewFromArgs(decode, factory, doc, handle);
  if (!plugin.ok()) {
    ADD_FAILURE() << doc.dump() << ": " << plugin.status();
    return nullptr;
  }
  P* typed = dynamic_cast<P*>(plugin->get());
  if (typed == nullptr) {
    ADD_FAILURE() << "the factory built " << (*plugin)->Name() << ", not the type asked for";
    return nullptr;
  }
  (void)plugin->release();  // Owned again, typed, below.
  return std::unique_ptr<P>(typed);
}

}  // namespace ksched::testing
