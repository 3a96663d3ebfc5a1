#include "src/framework/framework.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "fmt/format.h"
#include "ksched/async_bind_plugin.h"
#include "src/base/clock.h"
#include "src/plugins/names.h"
#include "src/plugins/registry.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::framework {
namespace {

using ::testing::ElementsAre;
using testing::MakeNode;
using testing::MakePod;

namespace names = plugins::names;

// "Code: message", so that one assertion checks both and a failure shows both.
std::string Describe(const Status& s) {
  return fmt::format("{}: {}", CodeName(s.code()), s.Message());
}

// The calls of the fake plugins of one test, in order.
class CallLog {
 public:
  void Add(std::string call) {
    absl::MutexLock lock(&mu_);
    calls_.push_back(std::move(call));
  }
  std::vector<std::string> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
};

// --- Fake plugins: each implements only the extension points its name says. ---

class Sorter : public QueueSortPlugin {
 public:
  explicit Sorter(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }
  bool Less(const QueuedPodInfo&, const QueuedPodInfo&) const override { return false; }

 private:
  std::string name_;
};

// Logs "<name>:<node>" and returns `result` (Skip passes the pod on to the next binder).
class Binder : public BindPlugin {
 public:
  Binder(std::string name, std::shared_ptr<CallLog> log, Status result = Status())
      : name_(std::move(name)), log_(std::move(log)), result_(std::move(result)) {}
  std::string_view Name() const override { return name_; }
  Status Bind(CycleState&, const api::Pod&, std::string_view node) override {
    log_->Add(fmt::format("{}:{}", name_, node));
    return result_;
  }

 private:
  std::string name_;
  std::shared_ptr<CallLog> log_;
  Status result_;
};

// PreFilter, Filter and Reserve, all succeeding.
class Fit : public PreFilterPlugin, public FilterPlugin, public ReservePlugin {
 public:
  explicit Fit(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }
  Status PreFilter(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&,
                   PreFilterResult*) override {
    return Status();
  }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo&) override { return Status(); }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override { return Status(); }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override {}

 private:
  std::string name_;
};

// Reserve returning `result`; logs "<name>.Reserve" and "<name>.Unreserve".
class Reserves : public ReservePlugin {
 public:
  Reserves(std::string name, std::shared_ptr<CallLog> log, Status result = Status())
      : name_(std::move(name)), log_(std::move(log)), result_(std::move(result)) {}
  std::string_view Name() const override { return name_; }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override {
    log_->Add(name_ + ".Reserve");
    return result_;
  }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override {
    log_->Add(name_ + ".Unreserve");
  }

 private:
  std::string name_;
  std::shared_ptr<CallLog> log_;
  Status result_;
};

// Filter (always passes) and Score: `scores` by node name.
class Rank : public FilterPlugin, public ScorePlugin {
 public:
  explicit Rank(std::string name, std::map<std::string, int64_t> scores = {})
      : name_(std::move(name)), scores_(std::move(scores)) {}
  std::string_view Name() const override { return name_; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo&) override { return Status(); }
  Status Score(const CycleState&, const api::Pod&, const NodeInfo& node, int64_t* score) override {
    *score = scores_.at(node.name());
    return Status();
  }

 private:
  std::string name_;
  std::map<std::string, int64_t> scores_;
};

// Rank, normalized by `normalize` (it implements ScoreExtensions).
class NormalizedRank : public Rank, public ScoreExtensions {
 public:
  using Normalize = std::function<Status(NodeScoreList&)>;
  NormalizedRank(std::string name, std::map<std::string, int64_t> scores, Normalize normalize)
      : Rank(std::move(name), std::move(scores)), normalize_(std::move(normalize)) {}
  Status NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) override {
    return normalize_(scores);
  }

 private:
  Normalize normalize_;
};

// Scales the scores so that the highest becomes kMaxNodeScore.
Status ScaleToMax(NodeScoreList& scores) {
  int64_t highest = 1;
  for (const NodeScore& s : scores) highest = std::max(highest, s.score);
  for (NodeScore& s : scores) s.score = s.score * kMaxNodeScore / highest;
  return Status();
}

// Skips itself at PreScore; its Score fails, so a Score that runs anyway shows.
class SkipsScore : public PreScorePlugin, public ScorePlugin {
 public:
  explicit SkipsScore(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }
  Status PreScore(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&) override {
    return Status::Skip();
  }
  Status Score(const CycleState&, const api::Pod&, const NodeInfo&, int64_t*) override {
    return Status::Error("Score ran although PreScore returned Skip");
  }

 private:
  std::string name_;
};

// Asks every pod to wait `timeout` at Permit.
class Waits : public PermitPlugin {
 public:
  Waits(std::string name, absl::Duration timeout) : name_(std::move(name)), timeout_(timeout) {}
  std::string_view Name() const override { return name_; }
  Status Permit(CycleState&, const api::Pod&, std::string_view, absl::Duration* timeout) override {
    *timeout = timeout_;
    return Status(Code::kWait);
  }

 private:
  std::string name_;
  absl::Duration timeout_;
};

// Returns `result` at every extension point it implements.
class Fails : public PreFilterPlugin,
              public FilterPlugin,
              public PostFilterPlugin,
              public PreScorePlugin,
              public ScorePlugin,
              public ReservePlugin,
              public PermitPlugin,
              public PreBindPlugin,
              public BindPlugin {
 public:
  Fails(std::string name, Status result) : name_(std::move(name)), result_(std::move(result)) {}
  std::string_view Name() const override { return name_; }
  Status PreFilter(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&,
                   PreFilterResult*) override {
    return result_;
  }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo&) override { return result_; }
  Status PostFilter(CycleState&, const api::Pod&, const NodeToStatus&, PostFilterResult*) override {
    return result_;
  }
  Status PreScore(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&) override {
    return result_;
  }
  Status Score(const CycleState&, const api::Pod&, const NodeInfo&, int64_t*) override {
    return result_;
  }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override { return result_; }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override {}
  Status Permit(CycleState&, const api::Pod&, std::string_view, absl::Duration*) override {
    return result_;
  }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override { return result_; }
  Status Bind(CycleState&, const api::Pod&, std::string_view) override { return result_; }

 private:
  std::string name_;
  Status result_;
};

config::PluginRef Ref(std::string name, int32_t weight = 0) { return {std::move(name), weight}; }

// A profile with the one queue sort and the one binder that every framework needs, at their own
// extension points; tests add the plugins they are about.
config::Profile MinimalProfile() {
  config::Profile p;
  p.plugins.queue_sort.enabled = {Ref("Sort")};
  p.plugins.bind.enabled = {Ref("Bind")};
  return p;
}

class FrameworkTest : public ::testing::Test {
 protected:
  FrameworkTest() {
    Register<Sorter>("Sort");
    Register<Binder>("Bind", log_);
    for (const char* name : {"n1", "n2", "n3"}) {
      auto info = std::make_unique<NodeInfo>();
      info->SetNode(MakeNode().Name(name).Ptr());
      nodes_.push_back(info.get());
      node_infos_.push_back(std::move(info));
    }
  }

  // Registers plugin type P as `name`; each framework built gets a new P(name, args...).
  template <typename P, typename... Args>
  void Register(const std::string& name, Args... args) {
    absl::Status st = registry_.Register(
        name, [=](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
          return std::make_unique<P>(name, args...);
        });
    ASSERT_TRUE(st.ok()) << st;
  }

  // The framework of `profile`, or nullptr (and a test failure) if it does not build.
  std::unique_ptr<Framework> Build(const config::Profile& profile, const Clock* clock = nullptr) {
    auto fw = Framework::Create(profile, registry_, {.writer = &writer_, .clock = clock});
    if (!fw.ok()) {
      ADD_FAILURE() << fw.status();
      return nullptr;
    }
    return std::move(*fw);
  }

  std::shared_ptr<CallLog> log_ = std::make_shared<CallLog>();
  Registry registry_;
  testing::RecordingWriter writer_;
  std::vector<std::unique_ptr<NodeInfo>> node_infos_;
  std::vector<const NodeInfo*> nodes_;  // n1, n2, n3
  CycleState state_;
  api::Pod pod_ = MakePod().Name("p").Obj();
};

// --- multiPoint expansion -------------------------------------------------------------------

TEST_F(FrameworkTest, MultiPointEnablesAPluginAtEveryExtensionPointItImplements) {
  Register<Fit>("Fit");
  Register<Rank>("Rank");
  config::Profile p;
  p.plugins.multi_point.enabled = {Ref("Sort"), Ref("Fit"), Ref("Rank"), Ref("Bind")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(fw->PluginsByExtensionPoint(),
            (std::map<std::string, std::vector<std::string>>{{"queueSort", {"Sort"}},
                                                             {"preFilter", {"Fit"}},
                                                             {"filter", {"Fit", "Rank"}},
                                                             {"score", {"Rank"}},
                                                             {"reserve", {"Fit"}},
                                                             {"bind", {"Bind"}}}));
  EXPECT_EQ(fw->ScoreWeight("Rank"), 1);  // weight 0 means 1
}

TEST_F(FrameworkTest, SpecificExtensionPointEntryWinsOverMultiPoint) {
  Register<Fit>("Fit");
  Register<Rank>("RankA");
  Register<Rank>("RankB");
  config::Profile p;
  p.plugins.multi_point.enabled = {Ref("Sort"), Ref("Fit"), Ref("RankA", 2), Ref("RankB", 3),
                                   Ref("Bind")};
  // Re-configured at their own points: they move to the front there, with the point's weight.
  p.plugins.score.enabled = {Ref("RankB", 5)};
  p.plugins.filter.enabled = {Ref("RankA")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  auto points = fw->PluginsByExtensionPoint();
  EXPECT_THAT(points["score"], ElementsAre("RankB", "RankA"));
  EXPECT_THAT(points["filter"], ElementsAre("RankA", "Fit", "RankB"));
  EXPECT_EQ(fw->ScoreWeight("RankA"), 2);
  EXPECT_EQ(fw->ScoreWeight("RankB"), 5);
}

// Several re-configured multiPoint plugins come first in the order their point lists them, as
// upstream's expandMultiPointPlugins puts them, then the other multiPoint plugins.
TEST_F(FrameworkTest, ReconfiguredMultiPointPluginsKeepTheirPointsOrder) {
  Register<Rank>("A");
  Register<Rank>("B");
  Register<Rank>("C");
  config::Profile p = MinimalProfile();
  p.plugins.multi_point.enabled = {Ref("A"), Ref("B"), Ref("C")};
  p.plugins.score.enabled = {Ref("C"), Ref("A")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_THAT(fw->PluginsByExtensionPoint()["score"], ElementsAre("C", "A", "B"));
  EXPECT_THAT(fw->PluginsByExtensionPoint()["filter"], ElementsAre("A", "B", "C"));
}

TEST_F(FrameworkTest, DisabledEntryRemovesAMultiPointPluginFromThatPointOnly) {
  Register<Fit>("Fit");
  Register<Rank>("Rank");
  config::Profile p;
  p.plugins.multi_point.enabled = {Ref("Sort"), Ref("Fit"), Ref("Rank"), Ref("Bind")};
  p.plugins.filter.disabled = {Ref("Fit")};
  p.plugins.score.disabled = {Ref("*")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(fw->PluginsByExtensionPoint(),
            (std::map<std::string, std::vector<std::string>>{{"queueSort", {"Sort"}},
                                                             {"preFilter", {"Fit"}},
                                                             {"filter", {"Rank"}},
                                                             {"reserve", {"Fit"}},
                                                             {"bind", {"Bind"}}}));
  EXPECT_FALSE(fw->HasScorePlugins());
}

TEST_F(FrameworkTest, BuildErrorNamesTheExtensionPointOfABadEntry) {
  config::Profile unknown = MinimalProfile();
  unknown.plugins.score.enabled = {Ref("Nope")};
  auto fw = Framework::Create(unknown, registry_, {});
  EXPECT_EQ(fw.status().message(), "ScorePlugin \"Nope\" does not exist");

  config::Profile wrong_point = MinimalProfile();
  wrong_point.plugins.filter.enabled = {Ref("Sort")};
  fw = Framework::Create(wrong_point, registry_, {});
  EXPECT_EQ(fw.status().message(), "plugin \"Sort\" does not extend FilterPlugin plugin");
}

// Rank, as an adapter that derives from every interface Rank has but forwards only Score: it says
// so through Plugin::Serves, and the framework takes its word.
class ScoreOnlyRank : public Rank {
 public:
  using Rank::Rank;
  bool Serves(const std::type_info& interface) const override {
    return interface == typeid(ScorePlugin);
  }
};

TEST_F(FrameworkTest, APluginServesOnlyTheInterfacesItSaysItServes) {
  Register<ScoreOnlyRank>("Adapted");
  config::Profile multi = MinimalProfile();
  multi.plugins.multi_point.enabled = {Ref("Adapted")};
  auto fw = Build(multi);
  ASSERT_NE(fw, nullptr);
  EXPECT_THAT(fw->PluginsByExtensionPoint()["score"], ElementsAre("Adapted"));
  EXPECT_FALSE(fw->PluginsByExtensionPoint().contains("filter"));

  config::Profile at_filter = MinimalProfile();
  at_filter.plugins.filter.enabled = {Ref("Adapted")};
  EXPECT_EQ(Framework::Create(at_filter, registry_, {}).status().message(),
            "plugin \"Adapted\" does not extend FilterPlugin plugin");
}

// The default plugins, merged as a config file's profile is (config::MergeDefaultPlugins).
class DefaultPluginsTest : public ::testing::Test {
 protected:
  std::unique_ptr<Framework> Build(config::Profile p) {
    config::MergeDefaultPlugins(p);
    auto fw = Framework::Create(p, registry_, {});
    if (!fw.ok()) {
      ADD_FAILURE() << fw.status();
      return nullptr;
    }
    return std::move(*fw);
  }
  Registry registry_ = plugins::NewInTreeRegistry();
};

TEST_F(DefaultPluginsTest, ExplicitMultiPointEntryOverridesTheDefaultOneInItsPlace) {
  auto defaults = Build(config::Profile{});
  config::Profile p;
  p.plugins.multi_point.enabled = {Ref(names::kTaintToleration, 10)};
  auto fw = Build(p);
  ASSERT_NE(defaults, nullptr);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(defaults->ScoreWeight(names::kTaintToleration), 3);
  EXPECT_EQ(fw->ScoreWeight(names::kTaintToleration), 10);
  EXPECT_EQ(fw->PluginsByExtensionPoint(), defaults->PluginsByExtensionPoint());
}

TEST_F(DefaultPluginsTest, ScoreEntryOfADefaultPluginMovesItFirstWithItsWeight) {
  config::Profile p;
  p.plugins.score.enabled = {Ref(names::kImageLocality, 5)};
  p.plugins.filter.disabled = {Ref(names::kNodeAffinity)};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  auto points = fw->PluginsByExtensionPoint();
  ASSERT_FALSE(points["score"].empty());
  EXPECT_EQ(points["score"].front(), names::kImageLocality);
  EXPECT_EQ(fw->ScoreWeight(names::kImageLocality), 5);
  EXPECT_THAT(points["filter"], ::testing::Not(::testing::Contains(names::kNodeAffinity)));
  EXPECT_THAT(points["preFilter"], ::testing::Contains(names::kNodeAffinity));
  EXPECT_THAT(points["score"], ::testing::Contains(names::kNodeAffinity));
}

// --- Score: weights and normalization ----------------------------------------------------------

// plugin.h's rule, as upstream's: once a Reserve fails, Unreserve runs on every Reserve plugin in
// reverse order, the one that failed and those that never reserved included.
TEST_F(FrameworkTest, UnreserveRunsOnEveryReservePluginInReverseOrder) {
  Register<Reserves>("A", log_);
  Register<Reserves>("B", log_, Status::Unschedulable("no room"));
  Register<Reserves>("C", log_);
  config::Profile p = MinimalProfile();
  p.plugins.reserve.enabled = {Ref("A"), Ref("B"), Ref("C")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  Status st = fw->RunReservePluginsReserve(state_, pod_, "n1");
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.plugin(), "B");
  fw->RunReservePluginsUnreserve(state_, pod_, "n1");
  EXPECT_EQ(log_->calls(), (std::vector<std::string>{"A.Reserve", "B.Reserve", "C.Unreserve",
                                                     "B.Unreserve", "A.Unreserve"}));
}

TEST_F(FrameworkTest, ScoresAreNormalizedThenWeightedAndSummedPerNode) {
  Register<Rank>("Raw", std::map<std::string, int64_t>{{"n1", 10}, {"n2", 50}, {"n3", 100}});
  Register<NormalizedRank>("Scaled",
                           std::map<std::string, int64_t>{{"n1", 1}, {"n2", 2}, {"n3", 4}},
                           NormalizedRank::Normalize(ScaleToMax));
  config::Profile p = MinimalProfile();
  p.plugins.score.enabled = {Ref("Raw", 2), Ref("Scaled", 3)};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  ScoreTable table;
  ASSERT_TRUE(fw->RunScorePlugins(state_, pod_, nodes_, &table).ok());
  EXPECT_THAT(table.plugins, ElementsAre("Raw", "Scaled"));
  // Raw: 10 50 100, times 2. Scaled: 1 2 4 normalized to 25 50 100, times 3.
  EXPECT_THAT(table.weighted, ElementsAre(20, 100, 200, 75, 150, 300));
  EXPECT_EQ(table.Weighted(1, 0), 75);
  EXPECT_THAT(table.totals, ElementsAre(95, 250, 500));
}

// A PlacementGenerate plugin that splits the parent by node name: one placement per node, or
// `result` when it is not Success.
class Splits : public PlacementGeneratePlugin {
 public:
  Splits(std::string name, Status result = Status())
      : name_(std::move(name)), result_(std::move(result)) {}
  std::string_view Name() const override { return name_; }
  Status GeneratePlacements(const api::PodGroup&, const Placement& parent,
                            std::vector<Placement>* out) override {
    if (!result_.ok()) return result_;
    for (const NodeInfo* n : parent.nodes) out->push_back({.name = n->name(), .nodes = {n}});
    return Status();
  }

 private:
  std::string name_;
  Status result_;
};

// A PlacementScore plugin scoring each placement by `scores` (by its name), normalized by
// `normalize` if given.
class PlacementRank : public PlacementScorePlugin {
 public:
  using Normalize = std::function<Status(std::span<int64_t>)>;
  PlacementRank(std::string name, std::map<std::string, int64_t> scores,
                Normalize normalize = nullptr)
      : name_(std::move(name)), scores_(std::move(scores)), normalize_(std::move(normalize)) {}
  std::string_view Name() const override { return name_; }
  Status ScorePlacement(const api::PodGroup&, const PodGroupAssignments& a,
                        int64_t* score) override {
    auto it = scores_.find(a.placement->name);
    if (it == scores_.end()) return Status::Error("no score for " + a.placement->name);
    *score = it->second;
    return Status();
  }
  Status NormalizePlacementScores(const api::PodGroup&, std::span<int64_t> scores) override {
    return normalize_ ? normalize_(scores) : Status();
  }

 private:
  std::string name_;
  std::map<std::string, int64_t> scores_;
  Normalize normalize_;
};

TEST_F(FrameworkTest, PlacementsComeFromTheOnePlacementGeneratePlugin) {
  Register<Splits>("Splits");
  Register<Splits>("Fails", Status::Error("error for test"));
  Register<Splits>("Other");
  const api::PodGroup group;
  std::vector<Placement> placements;
  // Without one, the parent is the only placement.
  auto fw = Build(MinimalProfile());
  ASSERT_NE(fw, nullptr);
  ASSERT_TRUE(fw->RunPlacementGeneratePlugins(group, {.nodes = nodes_}, &placements).ok());
  ASSERT_EQ(placements.size(), 1u);
  EXPECT_EQ(placements[0].nodes.size(), 3u);

  config::Profile p = MinimalProfile();
  p.plugins.placement_generate.enabled = {Ref("Splits")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_THAT(fw->PluginsByExtensionPoint()["placementGenerate"], ElementsAre("Splits"));
  ASSERT_TRUE(fw->RunPlacementGeneratePlugins(group, {.nodes = nodes_}, &placements).ok());
  ASSERT_EQ(placements.size(), 3u);
  EXPECT_EQ(placements[1].name, "n2");
  // None: the group cannot be placed, and the plugin is named.
  Status s = fw->RunPlacementGeneratePlugins(group, {.nodes = {}}, &placements);
  EXPECT_EQ(Describe(s), "Unschedulable: no feasible placements found");
  EXPECT_EQ(s.plugin(), "Splits");

  p.plugins.placement_generate.enabled = {Ref("Fails")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  s = fw->RunPlacementGeneratePlugins(group, {.nodes = nodes_}, &placements);
  EXPECT_EQ(Describe(s), "Error: error for test");
  EXPECT_EQ(s.plugin(), "Fails");

  p.plugins.placement_generate.enabled = {Ref("Splits"), Ref("Other")};
  auto two = Framework::Create(p, registry_, {.writer = &writer_});
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(std::string(two.status().message()),
            "at most one placement generate plugin is allowed for profile with scheduler name "
            "\"default-scheduler\"");
}

TEST_F(FrameworkTest, PlacementScoresAreNormalizedCheckedWeightedAndSummed) {
  auto scale = [](std::span<int64_t> scores) {
    for (int64_t& s : scores) s *= 10;
    return Status();
  };
  Register<PlacementRank>("A", std::map<std::string, int64_t>{{"r1", 50}, {"r2", 75}});
  Register<PlacementRank>("B", std::map<std::string, int64_t>{{"r1", 5}, {"r2", 2}},
                          PlacementRank::Normalize(scale));
  Register<PlacementRank>("Big", std::map<std::string, int64_t>{{"r1", 101}, {"r2", 0}});
  const api::PodGroup group;
  const Placement r1{.name = "r1"}, r2{.name = "r2"};
  const std::vector<PodGroupAssignments> assignments = {{.placement = &r1}, {.placement = &r2}};
  config::Profile p = MinimalProfile();
  // Weights as Score's: the point's own, then multiPoint's; upstream's case of weights 1 and 2.
  p.plugins.placement_score.enabled = {Ref("A")};
  p.plugins.multi_point.enabled = {Ref("B", 2)};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_THAT(fw->PluginsByExtensionPoint()["placementScore"], ElementsAre("B", "A"));
  std::vector<int64_t> totals;
  ASSERT_TRUE(fw->RunPlacementScorePlugins(group, assignments, &totals).ok());
  // r1: 50 + 50 * 2; r2: 75 + 20 * 2.
  EXPECT_THAT(totals, ElementsAre(150, 115));

  p = MinimalProfile();
  p.plugins.placement_score.enabled = {Ref("Big")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(Describe(fw->RunPlacementScorePlugins(group, assignments, &totals)),
            "Error: applying score defaultWeights on PlacementScore plugins: plugin \"Big\" "
            "returns an invalid score 101, it should in the range of [0, 100] after normalizing");
  const Placement r3{.name = "r3"};
  p.plugins.placement_score.enabled = {Ref("A")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  const std::vector<PodGroupAssignments> unknown = {{.placement = &r3}};
  EXPECT_EQ(Describe(fw->RunPlacementScorePlugins(group, unknown, &totals)),
            "Error: running PlacementScore plugins: plugin \"A\" failed with: no score for r3");
}

TEST_F(FrameworkTest, PluginSkippedAtPreScoreDoesNotScore) {
  Register<Rank>("Raw", std::map<std::string, int64_t>{{"n1", 10}, {"n2", 20}, {"n3", 30}});
  Register<SkipsScore>("Skips");
  config::Profile p = MinimalProfile();
  p.plugins.pre_score.enabled = {Ref("Skips")};
  p.plugins.score.enabled = {Ref("Skips"), Ref("Raw")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  ASSERT_TRUE(fw->RunPreScorePlugins(state_, pod_, nodes_).ok());
  ScoreTable table;
  Status s = fw->RunScorePlugins(state_, pod_, nodes_, &table);
  ASSERT_TRUE(s.ok()) << Describe(s);
  EXPECT_THAT(table.plugins, ElementsAre("Raw"));
  EXPECT_THAT(table.totals, ElementsAre(10, 20, 30));
}

TEST_F(FrameworkTest, ScoreOutOfRangeAfterNormalizingIsAnError) {
  auto doubled = [](NodeScoreList& scores) {
    for (NodeScore& s : scores) s.score *= 2;
    return Status();
  };
  Register<NormalizedRank>("Doubles",
                           std::map<std::string, int64_t>{{"n1", 10}, {"n2", 60}, {"n3", 40}},
                           NormalizedRank::Normalize(doubled));
  config::Profile p = MinimalProfile();
  p.plugins.score.enabled = {Ref("Doubles")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  ScoreTable table;
  EXPECT_EQ(Describe(fw->RunScorePlugins(state_, pod_, nodes_, &table)),
            "Error: applying score defaultWeights on Score plugins: plugin \"Doubles\" returns an "
            "invalid score 120, it should in the range of [0, 100] after normalizing");
}

// --- Permit: wait, allow, reject, timeout ------------------------------------------------------

// WaitOnPermit on a thread of its own, as the binding cycle runs it.
class PermitWaiter {
 public:
  PermitWaiter(Framework& fw, const api::Pod& pod)
      : fw_(fw), uid_(pod.metadata.uid), thread_([this, pod] {
          Status s = fw_.WaitOnPermit(pod);
          absl::MutexLock lock(&mu_);
          result_ = s;
        }) {}
  // Ends a wait that a failed test left blocked, so that the thread can be joined.
  ~PermitWaiter() {
    if (!Returned()) {
      if (std::shared_ptr<WaitingPod> wp = fw_.GetWaitingPod(uid_)) wp->Reject("", "test over");
    }
    thread_.join();
  }
  // Whether WaitOnPermit has returned, after giving it a moment to do so wrongly.
  bool ReturnedEarly() {
    absl::SleepFor(absl::Milliseconds(10));
    return Returned();
  }
  // What WaitOnPermit returned, waiting for it for a while; "still waiting" if it has not.
  std::string Result() {
    absl::MutexLock lock(&mu_);
    auto returned = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return result_.has_value(); };
    if (!mu_.AwaitWithTimeout(absl::Condition(&returned), absl::Seconds(30))) {
      return "still waiting";
    }
    return Describe(*result_);
  }
  std::string_view Plugin() {
    absl::MutexLock lock(&mu_);
    return result_ ? result_->plugin() : "";
  }

 private:
  bool Returned() {
    absl::MutexLock lock(&mu_);
    return result_.has_value();
  }

  Framework& fw_;
  const std::string uid_;
  absl::Mutex mu_;
  std::optional<Status> result_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

class PermitTest : public FrameworkTest {
 protected:
  // A framework whose Permit plugins (WaitA, WaitB, ...) ask to wait `timeouts`, timed by `clock`.
  std::unique_ptr<Framework> BuildWaiting(std::vector<absl::Duration> timeouts,
                                          const Clock* clock) {
    config::Profile p = MinimalProfile();
    for (size_t i = 0; i < timeouts.size(); ++i) {
      std::string name = std::string("Wait") + static_cast<char>('A' + i);
      Register<Waits>(name, timeouts[i]);
      p.plugins.permit.enabled.push_back(Ref(name));
    }
    return Build(p, clock);
  }

  FakeClock clock_;
};

TEST_F(PermitTest, WaitingPodBindsOnceEveryWaitingPluginAllowsIt) {
  auto fw = BuildWaiting({absl::Minutes(10), absl::Minutes(10)}, &clock_);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(fw->RunPermitPlugins(state_, pod_, "n1").code(), Code::kWait);
  std::shared_ptr<WaitingPod> wp = fw->GetWaitingPod("p");
  ASSERT_NE(wp, nullptr);
  EXPECT_THAT(wp->PendingPlugins(), ElementsAre("WaitA", "WaitB"));

  PermitWaiter waiter(*fw, pod_);
  wp->Allow("WaitA");
  EXPECT_THAT(wp->PendingPlugins(), ElementsAre("WaitB"));
  EXPECT_FALSE(waiter.ReturnedEarly());  // WaitB has not allowed it yet
  wp->Allow("WaitB");
  EXPECT_EQ(waiter.Result(), "Success: ");
  EXPECT_EQ(fw->GetWaitingPod("p"), nullptr);
  // A caller that still holds the pod after its wait ended may use it: nothing happens.
  wp->Reject("WaitA", "too late");
  wp->Allow("WaitA");
  EXPECT_EQ(wp->pod().metadata.name, "p");
}

TEST_F(PermitTest, RejectedWaitingPodIsUnschedulableWithTheMessage) {
  auto fw = BuildWaiting({absl::Minutes(10)}, &clock_);
  ASSERT_NE(fw, nullptr);
  ASSERT_EQ(fw->RunPermitPlugins(state_, pod_, "n1").code(), Code::kWait);
  PermitWaiter waiter(*fw, pod_);
  fw->GetWaitingPod("p")->Reject("WaitA", "pod group \"g\" has 1 of 3 members");
  EXPECT_EQ(waiter.Result(), "Unschedulable: pod group \"g\" has 1 of 3 members");
  EXPECT_EQ(waiter.Plugin(), "WaitA");
  EXPECT_EQ(fw->GetWaitingPod("p"), nullptr);
}

TEST_F(PermitTest, WaitTimesOutWhenTheClockPassesTheFirstDeadline) {
  auto fw = BuildWaiting({absl::Minutes(10), absl::Minutes(5)}, &clock_);
  ASSERT_NE(fw, nullptr);
  ASSERT_EQ(fw->RunPermitPlugins(state_, pod_, "n1").code(), Code::kWait);
  PermitWaiter waiter(*fw, pod_);
  clock_.Advance(absl::Minutes(5) - absl::Seconds(1));
  EXPECT_FALSE(waiter.ReturnedEarly());
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(waiter.Result(),
            "Unschedulable: rejected due to timeout after waiting 5m0s at plugin WaitB");
  EXPECT_EQ(waiter.Plugin(), "WaitB");
}

TEST_F(PermitTest, WaitIsCappedAtFifteenMinutes) {
  auto fw = BuildWaiting({absl::Hours(1)}, &clock_);
  ASSERT_NE(fw, nullptr);
  ASSERT_EQ(fw->RunPermitPlugins(state_, pod_, "n1").code(), Code::kWait);
  PermitWaiter waiter(*fw, pod_);
  clock_.Advance(absl::Minutes(15));
  EXPECT_EQ(waiter.Result(),
            "Unschedulable: rejected due to timeout after waiting 15m0s at plugin WaitA");
}

TEST_F(PermitTest, WaitTimesOutInRealTimeWithoutAnInjectedClock) {
  auto fw = BuildWaiting({absl::Milliseconds(50)}, nullptr);
  ASSERT_NE(fw, nullptr);
  const absl::Time start = absl::Now();
  ASSERT_EQ(fw->RunPermitPlugins(state_, pod_, "n1").code(), Code::kWait);
  EXPECT_EQ(Describe(fw->WaitOnPermit(pod_)),
            "Unschedulable: rejected due to timeout after waiting 50ms at plugin WaitA");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
}

TEST_F(PermitTest, PodThatDidNotWaitPassesWaitOnPermit) {
  auto fw = Build(MinimalProfile(), &clock_);
  ASSERT_NE(fw, nullptr);
  EXPECT_TRUE(fw->RunPermitPlugins(state_, pod_, "n1").ok());
  EXPECT_EQ(fw->GetWaitingPod("p"), nullptr);
  EXPECT_TRUE(fw->WaitOnPermit(pod_).ok());
}

// --- Bind ----------------------------------------------------------------------------------------

TEST_F(FrameworkTest, BindPluginThatSkipsPassesThePodToTheNext) {
  Register<Binder>("Skips", log_, Status::Skip());
  config::Profile p = MinimalProfile();
  p.plugins.bind.enabled = {Ref("Skips"), Ref("Bind")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_TRUE(fw->RunBindingPlugins(state_, pod_, "n2", {}).ok());
  EXPECT_THAT(log_->calls(), ElementsAre("Skips:n2", "Bind:n2"));
}

TEST_F(FrameworkTest, FirstBindPluginThatBindsEndsTheBind) {
  Register<Binder>("Other", log_);
  config::Profile p = MinimalProfile();
  p.plugins.bind.enabled = {Ref("Bind"), Ref("Other")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_TRUE(fw->RunBindingPlugins(state_, pod_, "n1", {}).ok());
  EXPECT_THAT(log_->calls(), ElementsAre("Bind:n1"));
}

TEST_F(FrameworkTest, BindIsSkipWhenEveryBindPluginSkips) {
  Register<Binder>("SkipsA", log_, Status::Skip());
  Register<Binder>("SkipsB", log_, Status::Skip());
  config::Profile p = MinimalProfile();
  p.plugins.bind.enabled = {Ref("SkipsA"), Ref("SkipsB")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  // The scheduler turns this into the error "no bind plugin bound the pod".
  EXPECT_EQ(Describe(fw->RunBindingPlugins(state_, pod_, "n1", {})), "Skip: ");
  EXPECT_THAT(log_->calls(), ElementsAre("SkipsA:n1", "SkipsB:n1"));
}

// --- The status of a failing plugin, at each extension point -------------------------------------

struct FailureCase {
  std::string point;
  // Enables "Fails" where this case needs it.
  std::function<void(config::Plugins&)> enable;
  std::function<Status(Framework&, CycleState&, const api::Pod&,
                       const std::vector<const NodeInfo*>&)>
      run;
  std::string want;  // Describe() of the status
};

class PluginErrorTest : public FrameworkTest, public ::testing::WithParamInterface<FailureCase> {};

TEST_P(PluginErrorTest, ErrorNamesThePluginAndTheExtensionPoint) {
  Register<Fails>("Fails", Status::Error("boom"));
  config::Profile p = MinimalProfile();
  GetParam().enable(p.plugins);
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(Describe(GetParam().run(*fw, state_, pod_, nodes_)), GetParam().want);
}

using Nodes = std::vector<const NodeInfo*>;

INSTANTIATE_TEST_SUITE_P(
    EveryPoint, PluginErrorTest,
    ::testing::Values(
        FailureCase{"PreFilter", [](config::Plugins& p) { p.pre_filter.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes& nodes) {
                      PreFilterResult r;
                      std::set<std::string, std::less<>> rejectors;
                      return fw.RunPreFilterPlugins(s, pod, nodes, &r, &rejectors);
                    },
                    "Error: running PreFilter plugin \"Fails\": boom"},
        FailureCase{"Filter", [](config::Plugins& p) { p.filter.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes& nodes) {
                      return fw.RunFilterPlugins(s, pod, *nodes[0]);
                    },
                    "Error: running \"Fails\" filter plugin: boom"},
        FailureCase{"PostFilter",
                    [](config::Plugins& p) { p.post_filter.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes&) {
                      PostFilterResult r;
                      return fw.RunPostFilterPlugins(s, pod, NodeToStatus{}, &r);
                    },
                    "Error: boom"},
        FailureCase{"PreScore", [](config::Plugins& p) { p.pre_score.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes& nodes) {
                      return fw.RunPreScorePlugins(s, pod, nodes);
                    },
                    "Error: running PreScore plugin \"Fails\": boom"},
        FailureCase{"Score", [](config::Plugins& p) { p.score.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes& nodes) {
                      ScoreTable t;
                      return fw.RunScorePlugins(s, pod, nodes, &t);
                    },
                    "Error: running Score plugins: plugin \"Fails\" failed with: boom"},
        FailureCase{"Reserve", [](config::Plugins& p) { p.reserve.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes&) {
                      return fw.RunReservePluginsReserve(s, pod, "n1");
                    },
                    "Error: running Reserve plugin \"Fails\": boom"},
        FailureCase{"Permit", [](config::Plugins& p) { p.permit.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes&) {
                      return fw.RunPermitPlugins(s, pod, "n1");
                    },
                    "Error: running Permit plugin \"Fails\": boom"},
        FailureCase{"PreBind", [](config::Plugins& p) { p.pre_bind.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes&) {
                      return fw.RunBindingPlugins(s, pod, "n1", {0});  // "Fails" has work.
                    },
                    "Error: running PreBind plugin \"Fails\": boom"},
        FailureCase{"Bind", [](config::Plugins& p) { p.bind.enabled = {Ref("Fails")}; },
                    [](Framework& fw, CycleState& s, const api::Pod& pod, const Nodes&) {
                      return fw.RunBindingPlugins(s, pod, "n1", {});
                    },
                    "Error: running Bind plugin \"Fails\": boom"}),
    [](const ::testing::TestParamInfo<FailureCase>& info) { return info.param.point; });

// A PreBind plugin that notes its calls; PreBindPreFlight says whether it has work, and
// PreBindAsync answers `result` at once.
class NotingPreBind : public PreBindPlugin, public AsyncPreBindPlugin {
 public:
  NotingPreBind(std::string name, std::shared_ptr<CallLog> log, bool work, Status result)
      : name_(std::move(name)), log_(std::move(log)), work_(work), result_(std::move(result)) {}
  std::string_view Name() const override { return name_; }
  Status PreBindPreFlight(CycleState&, const api::Pod&, std::string_view) override {
    return work_ ? Status() : Status::Skip();
  }
  Status PreBind(CycleState&, const api::Pod&, std::string_view node) override {
    log_->Add(fmt::format("{}:{}", name_, node));
    return result_;
  }
  void PreBindAsync(CycleState&, const api::Pod&, std::string_view node,
                    std::function<void(Status)> done) override {
    log_->Add(fmt::format("{}:{} async", name_, node));
    done(result_);
  }

 private:
  std::string name_;
  std::shared_ptr<CallLog> log_;
  bool work_;
  Status result_;
};

class AsyncBinder : public Binder, public AsyncBindPlugin {
 public:
  using Binder::Binder;
  void BindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                 std::function<void(Status)> done) override {
    done(Bind(state, pod, node));
  }
};

TEST_F(FrameworkTest, AsyncPreBindRunsThePluginsWithWorkInOrderAndStopsAtAFailure) {
  Register<NotingPreBind>("A", log_, true, Status());
  Register<NotingPreBind>("Idle", log_, false, Status());
  Register<NotingPreBind>("Fails", log_, true, Status::Error("boom"));
  Register<NotingPreBind>("C", log_, true, Status());
  Register<AsyncBinder>("AsyncBind", log_);
  config::Profile p = MinimalProfile();
  p.plugins.bind.enabled = {Ref("AsyncBind")};
  p.plugins.pre_bind.enabled = {Ref("A"), Ref("Idle"), Ref("C")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  Framework::PreBindWork work;
  ASSERT_TRUE(fw->RunPreBindPreFlights(state_, pod_, "n1", &work).ok());
  EXPECT_THAT(work, ElementsAre(0, 2));
  EXPECT_TRUE(fw->CanBindAsync(Status(), work));
  std::optional<Status> answer;
  fw->RunBindingPluginsAsync(state_, pod_, "n1", work, [&](Status s) { answer = std::move(s); });
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->ok());
  // Idle had no work; the bind follows PreBind.
  EXPECT_THAT(log_->calls(), ElementsAre("A:n1 async", "C:n1 async", "AsyncBind:n1"));

  p.plugins.pre_bind.enabled = {Ref("A"), Ref("Fails"), Ref("C")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  work.clear();
  ASSERT_TRUE(fw->RunPreBindPreFlights(state_, pod_, "n1", &work).ok());
  fw->RunBindingPluginsAsync(state_, pod_, "n1", work, [&](Status s) { answer = std::move(s); });
  EXPECT_EQ(Describe(*answer), "Error: running PreBind plugin \"Fails\": boom");
  EXPECT_EQ(answer->plugin(), "Fails");
  EXPECT_EQ(log_->calls().back(), "Fails:n1 async");  // C never ran.

  // A PreBind plugin with work that only blocks, or a Bind plugin that does: a binding thread.
  Register<Fails>("Blocks", Status());  // A PreBindPlugin alone, with work (the default).
  p.plugins.pre_bind.enabled = {Ref("A"), Ref("Blocks")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  work.clear();
  ASSERT_TRUE(fw->RunPreBindPreFlights(state_, pod_, "n1", &work).ok());
  EXPECT_FALSE(fw->CanBindAsync(Status(), work));
  p.plugins.bind.enabled = {Ref("Bind")};
  p.plugins.pre_bind.enabled = {Ref("A")};
  fw = Build(p);
  ASSERT_NE(fw, nullptr);
  EXPECT_FALSE(fw->CanBindAsync(Status(), Framework::PreBindWork{0}));
  EXPECT_FALSE(fw->CanBindAsync(Status::Skip(), {}));
}

// A PreBind plugin whose asynchronous form answers from a thread of its own, as the HTTP client's
// I/O thread answers a request; and one that only blocks, noting the thread it ran on.
class AnswersElsewhere : public PreBindPlugin, public AsyncPreBindPlugin {
 public:
  explicit AnswersElsewhere(const std::string&) {}
  ~AnswersElsewhere() override {
    if (answerer_.joinable()) answerer_.join();
  }
  std::string_view Name() const override { return "AnswersElsewhere"; }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override {
    return Status::Error("the waiting cycle calls the asynchronous form");
  }
  void PreBindAsync(CycleState&, const api::Pod&, std::string_view,
                    std::function<void(Status)> done) override {
    answerer_ = std::thread([done = std::move(done)] { done(Status()); });
  }

 private:
  std::thread answerer_;
};

class NotesItsThread : public PreBindPlugin {
 public:
  NotesItsThread(const std::string&, std::thread::id* ran_on) : ran_on_(ran_on) {}
  std::string_view Name() const override { return "NotesItsThread"; }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override {
    *ran_on_ = std::this_thread::get_id();
    return Status();
  }

 private:
  std::thread::id* ran_on_;
};

// The synchronous binding cycle is the waiting adapter over the same chain: an answer that arrives
// on another thread is handed back, so that the blocking plugin after it runs on the binding
// thread, never on the thread that answered, and the bind follows.
TEST_F(FrameworkTest, TheWaitingCycleRunsEveryBlockingPluginOnItsOwnThread) {
  std::thread::id ran_on;
  Register<AnswersElsewhere>("AnswersElsewhere");
  Register<NotesItsThread>("NotesItsThread", &ran_on);
  config::Profile p = MinimalProfile();
  p.plugins.pre_bind.enabled = {Ref("AnswersElsewhere"), Ref("NotesItsThread")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  Framework::PreBindWork work;
  ASSERT_TRUE(fw->RunPreBindPreFlights(state_, pod_, "n1", &work).ok());
  EXPECT_FALSE(fw->CanBindAsync(Status(), work));  // NotesItsThread blocks.
  EXPECT_TRUE(fw->RunBindingPlugins(state_, pod_, "n1", work).ok());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_THAT(log_->calls(), ElementsAre("Bind:n1"));
}

TEST_F(FrameworkTest, NormalizeScoreErrorNamesThePlugin) {
  Register<NormalizedRank>(
      "Rank", std::map<std::string, int64_t>{{"n1", 1}, {"n2", 2}, {"n3", 3}},
      NormalizedRank::Normalize([](NodeScoreList&) { return Status::Error("boom"); }));
  config::Profile p = MinimalProfile();
  p.plugins.score.enabled = {Ref("Rank")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  ScoreTable table;
  EXPECT_EQ(Describe(fw->RunScorePlugins(state_, pod_, nodes_, &table)),
            "Error: running Normalize on Score plugins: plugin \"Rank\" failed with: boom");
}

TEST_F(FrameworkTest, RejectionKeepsThePluginsMessageAndNamesThePlugin) {
  Register<Fails>("Cold", Status::Unschedulable("node(s) were too cold"));
  config::Profile p = MinimalProfile();
  p.plugins.filter.enabled = {Ref("Cold")};
  p.plugins.reserve.enabled = {Ref("Cold")};
  p.plugins.permit.enabled = {Ref("Cold")};
  auto fw = Build(p);
  ASSERT_NE(fw, nullptr);
  for (const Status& s : {fw->RunFilterPlugins(state_, pod_, *nodes_[0]),
                          fw->RunReservePluginsReserve(state_, pod_, "n1"),
                          fw->RunPermitPlugins(state_, pod_, "n1")}) {
    EXPECT_EQ(Describe(s), "Unschedulable: node(s) were too cold");
    EXPECT_EQ(s.plugin(), "Cold");
  }
}

}  // namespace
}  // namespace ksched::framework
