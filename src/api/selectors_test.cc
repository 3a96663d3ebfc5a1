#include "ksched/api/selectors.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

const StringMap kLabels = {{"app", "web"}, {"tier", "frontend"}, {"cores", "8"}};

struct LabelCase {
  std::string name;
  LabelSelector selector;
  bool matches;
};

class LabelSelectorTest : public ::testing::TestWithParam<LabelCase> {};

TEST_P(LabelSelectorTest, Matches) {
  EXPECT_EQ(Matches(GetParam().selector, kLabels), GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(
    Table, LabelSelectorTest,
    ::testing::Values(
        LabelCase{"EmptyMatchesEverything", {}, true},
        LabelCase{"MatchLabelsEqual", {.match_labels = {{"app", "web"}}}, true},
        LabelCase{"MatchLabelsDifferentValue", {.match_labels = {{"app", "db"}}}, false},
        LabelCase{"MatchLabelsMissingKey", {.match_labels = {{"zone", "a"}}}, false},
        LabelCase{"MatchLabelsAllAnded", {.match_labels = {{"app", "web"}, {"tier", "db"}}}, false},
        LabelCase{"InHit", {.match_expressions = {{"app", "In", {"db", "web"}}}}, true},
        LabelCase{"InMiss", {.match_expressions = {{"app", "In", {"db"}}}}, false},
        LabelCase{"InAbsentKey", {.match_expressions = {{"zone", "In", {"a"}}}}, false},
        LabelCase{"NotInHit", {.match_expressions = {{"app", "NotIn", {"web"}}}}, false},
        LabelCase{"NotInMiss", {.match_expressions = {{"app", "NotIn", {"db"}}}}, true},
        LabelCase{"NotInAbsentKeyMatches", {.match_expressions = {{"zone", "NotIn", {"a"}}}}, true},
        LabelCase{"Exists", {.match_expressions = {{"tier", "Exists", {}}}}, true},
        LabelCase{"ExistsAbsent", {.match_expressions = {{"zone", "Exists", {}}}}, false},
        LabelCase{"DoesNotExist", {.match_expressions = {{"zone", "DoesNotExist", {}}}}, true},
        LabelCase{
            "DoesNotExistPresent", {.match_expressions = {{"app", "DoesNotExist", {}}}}, false},
        LabelCase{"GtIsNotALabelSelectorOperator",
                  {.match_expressions = {{"cores", "Gt", {"1"}}}},
                  false},
        LabelCase{
            "LabelsAndExpressionsAnded",
            {.match_labels = {{"app", "web"}}, .match_expressions = {{"tier", "In", {"backend"}}}},
            false}),
    [](const auto& info) { return info.param.name; });

Node MakeNode(std::string name, StringMap labels) {
  Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels = std::move(labels);
  return n;
}

struct TermCase {
  std::string name;
  NodeSelectorTerm term;
  bool matches;
};

class NodeSelectorTermTest : public ::testing::TestWithParam<TermCase> {};

TEST_P(NodeSelectorTermTest, Matches) {
  Node node = MakeNode("node-1", kLabels);
  EXPECT_EQ(Matches(GetParam().term, node), GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(
    Table, NodeSelectorTermTest,
    ::testing::Values(
        TermCase{"EmptyTermMatchesNothing", {}, false},
        TermCase{"GtTrue", {.match_expressions = {{"cores", "Gt", {"4"}}}}, true},
        TermCase{"GtEqualIsFalse", {.match_expressions = {{"cores", "Gt", {"8"}}}}, false},
        TermCase{"LtTrue", {.match_expressions = {{"cores", "Lt", {"16"}}}}, true},
        TermCase{"LtFalse", {.match_expressions = {{"cores", "Lt", {"2"}}}}, false},
        TermCase{"GtNonIntegerLabel", {.match_expressions = {{"app", "Gt", {"1"}}}}, false},
        TermCase{"GtAbsentLabel", {.match_expressions = {{"zone", "Gt", {"1"}}}}, false},
        TermCase{"FieldInName", {.match_fields = {{"metadata.name", "In", {"node-1"}}}}, true},
        TermCase{
            "FieldInOtherName", {.match_fields = {{"metadata.name", "In", {"node-2"}}}}, false},
        TermCase{"FieldNotIn", {.match_fields = {{"metadata.name", "NotIn", {"node-1"}}}}, false},
        TermCase{"FieldUnknownKey", {.match_fields = {{"spec.nodeName", "In", {"node-1"}}}}, false},
        TermCase{"ExpressionsAndFieldsAnded",
                 {.match_expressions = {{"app", "In", {"web"}}},
                  .match_fields = {{"metadata.name", "In", {"node-2"}}}},
                 false}),
    [](const auto& info) { return info.param.name; });

TEST(NodeSelectorTest, TermsAreOred) {
  Node node = MakeNode("node-1", kLabels);
  NodeSelector sel{.node_selector_terms = {{.match_expressions = {{"app", "In", {"db"}}}},
                                           {.match_expressions = {{"tier", "Exists", {}}}}}};
  EXPECT_TRUE(Matches(sel, node));
  sel.node_selector_terms.pop_back();
  EXPECT_FALSE(Matches(sel, node));
  EXPECT_FALSE(Matches(NodeSelector{}, node));
}

struct TolerationCase {
  std::string name;
  Toleration toleration;
  Taint taint;
  bool tolerates;
};

class TolerationTest : public ::testing::TestWithParam<TolerationCase> {};

TEST_P(TolerationTest, ToleratesTaint) {
  EXPECT_EQ(ToleratesTaint(GetParam().toleration, GetParam().taint), GetParam().tolerates);
}

const Taint kTaint{.key = "dedicated", .value = "web", .effect = "NoSchedule"};

INSTANTIATE_TEST_SUITE_P(
    Table, TolerationTest,
    ::testing::Values(
        TolerationCase{"EqualSameValue",
                       {.key = "dedicated", .op = "Equal", .value = "web", .effect = "NoSchedule"},
                       kTaint,
                       true},
        TolerationCase{"EmptyOperatorIsEqual", {.key = "dedicated", .value = "web"}, kTaint, true},
        TolerationCase{
            "EqualOtherValue", {.key = "dedicated", .op = "Equal", .value = "db"}, kTaint, false},
        TolerationCase{"ExistsIgnoresValue", {.key = "dedicated", .op = "Exists"}, kTaint, true},
        TolerationCase{"ExistsOtherKey", {.key = "gpu", .op = "Exists"}, kTaint, false},
        TolerationCase{"EmptyKeyExistsToleratesAll", {.op = "Exists"}, kTaint, true},
        TolerationCase{"EmptyEffectMatchesAll",
                       {.key = "dedicated", .op = "Exists"},
                       {.key = "dedicated", .effect = "NoExecute"},
                       true},
        TolerationCase{"OtherEffect",
                       {.key = "dedicated", .op = "Exists", .effect = "PreferNoSchedule"},
                       kTaint,
                       false},
        TolerationCase{
            "EmptyKeyExistsWithEffect", {.op = "Exists", .effect = "NoExecute"}, kTaint, false}),
    [](const auto& info) { return info.param.name; });

TEST(TolerationTest, AnyOfTolerations) {
  std::vector<Toleration> ts = {{.key = "gpu", .op = "Exists"}};
  EXPECT_FALSE(TolerationsTolerateTaint(ts, kTaint));
  ts.push_back({.key = "dedicated", .op = "Exists"});
  EXPECT_TRUE(TolerationsTolerateTaint(ts, kTaint));
}

}  // namespace
}  // namespace ksched::api
