#include "contrib/guides/node_price/node_price.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::guides::node_price {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using nlohmann::json;

constexpr char kCost[] = "hightower.com/cost";

std::unique_ptr<NodePrice> MakePlugin(const json& args = json::object()) {
  return ksched::testing::NewPluginAs<NodePrice>(
      MakeArgsDecoder(ParseNodePriceArgs, NodePriceArgsToJson), TypedFactory<NodePriceArgs>(New),
      args);
}

api::Node Priced(const std::string& name, const std::string& price) {
  return MakeNode().Name(name).Annotation(kCost, price).Obj();
}

// Score on every node, then NormalizeScore, as the framework does for a plugin that implements
// ScoreExtensions.
std::map<std::string, int64_t> ScoreAll(NodePrice& plugin, const std::vector<api::Node>& nodes) {
  FakeHandle handle(nodes);
  const api::Pod pod = MakePod().Name("p").Obj();
  CycleState state;
  NodeScoreList scores;
  for (const NodeInfo* ni : handle.snapshot().nodes()) {
    int64_t score = 0;
    EXPECT_TRUE(plugin.Score(state, pod, *ni, &score).ok());
    scores.push_back({ni, score});
  }
  ScoreExtensions& normalize = plugin;
  EXPECT_TRUE(normalize.NormalizeScore(state, pod, scores).ok());
  std::map<std::string, int64_t> out;
  for (const NodeScore& s : scores) out[s.node->name()] = s.score;
  return out;
}

TEST(NodePriceTest, ParsePrice) {
  const std::vector<std::pair<std::string, std::optional<int64_t>>> cases = {
      {"0.05", 50'000'000},         {"0.10", 100'000'000},
      {"1.60", 1'600'000'000},      {"2", 2'000'000'000},
      {".5", 500'000'000},          {"0", 0},
      {"0.000000001", 1},           {"9000000000", 9'000'000'000'000'000'000},
      {"9000000001", std::nullopt}, {"-0.05", std::nullopt},
      {"", std::nullopt},           {"cheap", std::nullopt},
      {"$0.05", std::nullopt},      {"0.05 ", std::nullopt},
      {" 0.05", std::nullopt},      {"0,05", std::nullopt},
      {"1e-2", std::nullopt},       {"inf", std::nullopt},
      {"nan", std::nullopt},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(ParsePrice(text), want) << '"' << text << '"';
}

TEST(NodePriceTest, CheapestScoresHighestAndUnpricedLowest) {
  std::unique_ptr<NodePrice> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  // The annotator's output in the guide, plus a node it has not priced.
  EXPECT_EQ(ScoreAll(*plugin, {Priced("kube-master", "0.20"), Priced("kube-minion-1", "0.20"),
                               Priced("kube-minion-2", "0.05"), Priced("kube-minion-3", "1.60"),
                               MakeNode().Name("unpriced").Obj()}),
            (std::map<std::string, int64_t>{{"kube-master", 25},
                                            {"kube-minion-1", 25},
                                            {"kube-minion-2", 100},
                                            {"kube-minion-3", 3},
                                            {"unpriced", 0}}));
}

TEST(NodePriceTest, EdgeCases) {
  struct Case {
    std::string name;
    std::vector<api::Node> nodes;
    std::map<std::string, int64_t> want;
  };
  const std::vector<Case> cases = {
      {"one price", {Priced("a", "3")}, {{"a", 100}}},
      {"equal prices", {Priced("a", "0.4"), Priced("b", "0.40")}, {{"a", 100}, {"b", 100}}},
      {"no prices", {MakeNode().Name("a").Obj(), MakeNode().Name("b").Obj()}, {{"a", 0}, {"b", 0}}},
      {"a priced node, however dear, beats an unpriced one",
       {Priced("cheap", "0.01"), Priced("dear", "1000"), MakeNode().Name("unpriced").Obj()},
       {{"cheap", 100}, {"dear", 1}, {"unpriced", 0}}},
      {"free nodes",
       {Priced("free", "0"), Priced("also-free", "0.0"), Priced("paid", "0.05")},
       {{"free", 100}, {"also-free", 100}, {"paid", 1}}},
      {"a price that does not parse is no price",
       {Priced("ok", "0.10"), Priced("typo", "0.1O"), Priced("dearer", "0.30")},
       {{"ok", 100}, {"typo", 0}, {"dearer", 33}}},
      {"the largest prices do not overflow",
       {Priced("a", "9000000000"), Priced("b", "4500000000")},
       {{"a", 50}, {"b", 100}}},
  };
  for (const Case& c : cases) {
    std::unique_ptr<NodePrice> plugin = MakePlugin();
    ASSERT_NE(plugin, nullptr);
    ::testing::internal::CaptureStderr();  // The "typo" case logs.
    EXPECT_EQ(ScoreAll(*plugin, c.nodes), c.want) << c.name;
    ::testing::internal::GetCapturedStderr();
  }
}

TEST(NodePriceTest, ConfiguredAnnotation) {
  std::unique_ptr<NodePrice> plugin = MakePlugin({{"annotationKey", "example.com/price"}});
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(ScoreAll(*plugin, {MakeNode().Name("a").Annotation("example.com/price", "2").Obj(),
                               MakeNode().Name("b").Annotation("example.com/price", "1").Obj(),
                               Priced("hightower", "0.01")}),
            (std::map<std::string, int64_t>{{"a", 50}, {"b", 100}, {"hightower", 0}}));
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// Score runs concurrently for different nodes, and again every cycle: a bad price is logged once
// per node and value, not once per call.
TEST(NodePriceTest, UnparsablePriceIsLoggedOncePerNodeAndValue) {
  std::unique_ptr<NodePrice> plugin = MakePlugin();
  ASSERT_NE(plugin, nullptr);
  FakeHandle handle({Priced("bad-1", "cheap"), Priced("bad-2", "cheap"), Priced("good", "0.1")});
  const FakeHandle changed({Priced("bad-1", "free")});
  const api::Pod pod = MakePod().Name("p").Obj();
  ::testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        for (const NodeInfo* ni : handle.snapshot().nodes()) {
          int64_t score = 0;
          EXPECT_TRUE(plugin->Score(CycleState(), pod, *ni, &score).ok());
          EXPECT_EQ(score < 0, ni->name() != "good");
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  int64_t score = 0;
  EXPECT_TRUE(plugin->Score(CycleState(), pod, *changed.snapshot().Get("bad-1"), &score).ok());
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(log, "Node price does not parse"), 3u) << log;
  EXPECT_EQ(Count(log, R"(node="bad-1" annotation="hightower.com/cost" value="cheap")"), 1u) << log;
  EXPECT_EQ(Count(log, R"(node="bad-2" annotation="hightower.com/cost" value="cheap")"), 1u) << log;
  EXPECT_EQ(Count(log, R"(node="bad-1" annotation="hightower.com/cost" value="free")"), 1u) << log;
  EXPECT_EQ(Count(log, "good"), 0u) << log;
}

TEST(NodePriceTest, Args) {
  const std::string args = "profiles[0].pluginConfig[0].args";
  const std::vector<ArgsCase> cases = {
      {"null", "null", "",
       R"({"annotationKey":"hightower.com/cost","apiVersion":"kubescheduler.config.k8s.io/v1",)"
       R"("kind":"NodePriceArgs"})"},
      {"empty", "{}", "",
       R"({"annotationKey":"hightower.com/cost","apiVersion":"kubescheduler.config.k8s.io/v1",)"
       R"("kind":"NodePriceArgs"})"},
      {"given", R"({"annotationKey": "example.com/price"})", "",
       R"({"annotationKey":"example.com/price","apiVersion":"kubescheduler.config.k8s.io/v1",)"
       R"("kind":"NodePriceArgs"})"},
      {"empty name part", R"({"annotationKey": "hightower.com/"})", args,
       "[" + args +
           ".annotationKey: Invalid value: \"hightower.com/\": name part must be non-empty, " +
           args +
           ".annotationKey: Invalid value: \"hightower.com/\": name part must consist of "
           "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
           "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"},
      {"a number for a string", R"({"annotationKey": 1})", args,
       args + ".annotationKey: expected a string"},
      {"unknown field", R"({"annotationKey": "a", "cheapest": true})", args,
       "unknown field \"" + args + ".cheapest\""},
  };
  const ArgsDecoder decode = MakeArgsDecoder(ParseNodePriceArgs, NodePriceArgsToJson);
  for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(decode, c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::guides::node_price
