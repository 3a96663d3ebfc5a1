#include "src/plugins/node_affinity/node_affinity.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::plugins::node_affinity {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using nlohmann::json;
using NameSet = std::set<std::string, std::less<>>;
using Values = std::vector<std::string>;

constexpr char kPodMismatch[] = "node(s) didn't match Pod's node affinity/selector";
constexpr char kEnforced[] = "node(s) didn't match scheduler-enforced node affinity";

// --- Builders for the affinity shapes of upstream's cases ---------------------------------------

api::NodeSelectorRequirement Req(std::string key, std::string op, Values values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}
api::NodeSelectorTerm Exprs(std::vector<api::NodeSelectorRequirement> reqs) {
  return {.match_expressions = std::move(reqs)};
}
api::NodeSelectorTerm NameIn(Values names) {
  return {.match_fields = {Req("metadata.name", "In", std::move(names))}};
}

// A pod requiring the terms (ORed) and, optionally, a nodeSelector.
api::Pod PodRequiring(std::vector<api::NodeSelectorTerm> terms, api::StringMap node_selector = {}) {
  api::Pod pod = MakePod().Name("p").Obj();
  pod.spec.node_selector = std::move(node_selector);
  pod.spec.affinity.emplace()
      .node_affinity.emplace()
      .required_during_scheduling_ignored_during_execution.emplace()
      .node_selector_terms = std::move(terms);
  return pod;
}

api::Pod PodPreferring(std::vector<api::PreferredSchedulingTerm> terms) {
  api::Pod pod = MakePod().Name("p").Obj();
  pod.spec.affinity.emplace()
      .node_affinity.emplace()
      .preferred_during_scheduling_ignored_during_execution = std::move(terms);
  return pod;
}

json ReqJson(const std::string& key, const std::string& op, const Values& values = {}) {
  json r = {{"key", key}, {"operator", op}};
  if (!values.empty()) r["values"] = values;
  return r;
}
json AddedRequired(json terms) {
  return {{"addedAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", terms}}}}}};
}
json AddedPreferred(int weight, json match_expressions) {
  json term = {{"weight", weight}, {"preference", {{"matchExpressions", match_expressions}}}};
  return {{"addedAffinity", {{"preferredDuringSchedulingIgnoredDuringExecution", {term}}}}};
}
// addedAffinity requiring zone=foo.
json AddedZoneFoo() {
  return AddedRequired({{{"matchExpressions", {ReqJson("zone", "In", {"foo"})}}}});
}

// The plugin as the scheduler builds it from a pluginConfig document.
absl::StatusOr<std::unique_ptr<Plugin>> NewFromJson(const json& args, Handle& handle) {
  return ksched::testing::NewFromArgs(MakeArgsDecoder(ParseArgs, ArgsToJson),
                                      TypedFactory<NodeAffinityArgs>(New), args, handle);
}

std::unique_ptr<NodeAffinity> MakePlugin(const json& args = json::object()) {
  static FakeHandle handle;  // Outlives the plugins: Score and the hints do not read it.
  absl::StatusOr<std::unique_ptr<Plugin>> plugin = NewFromJson(args, handle);
  EXPECT_TRUE(plugin.ok()) << plugin.status();
  if (!plugin.ok()) return nullptr;
  return std::unique_ptr<NodeAffinity>(dynamic_cast<NodeAffinity*>(plugin->release()));
}

// --- PreFilter and Filter -----------------------------------------------------------------------

struct FilterOutcome {
  Code pre_filter_code;
  std::string pre_filter_message;
  std::optional<NameSet> node_names;  // From PreFilter.
  Code filter_code;
  std::string filter_message;
};

// Runs PreFilter and then Filter on `node`, with a plugin built from `args` on a cluster of that
// node. Filter runs even when PreFilter skipped or rejected, so that its verdict on its own is
// checked too; and again on a copy of the node, as preemption's what-if makes (which takes its
// node's place in what PreFilter prepared), and on a node the snapshot does not hold, with the same
// Node copied (which reads its own labels): the verdicts must be the same.
FilterOutcome RunFilter(const json& args, const api::Pod& pod, const api::Node& node) {
  FakeHandle handle({node});
  absl::StatusOr<std::unique_ptr<Plugin>> built = NewFromJson(args, handle);
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return {};
  auto& plugin = dynamic_cast<NodeAffinity&>(**built);
  CycleState state;
  PreFilterResult result;
  Status pre = plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result);
  const NodeInfo& own = *handle.snapshot().Get(node.metadata.name);
  Status filter = plugin.Filter(state, pod, own);
  const std::unique_ptr<NodeInfo> copy = own.Clone();
  NodeInfo stranger;
  stranger.SetNode(std::make_shared<const api::Node>(*own.node()));
  for (const NodeInfo* other : {copy.get(), &stranger}) {
    Status s = plugin.Filter(state, pod, *other);
    EXPECT_EQ(s.code(), filter.code()) << node.metadata.name;
    EXPECT_EQ(s.Message(), filter.Message()) << node.metadata.name;
  }
  return {pre.code(), pre.Message(), result.node_names, filter.code(), filter.Message()};
}

// The cases of upstream's TestNodeAffinity, without scheduler-enforced affinity.
TEST(NodeAffinityTest, PreFilterAndFilter) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    FilterOutcome want;
  };
  const FilterOutcome ok{Code::kSuccess, "", std::nullopt, Code::kSuccess, ""};
  const FilterOutcome mismatch{Code::kSuccess, "", std::nullopt,
                               Code::kUnschedulableAndUnresolvable, kPodMismatch};
  const FilterOutcome skip{Code::kSkip, "", std::nullopt, Code::kSuccess, ""};
  auto pinned = [](NameSet names, bool fits) {
    return FilterOutcome{Code::kSuccess, "", std::move(names),
                         fits ? Code::kSuccess : Code::kUnschedulableAndUnresolvable,
                         fits ? "" : kPodMismatch};
  };
  api::Pod pod_affinity_only = MakePod().Name("p").Obj();
  pod_affinity_only.spec.affinity.emplace().pod_affinity.emplace();
  const std::vector<Case> cases = {
      {"missing labels", MakePod().Name("p").NodeSelector("foo", "bar").Obj(),
       MakeNode().Name("n").Obj(), mismatch},
      {"no selector", MakePod().Name("p").Obj(), MakeNode().Name("n").Label("foo", "bar").Obj(),
       skip},
      {"same labels", MakePod().Name("p").NodeSelector("foo", "bar").Obj(),
       MakeNode().Name("n").Label("foo", "bar").Obj(), ok},
      {"node labels are superset", MakePod().Name("p").NodeSelector("foo", "bar").Obj(),
       MakeNode().Name("n").Label("foo", "bar").Label("baz", "blah").Obj(), ok},
      {"node labels are subset",
       MakePod().Name("p").NodeSelector("foo", "bar").NodeSelector("baz", "blah").Obj(),
       MakeNode().Name("n").Label("foo", "bar").Obj(), mismatch},
      {"In matches", PodRequiring({Exprs({Req("foo", "In", {"bar", "value2"})})}),
       MakeNode().Name("n").Label("foo", "bar").Obj(), ok},
      {"Gt matches", PodRequiring({Exprs({Req("kernel-version", "Gt", {"0204"})})}),
       MakeNode().Name("n").Label("kernel-version", "0206").Obj(), ok},
      {"NotIn matches", PodRequiring({Exprs({Req("mem-type", "NotIn", {"DDR", "DDR2"})})}),
       MakeNode().Name("n").Label("mem-type", "DDR3").Obj(), ok},
      {"Exists matches", PodRequiring({Exprs({Req("GPU", "Exists")})}),
       MakeNode().Name("n").Label("GPU", "NVIDIA-GRID-K1").Obj(), ok},
      {"In does not match", PodRequiring({Exprs({Req("foo", "In", {"value1", "value2"})})}),
       MakeNode().Name("n").Label("foo", "bar").Obj(), mismatch},
      {"no terms match nothing", PodRequiring({}), MakeNode().Name("n").Label("foo", "bar").Obj(),
       mismatch},
      {"an empty term matches nothing", PodRequiring({Exprs({})}),
       MakeNode().Name("n").Label("foo", "bar").Obj(), mismatch},
      {"affinity without node affinity", pod_affinity_only,
       MakeNode().Name("n").Label("foo", "bar").Obj(), skip},
      {"ANDed expressions match",
       PodRequiring({Exprs({Req("GPU", "Exists"), Req("GPU", "NotIn", {"AMD", "INTER"})})}),
       MakeNode().Name("n").Label("GPU", "NVIDIA-GRID-K1").Obj(), ok},
      {"ANDed expressions don't match",
       PodRequiring({Exprs({Req("GPU", "Exists"), Req("GPU", "In", {"AMD", "INTER"})})}),
       MakeNode().Name("n").Label("GPU", "NVIDIA-GRID-K1").Obj(), mismatch},
      {"ORed terms, first matches",
       PodRequiring({Exprs({Req("foo", "In", {"bar", "value2"})}),
                     Exprs({Req("diffkey", "In", {"wrong", "value2"})})}),
       MakeNode().Name("n").Label("foo", "bar").Obj(), ok},
      {"affinity and nodeSelector both satisfied",
       PodRequiring({Exprs({Req("foo", "Exists")})}, {{"foo", "bar"}}),
       MakeNode().Name("n").Label("foo", "bar").Obj(), ok},
      {"affinity satisfied, nodeSelector not",
       PodRequiring({Exprs({Req("foo", "Exists")})}, {{"foo", "bar"}}),
       MakeNode().Name("n").Label("foo", "barrrrrr").Obj(), mismatch},
      {"matchFields In matches", PodRequiring({NameIn({"node1"})}), MakeNode().Name("node1").Obj(),
       pinned({"node1"}, true)},
      {"matchFields In does not match", PodRequiring({NameIn({"node1"})}),
       MakeNode().Name("node2").Obj(), pinned({"node1"}, false)},
      {"one term pins a node, another does not: all nodes",
       PodRequiring({NameIn({"node1"}), Exprs({Req("foo", "In", {"bar"})})}),
       MakeNode().Name("node2").Label("foo", "bar").Obj(), ok},
      {"fields and expressions ANDed in one term",
       PodRequiring({{.match_expressions = {Req("foo", "In", {"bar"})},
                      .match_fields = {Req("metadata.name", "In", {"node1"})}}}),
       MakeNode().Name("node2").Label("foo", "bar").Obj(), pinned({"node1"}, false)},
      {"pinned names are unioned across terms",
       PodRequiring({NameIn({"node1"}), NameIn({"node2"})}), MakeNode().Name("node2").Obj(),
       pinned({"node1", "node2"}, true)},
      {"pinned names are intersected within a term: conflict",
       PodRequiring({{.match_fields = {Req("metadata.name", "In", {"node1"}),
                                       Req("metadata.name", "In", {"node2"})}}}),
       MakeNode().Name("node2").Obj(),
       {Code::kUnschedulableAndUnresolvable, "pod affinity terms conflict", std::nullopt,
        Code::kUnschedulableAndUnresolvable, kPodMismatch}},
      {"NotIn matchFields pins nothing",
       PodRequiring({{.match_fields = {Req("metadata.name", "NotIn", {"node1"})}}}),
       MakeNode().Name("node2").Obj(), ok},
  };
  for (const Case& c : cases) {
    FilterOutcome got = RunFilter(json::object(), c.pod, c.node);
    EXPECT_EQ(got.pre_filter_code, c.want.pre_filter_code) << c.name;
    EXPECT_EQ(got.pre_filter_message, c.want.pre_filter_message) << c.name;
    EXPECT_EQ(got.node_names, c.want.node_names) << c.name;
    EXPECT_EQ(got.filter_code, c.want.filter_code) << c.name;
    EXPECT_EQ(got.filter_message, c.want.filter_message) << c.name;
  }
}

// The scheduler-enforced cases of upstream's TestNodeAffinity.
TEST(NodeAffinityTest, AddedAffinityFilter) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"added affinity matches, pod has none", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Label("zone", "foo").Obj(), Code::kSuccess, ""},
      {"added affinity does not match, pod has none", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Label("zone", "bar").Obj(), Code::kUnschedulableAndUnresolvable,
       kEnforced},
      {"added affinity matches, pod's does not",
       MakePod().Name("p").NodeAffinityIn("foo", {"bar"}).Obj(),
       MakeNode().Name("n").Label("zone", "foo").Obj(), Code::kUnschedulableAndUnresolvable,
       kPodMismatch},
      {"neither matches: the added affinity is reported",
       MakePod().Name("p").NodeAffinityIn("foo", {"bar"}).Obj(),
       MakeNode().Name("n").Label("zone", "bar").Obj(), Code::kUnschedulableAndUnresolvable,
       kEnforced},
      {"both match", MakePod().Name("p").NodeAffinityIn("foo", {"bar"}).Obj(),
       MakeNode().Name("n").Label("zone", "foo").Label("foo", "bar").Obj(), Code::kSuccess, ""},
  };
  for (const Case& c : cases) {
    FilterOutcome got = RunFilter(AddedZoneFoo(), c.pod, c.node);
    // With added affinity PreFilter never skips: Filter must run for every pod.
    EXPECT_EQ(got.pre_filter_code, Code::kSuccess) << c.name;
    EXPECT_EQ(got.filter_code, c.want_code) << c.name;
    EXPECT_EQ(got.filter_message, c.want_message) << c.name;
  }
}

// Filter over a cluster: each node's verdict comes from its own zone, with nodes of every zone,
// and without one, in the snapshot's order.
TEST(NodeAffinityTest, FilterReadsEachNodesOwnValue) {
  constexpr char kZone[] = "topology.kubernetes.io/zone";
  std::vector<api::Node> nodes;
  for (int i = 0; i < 12; ++i) {
    MakeNode n;
    n.Name("n" + std::to_string(i));
    if (i % 4 != 3) n.Label(kZone, "z" + std::to_string(i % 4));
    if (i % 2 == 0) n.Label("disk", "ssd");
    nodes.push_back(n.Obj());
  }
  FakeHandle handle(nodes);
  absl::StatusOr<std::unique_ptr<Plugin>> built = NewFromJson(json::object(), handle);
  ASSERT_TRUE(built.ok()) << built.status();
  auto& plugin = dynamic_cast<NodeAffinity&>(**built);
  // In z0 or z1, or (matchFields) the node n3; and a nodeSelector for disk: ssd.
  api::Pod pod = PodRequiring({Exprs({Req(kZone, "In", {"z0", "z1"})}), NameIn({"n3"})});
  pod.spec.node_selector["disk"] = "ssd";
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result).ok());
  std::set<std::string> fit;
  for (const NodeInfo* ni : handle.snapshot().nodes()) {
    if (plugin.Filter(state, pod, *ni).ok()) fit.insert(ni->name());
  }
  // z0 holds n0, n4, n8 (all ssd); z1 holds n1, n5, n9 (none ssd); n3 has no zone and no ssd.
  EXPECT_EQ(fit, (std::set<std::string>{"n0", "n4", "n8"}));
}

// --- PreScore, Score and NormalizeScore ---------------------------------------------------------

// Runs PreScore, Score and NormalizeScore as the framework does; a skipped PreScore leaves every
// node at 0 (the framework does not call Score).
std::map<std::string, int64_t> ScoreAll(NodeAffinity& plugin, const api::Pod& pod,
                                        const std::vector<api::Node>& nodes, Code want_pre_score) {
  FakeHandle handle(nodes);
  CycleState state;
  Status pre = plugin.PreScore(state, pod, handle.snapshot().nodes());
  EXPECT_EQ(pre.code(), want_pre_score);
  NodeScoreList scores;
  for (const NodeInfo* ni : handle.snapshot().nodes()) {
    int64_t score = 0;
    if (pre.ok()) {
      EXPECT_TRUE(plugin.Score(state, pod, *ni, &score).ok());
    }
    scores.push_back({ni, score});
  }
  if (pre.ok()) {
    EXPECT_TRUE(plugin.NormalizeScore(state, pod, scores).ok());
  }
  std::map<std::string, int64_t> out;
  for (const NodeScore& s : scores) out[s.node->name()] = s.score;
  return out;
}

// The cases of upstream's TestNodeAffinityPriority.
TEST(NodeAffinityTest, Score) {
  auto label1 = [](const std::string& name) {
    return MakeNode().Name(name).Label("foo", "bar").Obj();
  };
  auto label2 = [](const std::string& name) {
    return MakeNode().Name(name).Label("key", "value").Obj();
  };
  auto label3 = [](const std::string& name) {
    return MakeNode().Name(name).Label("az", "az1").Obj();
  };
  auto label4 = [](const std::string& name) {
    return MakeNode().Name(name).Label("abc", "az11").Label("def", "az22").Obj();
  };
  auto label5 = [](const std::string& name) {
    return MakeNode().Name(name).Label("foo", "bar").Label("key", "value").Label("az", "az1").Obj();
  };
  const api::Pod affinity1 = MakePod().Name("p").PreferredNodeAffinityIn(2, "foo", {"bar"}).Obj();
  const api::Pod affinity2 = PodPreferring({
      {2, Exprs({Req("foo", "In", {"bar"})})},
      {4, Exprs({Req("key", "In", {"value"})})},
      {5,
       Exprs({Req("foo", "In", {"bar"}), Req("key", "In", {"value"}), Req("az", "In", {"az1"})})},
  });
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    json args;
    Code want_pre_score;
    std::map<std::string, int64_t> want;
  };
  const std::vector<Case> cases = {
      {"no node affinity: PreScore skips",
       MakePod().Name("p").Obj(),
       {label1("m1"), label2("m2"), label3("m3")},
       json::object(),
       Code::kSkip,
       {{"m1", 0}, {"m2", 0}, {"m3", 0}}},
      {"no node matches the preferred terms",
       affinity1,
       {label4("m1"), label2("m2"), label3("m3")},
       json::object(),
       Code::kSuccess,
       {{"m1", 0}, {"m2", 0}, {"m3", 0}}},
      {"only m1 matches",
       affinity1,
       {label1("m1"), label2("m2"), label3("m3")},
       json::object(),
       Code::kSuccess,
       {{"m1", 100}, {"m2", 0}, {"m3", 0}}},
      {"all match, with different weights",
       affinity2,
       {label1("m1"), label5("m5"), label2("m2")},
       json::object(),
       Code::kSuccess,
       {{"m1", 18}, {"m5", 100}, {"m2", 36}}},
      {"added affinity",
       MakePod().Name("p").Obj(),
       {label1("node1"), label2("node2")},
       AddedPreferred(2, {ReqJson("foo", "In", {"bar"})}),
       Code::kSuccess,
       {{"node1", 100}, {"node2", 0}}},
      {"added affinity and the pod's affinity add up",
       affinity1,
       {label1("node1"), label2("node2"), label5("node3")},
       AddedPreferred(3, {ReqJson("key", "In", {"value"})}),
       Code::kSuccess,
       {{"node1", 40}, {"node2", 60}, {"node3", 100}}},
  };
  for (const Case& c : cases) {
    std::unique_ptr<NodeAffinity> plugin = MakePlugin(c.args);
    ASSERT_NE(plugin, nullptr) << c.name;
    EXPECT_EQ(ScoreAll(*plugin, c.pod, c.nodes, c.want_pre_score), c.want) << c.name;
  }
}

TEST(NodeAffinityTest, RawScoreIsTheSumOfMatchingWeights) {
  std::unique_ptr<NodeAffinity> plugin = MakePlugin(AddedPreferred(7, {ReqJson("a", "Exists")}));
  ASSERT_NE(plugin, nullptr);
  api::Pod pod = MakePod()
                     .Name("p")
                     .PreferredNodeAffinityIn(2, "a", {"1"})
                     .PreferredNodeAffinityIn(30, "b", {"1"})
                     .PreferredNodeAffinityIn(400, "c", {"1"})
                     .Obj();
  FakeHandle handle({MakeNode().Name("n").Label("a", "1").Label("b", "1").Obj()});
  CycleState state;
  ASSERT_TRUE(plugin->PreScore(state, pod, handle.snapshot().nodes()).ok());
  int64_t score = -1;
  ASSERT_TRUE(plugin->Score(state, pod, *handle.snapshot().Get("n"), &score).ok());
  EXPECT_EQ(score, 7 + 2 + 30);
}

// --- Queueing hints and args --------------------------------------------------------------------

// The cases of upstream's Test_isSchedulableAfterNodeChange.
TEST(NodeAffinityTest, NodeChangeHint) {
  struct Case {
    std::string name;
    json args;
    api::Pod pod;
    std::optional<api::Node> old_node;
    std::optional<api::Node> new_node;
    QueueingHint want;
  };
  const api::Pod wants_foo_bar = MakePod().Name("p").NodeAffinityIn("foo", {"bar"}).Obj();
  const api::Node plain = MakeNode().Name("n").Obj();
  const api::Node foo_bar = MakeNode().Name("n").Label("foo", "bar").Obj();
  const api::Node foo_bar_more = MakeNode().Name("n").Label("foo", "bar").Label("x", "y").Obj();
  const api::Node zone_foo_bar =
      MakeNode().Name("n").Label("foo", "bar").Label("zone", "foo").Obj();
  const json none = json::object();
  const std::vector<Case> cases = {
      {"no new node", none, wants_foo_bar, std::nullopt, std::nullopt, QueueingHint::kQueue},
      {"matching node added", none, wants_foo_bar, std::nullopt, foo_bar, QueueingHint::kQueue},
      {"non-matching node added", none, wants_foo_bar, std::nullopt, plain,
       QueueingHint::kQueueSkip},
      {"node starts to match", none, wants_foo_bar, plain, foo_bar, QueueingHint::kQueue},
      {"node already matched", none, wants_foo_bar, foo_bar, foo_bar_more,
       QueueingHint::kQueueSkip},
      {"node still does not match", none, wants_foo_bar, plain,
       MakeNode().Name("n").Label("x", "y").Obj(), QueueingHint::kQueueSkip},
      {"nodeSelector starts to match", none, MakePod().Name("p").NodeSelector("foo", "bar").Obj(),
       plain, foo_bar, QueueingHint::kQueue},
      {"added affinity does not match the new node", AddedZoneFoo(), wants_foo_bar, plain, foo_bar,
       QueueingHint::kQueueSkip},
      {"added affinity and pod affinity match the new node", AddedZoneFoo(), wants_foo_bar, plain,
       zone_foo_bar, QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    std::unique_ptr<NodeAffinity> plugin = MakePlugin(c.args);
    ASSERT_NE(plugin, nullptr) << c.name;
    std::vector<ClusterEventWithHint> events = plugin->EventsToRegister();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].event.resource, EventResource::kNode);
    EXPECT_EQ(events[0].event.action, ActionType::kAdd | ActionType::kUpdateNodeLabel);
    ClusterEventData e{.old_node = c.old_node ? &*c.old_node : nullptr,
                       .new_node = c.new_node ? &*c.new_node : nullptr};
    EXPECT_EQ(events[0].hint(c.pod, e), c.want) << c.name;
  }
}

TEST(NodeAffinityTest, Args) {
  struct Case {
    std::string name;
    json args;
    std::string want_error;  // "" : valid.
  };
  const std::string required_term0 =
      "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].";
  const std::vector<Case> cases = {
      {"null args", nullptr, ""},
      {"empty args", json::object(), ""},
      {"typed args",
       {{"apiVersion", "kubescheduler.config.k8s.io/v1"},
        {"kind", "NodeAffinityArgs"},
        {"addedAffinity", nullptr}},
       ""},
      {"valid added affinity", AddedZoneFoo(), ""},
      {"args not an object", json::array(), "args: expected an object"},
      {"unknown field", {{"addedAfinity", json::object()}}, "unknown field \"addedAfinity\""},
      {"addedAffinity not an object",
       {{"addedAffinity", "zone"}},
       "addedAffinity: expected object, got string"},
      {"bad operator", AddedRequired({{{"matchExpressions", {ReqJson("zone", "Foo", {"foo"})}}}}),
       required_term0 +
           "matchExpressions[0].operator: Unsupported value: \"Foo\": supported values: \"In\", "
           "\"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""},
      {"In without values", AddedPreferred(1, {ReqJson("zone", "In")}),
       "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference."
       "matchExpressions[0].values: Required value: must be specified when `operator` is 'In' "
       "or 'NotIn'"},
      {"bad field selector key",
       AddedRequired({{{"matchFields", {ReqJson("metadata.namespace", "In", {"a"})}}}}),
       required_term0 +
           "matchFields[0].key: Invalid value: \"metadata.namespace\": not a valid field "
           "selector key"},
      {"field selector with two values",
       AddedRequired({{{"matchExpressions", {ReqJson("a", "Exists")}}},
                      {{"matchFields", {ReqJson("metadata.name", "In", {"a", "b"})}}}}),
       "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1]."
       "matchFields[0].values: Invalid value: [\"a\",\"b\"]: must have one element"},
  };
  for (const Case& c : cases) {
    FakeHandle handle;
    absl::StatusOr<std::unique_ptr<Plugin>> plugin = NewFromJson(c.args, handle);
    if (c.want_error.empty()) {
      ASSERT_TRUE(plugin.ok()) << c.name << ": " << plugin.status();
      EXPECT_EQ((*plugin)->Name(), "NodeAffinity");
    } else {
      ASSERT_FALSE(plugin.ok()) << c.name;
      EXPECT_EQ(plugin.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
      EXPECT_EQ(std::string(plugin.status().message()), c.want_error) << c.name;
    }
  }
}

}  // namespace
}  // namespace ksched::plugins::node_affinity
