#include "src/plugins/inter_pod_affinity/inter_pod_affinity.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "src/plugins/helper/node_filters.h"
#include "src/plugins/inter_pod_affinity/terms.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/scoring.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

constexpr char kZone[] = "zone";
constexpr char kHost[] = "kubernetes.io/hostname";

api::PodAffinityTerm Term(std::string key, std::string value, std::string topology) {
  return {
      .label_selector = api::LabelSelector{.match_labels = {{std::move(key), std::move(value)}}},
      .topology_key = std::move(topology)};
}
api::PodAffinity Required(std::vector<api::PodAffinityTerm> terms) {
  return {.required_during_scheduling_ignored_during_execution = std::move(terms)};
}
api::PodAffinity Preferred(int32_t weight, api::PodAffinityTerm term) {
  return {.preferred_during_scheduling_ignored_during_execution = {{weight, std::move(term)}}};
}
MakePod WithAffinity(MakePod p, std::optional<api::PodAffinity> affinity,
                     std::optional<api::PodAffinity> anti = std::nullopt) {
  api::Pod pod = p.Obj();
  pod.spec.affinity.emplace();
  pod.spec.affinity->pod_affinity = std::move(affinity);
  pod.spec.affinity->pod_anti_affinity = std::move(anti);
  return MakePod(pod);
}

// Three nodes: a and b in zone z1, c in zone z2.
std::vector<api::Node> ThreeNodes() {
  return {MakeNode().Name("a").Label(kZone, "z1").Obj(),
          MakeNode().Name("b").Label(kZone, "z1").Obj(),
          MakeNode().Name("c").Label(kZone, "z2").Obj()};
}

struct FilterOutcome {
  Code prefilter = Code::kSuccess;
  std::map<std::string, std::string> rejected;  // node → reason
};

FilterOutcome RunFilter(FakeHandle& h, const api::Pod& pod, InterPodAffinityArgs args = {}) {
  InterPodAffinity pl(args, h);
  CycleState state;
  PreFilterResult result;
  FilterOutcome out;
  Status pre = pl.PreFilter(state, pod, h.snapshot().nodes(), &result);
  out.prefilter = pre.code();
  if (!pre.ok()) return out;
  for (const NodeInfo* ni : h.snapshot().nodes()) {
    Status s = pl.Filter(state, pod, *ni);
    // A copy of the node, as preemption's what-if makes, takes its node's place in the snapshot's
    // domains; a node the snapshot does not hold, with the same Node copied, reads its own labels:
    // the verdicts must be the same.
    NodeInfo stranger;
    stranger.SetNode(std::make_shared<const api::Node>(*ni->node()));
    EXPECT_EQ(pl.Filter(state, pod, *ni->Clone()).Message(), s.Message()) << ni->name();
    EXPECT_EQ(pl.Filter(state, pod, stranger).Message(), s.Message()) << ni->name();
    if (!s.ok()) out.rejected[ni->name()] = s.Message();
  }
  return out;
}

TEST(TopologyCountsTest, CountsPerDomainAndDropsDomainsBackAtZero) {
  api::Node a = MakeNode().Name("a").Label(kZone, "z1").Label(kHost, "a").Obj();
  api::Node b = MakeNode().Name("b").Label(kZone, "z1").Label(kHost, "b").Obj();
  api::Node bare = MakeNode().Name("bare").Obj();
  // A node's domains, as Filter reads those of a node outside the snapshot: by value.
  auto values = [](const api::Node& n) {
    return [&n](std::string_view key) {
      return NodeDomain{.value = helper::LabelValue(n.metadata.labels, key)};
    };
  };
  TopologyCounts counts;
  counts.Add(kZone, values(a)(kZone), 2);
  counts.Add(kZone, values(b)(kZone), 1);
  counts.Add(kHost, values(b)(kHost), -1);
  counts.Add(kZone, values(bare)(kZone), 5);  // No zone label: not counted.
  EXPECT_EQ(counts.Get(kZone, "z1"), 3);
  EXPECT_EQ(counts.Get(kHost, "b"), -1);
  EXPECT_TRUE(counts.AnyPositive(values(a)));
  EXPECT_FALSE(counts.AnyPositive(values(bare)));
  EXPECT_EQ(counts.Sum(values(b)), 2);
  counts.Add(kZone, values(a)(kZone), -3);
  counts.Add(kHost, values(b)(kHost), 1);
  EXPECT_TRUE(counts.empty());
  EXPECT_FALSE(counts.AnyPositive(values(a)));

  TopologyCounts scores(TopologyCounts::kKeepZeros);
  scores.Add(kHost, values(a)(kHost), 0);
  EXPECT_FALSE(scores.empty());  // Touched: PreScore does not skip.
  EXPECT_EQ(scores.Sum(values(a)), 0);
}

// A key kept by its domains' index counts a snapshot node by index and any other node by value,
// into the same count; a value the domains lack, and a key without domains, by value.
TEST(TopologyCountsTest, DomainsCountedByIndexAgreeWithTheirValues) {
  NodeInfo a, b, c;
  a.SetNode(std::make_shared<const api::Node>(MakeNode().Name("a").Label(kZone, "z1").Obj()));
  b.SetNode(std::make_shared<const api::Node>(MakeNode().Name("b").Label(kZone, "z2").Obj()));
  c.SetNode(std::make_shared<const api::Node>(MakeNode().Name("c").Obj()));
  const LabelDomains zones = LabelDomains::Of({&a, &b, &c}, kZone);
  auto at = [&](int i) {
    return NodeDomain{.value = zones.ValueAt(i), .domains = &zones, .index = zones.domain[i]};
  };
  TopologyCounts counts;
  counts.UseDomains(kZone, zones);
  counts.Add(kZone, at(0), 2);
  counts.Add(kZone, at(2), 7);  // No zone: not counted.
  EXPECT_EQ(counts.Get(kZone, "z1"), 2);
  EXPECT_EQ(counts.Get(kZone, at(0)), 2);
  counts.Add(kZone, "z2", 1);  // A copy of node b, by value.
  EXPECT_EQ(counts.Get(kZone, at(1)), 1);
  counts.Add(kZone, "z9", 4);  // A zone no snapshot node has.
  EXPECT_EQ(counts.Get(kZone, "z9"), 4);
  const LabelDomains other = zones;  // Another cycle's domains: by value.
  EXPECT_EQ(counts.Get(kZone, {.value = zones.ValueAt(0), .domains = &other, .index = 0}), 2);
  counts.Add(kHost, "a", 3);  // A key without domains.
  EXPECT_TRUE(counts.AnyPositive(
      [&](std::string_view key) { return key == kZone ? at(1) : NodeDomain{}; }));
  EXPECT_FALSE(counts.AnyPositive(
      [&](std::string_view key) { return key == kZone ? at(2) : NodeDomain{}; }));
  counts.Add(kZone, at(0), -2);
  counts.Add(kZone, "z2", -1);
  counts.Add(kZone, "z9", -4);
  EXPECT_FALSE(counts.empty());
  counts.Add(kHost, "a", -3);
  EXPECT_TRUE(counts.empty());
}

TEST(InterPodAffinityFilterTest, SkipsPodsWithoutTermsThatNoExistingRuleSelects) {
  FakeHandle h(ThreeNodes(), {MakePod().Name("web").Label("app", "web").Node("a").Obj()});
  EXPECT_EQ(RunFilter(h, MakePod().Name("p").Label("app", "db").Obj()).prefilter, Code::kSkip);
}

TEST(InterPodAffinityFilterTest, RequiredAffinityKeepsThePodInTheZoneOfAMatchingPod) {
  FakeHandle h(ThreeNodes(), {MakePod().Name("web").Label("app", "web").Node("a").Obj()});
  api::Pod pod = WithAffinity(MakePod().Name("p"), Required({Term("app", "web", kZone)})).Obj();
  FilterOutcome got = RunFilter(h, pod);
  EXPECT_EQ(got.rejected,
            (std::map<std::string, std::string>{{"c", kErrReasonAffinityRulesNotMatch}}));
}

TEST(InterPodAffinityFilterTest, RequiredAffinityFailsOnNodesWithoutTheTopologyKey) {
  std::vector<api::Node> nodes = ThreeNodes();
  nodes.push_back(MakeNode().Name("d").Obj());  // No zone label.
  FakeHandle h(nodes, {MakePod().Name("web").Label("app", "web").Node("c").Obj()});
  api::Pod pod = WithAffinity(MakePod().Name("p"), Required({Term("app", "web", kZone)})).Obj();
  FilterOutcome got = RunFilter(h, pod);
  EXPECT_EQ(got.rejected,
            (std::map<std::string, std::string>{{"a", kErrReasonAffinityRulesNotMatch},
                                                {"b", kErrReasonAffinityRulesNotMatch},
                                                {"d", kErrReasonAffinityRulesNotMatch}}));
}

TEST(InterPodAffinityFilterTest, TheFirstPodOfAGroupThatMatchesItsOwnAffinityGoesAnywhere) {
  FakeHandle h(ThreeNodes());
  api::Pod self =
      WithAffinity(MakePod().Name("p").Label("app", "web"), Required({Term("app", "web", kZone)}))
          .Obj();
  EXPECT_TRUE(RunFilter(h, self).rejected.empty());
  // A pod that does not match its own term has no such excuse.
  api::Pod other = WithAffinity(MakePod().Name("p"), Required({Term("app", "web", kZone)})).Obj();
  EXPECT_EQ(RunFilter(h, other).rejected.size(), 3u);
}

TEST(InterPodAffinityFilterTest, AllRequiredAffinityTermsMustMatchTheSamePod) {
  // web-1 has app=web, cache-1 has tier=cache; no single pod has both.
  FakeHandle h(ThreeNodes(), {MakePod().Name("web-1").Label("app", "web").Node("a").Obj(),
                              MakePod().Name("cache-1").Label("tier", "cache").Node("a").Obj()});
  api::Pod pod = WithAffinity(MakePod().Name("p"),
                              Required({Term("app", "web", kZone), Term("tier", "cache", kZone)}))
                     .Obj();
  EXPECT_EQ(RunFilter(h, pod).rejected.size(), 3u);
}

TEST(InterPodAffinityFilterTest, RequiredAntiAffinityAvoidsTheDomainsOfMatchingPods) {
  FakeHandle h(ThreeNodes(), {MakePod().Name("web").Label("app", "web").Node("a").Obj()});
  api::Pod by_zone =
      WithAffinity(MakePod().Name("p"), std::nullopt, Required({Term("app", "web", kZone)})).Obj();
  EXPECT_EQ(RunFilter(h, by_zone).rejected,
            (std::map<std::string, std::string>{{"a", kErrReasonAntiAffinityRulesNotMatch},
                                                {"b", kErrReasonAntiAffinityRulesNotMatch}}));
  api::Pod by_host =
      WithAffinity(MakePod().Name("p"), std::nullopt, Required({Term("app", "web", kHost)})).Obj();
  EXPECT_EQ(RunFilter(h, by_host).rejected,
            (std::map<std::string, std::string>{{"a", kErrReasonAntiAffinityRulesNotMatch}}));
}

TEST(InterPodAffinityFilterTest, AnExistingPodsAntiAffinityKeepsThePodsItSelectsAway) {
  FakeHandle h(ThreeNodes(), {MakePod()
                                  .Name("db-0")
                                  .Label("app", "db")
                                  .Node("c")
                                  .RequiredAntiAffinity("app", "db", kZone)
                                  .Obj()});
  EXPECT_EQ(
      RunFilter(h, MakePod().Name("db-1").Label("app", "db").Obj()).rejected,
      (std::map<std::string, std::string>{{"c", kErrReasonExistingAntiAffinityRulesNotMatch}}));
  // The term's scope is its own namespace.
  EXPECT_EQ(
      RunFilter(h, MakePod().Name("db-1").Namespace("dev").Label("app", "db").Obj()).prefilter,
      Code::kSkip);
}

TEST(InterPodAffinityFilterTest, ReasonsComeInUpstreamsOrder) {
  // Node a holds a pod the incoming pod wants (affinity met) but also one it avoids.
  FakeHandle h(ThreeNodes(), {MakePod().Name("web").Label("app", "web").Node("a").Obj(),
                              MakePod().Name("db").Label("app", "db").Node("b").Obj()});
  api::Pod pod = WithAffinity(MakePod().Name("p"), Required({Term("app", "web", kZone)}),
                              Required({Term("app", "db", kHost)}))
                     .Obj();
  EXPECT_EQ(RunFilter(h, pod).rejected,
            (std::map<std::string, std::string>{{"b", kErrReasonAntiAffinityRulesNotMatch},
                                                {"c", kErrReasonAffinityRulesNotMatch}}));
}

TEST(InterPodAffinityFilterTest, NamespacesAndNamespaceSelectorWidenTheScope) {
  FakeHandle h(ThreeNodes(),
               {MakePod().Name("web").Namespace("team-a").Label("app", "web").Node("c").Obj()});
  h.listers().namespaces.Set(std::make_shared<const api::Namespace>(
      api::Namespace{.metadata = {.name = "team-a", .labels = {{"team", "a"}}}}));
  api::PodAffinityTerm listed = Term("app", "web", kZone);
  listed.namespaces = {"team-a"};
  EXPECT_EQ(RunFilter(h, WithAffinity(MakePod().Name("p"), Required({listed})).Obj()).rejected,
            (std::map<std::string, std::string>{{"a", kErrReasonAffinityRulesNotMatch},
                                                {"b", kErrReasonAffinityRulesNotMatch}}));
  api::PodAffinityTerm by_selector = Term("app", "web", kZone);
  by_selector.namespace_selector = api::LabelSelector{.match_labels = {{"team", "a"}}};
  EXPECT_EQ(RunFilter(h, WithAffinity(MakePod().Name("p"), Required({by_selector})).Obj()).rejected,
            (std::map<std::string, std::string>{{"a", kErrReasonAffinityRulesNotMatch},
                                                {"b", kErrReasonAffinityRulesNotMatch}}));
  api::PodAffinityTerm all = Term("app", "web", kZone);
  all.namespace_selector = api::LabelSelector{};  // Empty: every namespace.
  EXPECT_EQ(RunFilter(h, WithAffinity(MakePod().Name("p"), Required({all})).Obj()).rejected.size(),
            2u);
  api::PodAffinityTerm other_team = Term("app", "web", kZone);
  other_team.namespace_selector = api::LabelSelector{.match_labels = {{"team", "b"}}};
  EXPECT_EQ(
      RunFilter(h, WithAffinity(MakePod().Name("p"), Required({other_team})).Obj()).rejected.size(),
      3u);
}

TEST(InterPodAffinityFilterTest, ASelectorThatMatchesNoLabelsStillReadsTheNamespacesLabels) {
  // team NotIn [a] holds for the empty label set: kube-scheduler v1.36 took every namespace for
  // it; since 1.37 it reads each namespace's labels, so the pod in team-a does not count.
  FakeHandle h(ThreeNodes(),
               {MakePod().Name("web").Namespace("team-a").Label("app", "web").Node("c").Obj()});
  h.listers().namespaces.Set(std::make_shared<const api::Namespace>(
      api::Namespace{.metadata = {.name = "team-a", .labels = {{"team", "a"}}}}));
  api::PodAffinityTerm not_a = Term("app", "web", kZone);
  not_a.namespace_selector =
      api::LabelSelector{.match_expressions = {{.key = "team", .op = "NotIn", .values = {"a"}}}};
  EXPECT_TRUE(RunFilter(h, WithAffinity(MakePod().Name("p"), std::nullopt, Required({not_a})).Obj())
                  .rejected.empty());
  EXPECT_EQ(
      RunFilter(h, WithAffinity(MakePod().Name("p"), Required({not_a})).Obj()).rejected.size(), 3u);
}

TEST(InterPodAffinityFilterTest, AnExistingPodsNamespaceSelectorReadsTheIncomingPodsNamespace) {
  api::Pod db0 = MakePod().Name("db-0").Label("app", "db").Node("a").Obj();
  db0.spec.affinity.emplace();
  api::PodAffinityTerm t = Term("app", "db", kHost);
  t.namespace_selector = api::LabelSelector{.match_labels = {{"env", "prod"}}};
  db0.spec.affinity->pod_anti_affinity = Required({t});
  FakeHandle h(ThreeNodes(), {db0});
  h.listers().namespaces.Set(std::make_shared<const api::Namespace>(
      api::Namespace{.metadata = {.name = "prod", .labels = {{"env", "prod"}}}}));
  EXPECT_EQ(
      RunFilter(h, MakePod().Name("p").Namespace("prod").Label("app", "db").Obj()).rejected,
      (std::map<std::string, std::string>{{"a", kErrReasonExistingAntiAffinityRulesNotMatch}}));
  EXPECT_EQ(RunFilter(h, MakePod().Name("p").Namespace("dev").Label("app", "db").Obj()).prefilter,
            Code::kSkip);
}

TEST(InterPodAffinityFilterTest, AddPodAndRemovePodUpdateTheCountsForPreemption) {
  FakeHandle h(ThreeNodes(), {MakePod().Name("web").Label("app", "web").Node("a").Obj()});
  InterPodAffinity pl({}, h);
  api::Pod pod =
      WithAffinity(MakePod().Name("p"), std::nullopt, Required({Term("app", "web", kZone)})).Obj();
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(pl.PreFilter(state, pod, h.snapshot().nodes(), &result).ok());
  const NodeInfo& a = *h.snapshot().Get("a");
  const NodeInfo& c = *h.snapshot().Get("c");
  EXPECT_FALSE(pl.Filter(state, pod, a).ok());
  // Without the web pod (a preemption victim), zone z1 is free.
  ASSERT_TRUE(pl.RemovePod(state, pod, *a.pods()[0], a).ok());
  EXPECT_TRUE(pl.Filter(state, pod, a).ok());
  // With a web pod added on c, zone z2 is taken.
  auto web2 = PodInfo::Make(MakePod().Name("web-2").Label("app", "web").Node("c").Ptr());
  ASSERT_TRUE(pl.AddPod(state, pod, *web2, c).ok());
  EXPECT_EQ(pl.Filter(state, pod, c).Message(), kErrReasonAntiAffinityRulesNotMatch);
  // A clone is independent.
  std::unique_ptr<CycleState> copy = state.Clone();
  ASSERT_TRUE(pl.RemovePod(*copy, pod, *web2, c).ok());
  EXPECT_TRUE(pl.Filter(*copy, pod, c).ok());
  EXPECT_FALSE(pl.Filter(state, pod, c).ok());
}

// --- Scoring ------------------------------------------------------------------------------------

struct ScoreOutcome {
  Code prescore = Code::kSuccess;
  std::vector<int64_t> scores;  // Normalized, in node order.
};

ScoreOutcome RunScore(FakeHandle& h, const api::Pod& pod, InterPodAffinityArgs args = {}) {
  InterPodAffinity pl(args, h);
  CycleState state;
  ScoreOutcome out;
  const auto& nodes = h.snapshot().nodes();
  Status pre = pl.PreScore(state, pod, nodes);
  out.prescore = pre.code();
  if (!pre.ok()) return out;
  std::vector<int64_t> raw = ksched::testing::ScoreEach(pl, state, pod, nodes);
  NodeScoreList list;
  for (size_t i = 0; i < nodes.size(); ++i) list.push_back({nodes[i], raw[i]});
  EXPECT_TRUE(pl.NormalizeScore(state, pod, list).ok());
  // Report in name order, whatever the snapshot's zone interleaving.
  std::map<std::string, int64_t> by_name;
  for (const NodeScore& s : list) by_name[s.node->name()] = s.score;
  for (const auto& [name, score] : by_name) out.scores.push_back(score);
  return out;
}

TEST(InterPodAffinityScoreTest, SkipsWhenNoTermTouchesAnyDomain) {
  FakeHandle h(ThreeNodes(), {MakePod().Name("web").Label("app", "web").Node("a").Obj()});
  EXPECT_EQ(RunScore(h, MakePod().Name("p").Obj()).prescore, Code::kSkip);
  api::Pod wants_db =
      WithAffinity(MakePod().Name("p"), Preferred(10, Term("app", "db", kZone))).Obj();
  EXPECT_EQ(RunScore(h, wants_db).prescore, Code::kSkip);
}

TEST(InterPodAffinityScoreTest, PreferredAffinityFavoursTheDomainWithMoreMatches) {
  // Upstream's "nodes in one region has more matching pods": 2 in z1, 1 in z2.
  std::vector<api::Node> nodes = ThreeNodes();
  nodes.push_back(MakeNode().Name("d").Label(kZone, "z3").Obj());
  FakeHandle h(nodes, {MakePod().Name("w1").Label("app", "web").Node("a").Obj(),
                       MakePod().Name("w2").Label("app", "web").Node("b").Obj(),
                       MakePod().Name("w3").Label("app", "web").Node("c").Obj()});
  api::Pod pod = WithAffinity(MakePod().Name("p"), Preferred(5, Term("app", "web", kZone))).Obj();
  // Raw: z1 = 10, z2 = 5, z3 = 0.
  EXPECT_EQ(RunScore(h, pod).scores, (std::vector<int64_t>{100, 100, 50, 0}));
}

TEST(InterPodAffinityScoreTest, PreferredAntiAffinityFavoursTheDomainWithFewerMatches) {
  FakeHandle h(ThreeNodes(), {MakePod().Name("w1").Label("app", "web").Node("a").Obj(),
                              MakePod().Name("w2").Label("app", "web").Node("a").Obj(),
                              MakePod().Name("w3").Label("app", "web").Node("c").Obj()});
  api::Pod pod =
      WithAffinity(MakePod().Name("p"), std::nullopt, Preferred(3, Term("app", "web", kHost)))
          .Obj();
  // Raw: a = -6, b = 0, c = -3; normalized (x - min) / (max - min).
  EXPECT_EQ(RunScore(h, pod).scores, (std::vector<int64_t>{0, 100, 50}));
}

TEST(InterPodAffinityScoreTest, ExistingPodsTermsCountSymmetrically) {
  // An existing pod prefers pods like the incoming one in its zone, and another one's required
  // affinity selects it (scored at hardPodAffinityWeight).
  api::Pod likes =
      WithAffinity(MakePod().Name("likes").Node("a"), Preferred(7, Term("app", "web", kZone)))
          .Obj();
  api::Pod needs =
      WithAffinity(MakePod().Name("needs").Node("c"), Required({Term("app", "web", kZone)})).Obj();
  FakeHandle h(ThreeNodes(), {likes, needs});
  api::Pod pod = MakePod().Name("p").Label("app", "web").Obj();
  // z1 = 7, z2 = 1 (the default weight).
  EXPECT_EQ(RunScore(h, pod).scores, (std::vector<int64_t>{100, 100, 0}));
  // Weight 10: z2 = 10 beats z1 = 7, the minimum.
  EXPECT_EQ(RunScore(h, pod, {.hard_pod_affinity_weight = 10}).scores,
            (std::vector<int64_t>{0, 0, 100}));
  // Weight 0: only the preferred term counts.
  EXPECT_EQ(RunScore(h, pod, {.hard_pod_affinity_weight = 0}).scores,
            (std::vector<int64_t>{100, 100, 0}));
}

TEST(InterPodAffinityScoreTest, IgnorePreferredTermsOfExistingPods) {
  api::Pod likes =
      WithAffinity(MakePod().Name("likes").Node("a"), Preferred(7, Term("app", "web", kZone)))
          .Obj();
  FakeHandle h(ThreeNodes(), {likes});
  api::Pod pod = MakePod().Name("p").Label("app", "web").Obj();
  EXPECT_EQ(RunScore(h, pod).scores, (std::vector<int64_t>{100, 100, 0}));
  EXPECT_EQ(RunScore(h, pod, {.ignore_preferred_terms_of_existing_pods = true}).prescore,
            Code::kSkip);
}

TEST(InterPodAffinityScoreTest, NormalizationTruncatesAsUpstream) {
  // Raw scores 0, 1 and 3: 100 * 1/3 = 33.33 → 33.
  std::vector<api::Node> nodes = {MakeNode().Name("a").Obj(), MakeNode().Name("b").Obj(),
                                  MakeNode().Name("c").Obj()};
  FakeHandle h(nodes, {MakePod().Name("w1").Label("app", "web").Node("b").Obj(),
                       MakePod().Name("w2").Label("app", "web").Node("c").Obj(),
                       MakePod().Name("w3").Label("app", "web").Node("c").Obj(),
                       MakePod().Name("w4").Label("app", "web").Node("c").Obj()});
  api::Pod pod = WithAffinity(MakePod().Name("p"), Preferred(1, Term("app", "web", kHost))).Obj();
  EXPECT_EQ(RunScore(h, pod).scores, (std::vector<int64_t>{0, 33, 100}));
}

// --- Queueing hints
// -------------------------------------------------------------------------------

QueueingHint Hint(const api::Pod& pod, const ClusterEventData& e, size_t which) {
  FakeHandle h;
  InterPodAffinity pl({}, h);
  return pl.EventsToRegister().at(which).hint(pod, e);
}

TEST(InterPodAffinityHintTest, PodEvents) {
  api::Pod pod = WithAffinity(MakePod().Name("p"), Required({Term("app", "web", kZone)}),
                              Required({Term("app", "db", kZone)}))
                     .Obj();
  api::Pod web = MakePod().Name("web").Label("app", "web").Node("a").Obj();
  api::Pod db = MakePod().Name("db").Label("app", "db").Node("a").Obj();
  api::Pod pending_web = MakePod().Name("web").Label("app", "web").Obj();
  EXPECT_EQ(Hint(pod, {.new_pod = &web}, 0), QueueingHint::kQueue);
  EXPECT_EQ(Hint(pod, {.new_pod = &db}, 0), QueueingHint::kQueueSkip);
  EXPECT_EQ(Hint(pod, {.new_pod = &pending_web}, 0), QueueingHint::kQueueSkip);
  EXPECT_EQ(Hint(pod, {.old_pod = &db}, 0), QueueingHint::kQueue);
  EXPECT_EQ(Hint(pod, {.old_pod = &web}, 0), QueueingHint::kQueueSkip);
  EXPECT_EQ(Hint(pod, {.old_pod = &db, .new_pod = &web}, 0), QueueingHint::kQueue);
  EXPECT_EQ(Hint(pod, {.old_pod = &web, .new_pod = &db}, 0), QueueingHint::kQueueSkip);
  // A deleted pod whose own anti-affinity selected the pending pod.
  api::Pod avoider =
      WithAffinity(MakePod().Name("x").Node("a"), std::nullopt, Required({Term("k", "v", kZone)}))
          .Obj();
  api::Pod labelled = MakePod().Name("q").Label("k", "v").Obj();
  EXPECT_EQ(Hint(labelled, {.old_pod = &avoider}, 0), QueueingHint::kQueue);
  // Since 1.37 a deleted pod that one of two anti-affinity terms selected requeues (1.36 wanted
  // both to select it).
  api::Pod two_anti = WithAffinity(MakePod().Name("p2"), std::nullopt,
                                   Required({Term("app", "db", kZone), Term("tier", "x", kZone)}))
                          .Obj();
  EXPECT_EQ(Hint(two_anti, {.old_pod = &db}, 0), QueueingHint::kQueue);
}

TEST(InterPodAffinityHintTest, NodeEvents) {
  api::Pod wants = WithAffinity(MakePod().Name("p"), Required({Term("app", "web", kZone)})).Obj();
  api::Node zoned = MakeNode().Name("n").Label(kZone, "z1").Obj();
  api::Node moved = MakeNode().Name("n").Label(kZone, "z2").Obj();
  api::Node bare = MakeNode().Name("n").Obj();
  EXPECT_EQ(Hint(wants, {.new_node = &zoned}, 1), QueueingHint::kQueue);
  EXPECT_EQ(Hint(wants, {.new_node = &bare}, 1), QueueingHint::kQueueSkip);
  EXPECT_EQ(Hint(wants, {.old_node = &bare, .new_node = &zoned}, 1), QueueingHint::kQueue);
  EXPECT_EQ(Hint(wants, {.old_node = &zoned, .new_node = &moved}, 1), QueueingHint::kQueue);
  EXPECT_EQ(Hint(wants, {.old_node = &zoned, .new_node = &bare}, 1), QueueingHint::kQueueSkip);
  api::Pod avoids =
      WithAffinity(MakePod().Name("p"), std::nullopt, Required({Term("app", "web", kZone)})).Obj();
  EXPECT_EQ(Hint(avoids, {.new_node = &bare}, 1), QueueingHint::kQueue);
  EXPECT_EQ(Hint(avoids, {.old_node = &zoned, .new_node = &bare}, 1), QueueingHint::kQueue);
  EXPECT_EQ(Hint(avoids, {.old_node = &bare, .new_node = &zoned}, 1), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins::inter_pod_affinity
