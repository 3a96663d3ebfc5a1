#include "src/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include "src/plugins/registry.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::queue {
namespace {

using testing::MakeNode;
using testing::MakePod;

class QueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = plugins::NewInTreeRegistry();
    auto fw = framework::Framework::Create(config::DefaultConfiguration().profiles[0], registry_,
                                           {.writer = &writer_});
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = std::move(*fw);
    q_ = std::make_unique<SchedulingQueue>(QueueOptions{}, &clock_, [this](std::string_view name) {
      return name == "default-scheduler" ? fw_.get() : nullptr;
    });
  }
  static std::shared_ptr<const PodInfo> Info(const MakePod& p) { return PodInfo::Make(p.Ptr()); }
  // A node with room for the 2-CPU pods of these tests.
  static std::shared_ptr<const api::Node> Big() {
    return MakeNode().Name("m").Capacity({{"cpu", "4"}, {"pods", "10"}}).Ptr();
  }
  std::string PopName() {
    auto p = q_->Pop();
    return p ? p->pod().metadata.name : "<none>";
  }
  // Pops the pod and reports it unschedulable, rejected by `plugin`.
  void FailWith(const std::string& name, const std::string& plugin) {
    auto p = q_->Pop();
    ASSERT_TRUE(p && p->pod().metadata.name == name);
    p->unschedulable_plugins = {plugin};
    q_->AddUnschedulableIfNotPresent(*p);
  }

  FakeClock clock_;
  testing::RecordingWriter writer_;
  Registry registry_;
  std::unique_ptr<framework::Framework> fw_;
  std::unique_ptr<SchedulingQueue> q_;
};

TEST_F(QueueTest, HigherPriorityFirstThenFifo) {
  q_->Add(Info(MakePod().Name("a").Priority(1)));
  clock_.Advance(absl::Seconds(1));
  q_->Add(Info(MakePod().Name("b").Priority(10)));
  q_->Add(Info(MakePod().Name("c").Priority(1)));
  EXPECT_EQ(PopName(), "b");
  EXPECT_EQ(PopName(), "a");
  EXPECT_EQ(PopName(), "c");
  EXPECT_EQ(PopName(), "<none>");
}

// A pod's first attempt dates from when it first entered the active queue, not from its pop
// (upstream's moveToActiveQ): the time Coscheduling's sort orders pods outside a group by, and the
// start of scheduler_pod_scheduling_sli_duration_seconds.
TEST_F(QueueTest, TheFirstAttemptDatesFromEnteringTheActiveQueue) {
  const absl::Time added = clock_.Now();
  q_->Add(Info(MakePod().Name("a")));
  clock_.Advance(absl::Seconds(30));
  std::optional<QueuedPodInfo> p = q_->Pop();
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->initial_attempt_timestamp, added);
}

TEST_F(QueueTest, GatedPodWaitsUntilItsGatesAreRemoved) {
  q_->Add(Info(MakePod().Name("g").SchedulingGate("example.com/x")));
  EXPECT_EQ(q_->Counts().gated, 1u);
  EXPECT_EQ(PopName(), "<none>");
  // Other events don't release it.
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}});
  EXPECT_EQ(PopName(), "<none>");
  q_->Update(Info(MakePod().Name("g")));
  EXPECT_EQ(q_->Counts().gated, 0u);
  EXPECT_EQ(PopName(), "g");
}

TEST_F(QueueTest, BackoffDoublesUpToTheMaximum) {
  // Errors (no rejecting plugin) back off and are not popped early. A backoff ends when the
  // second after the one its end falls in begins: failing at x.25 s, the pod waits 0.75 s more.
  q_->Add(Info(MakePod().Name("e")));
  std::vector<double> waits;
  for (int i = 0; i < 6; ++i) {
    auto p = q_->Pop();
    ASSERT_TRUE(p.has_value()) << "attempt " << i;
    clock_.Advance(absl::Milliseconds(250));
    absl::Time failed_at = clock_.Now();
    q_->AddUnschedulableIfNotPresent(*p);
    EXPECT_FALSE(q_->Pop().has_value());
    waits.push_back(absl::ToDoubleSeconds(q_->NextBackoffExpiry() - failed_at));
    clock_.Set(q_->NextBackoffExpiry() - absl::Nanoseconds(1));
    q_->FlushBackoffQCompleted();
    EXPECT_EQ(q_->Counts().backoff, 1u) << "attempt " << i;
    clock_.Set(q_->NextBackoffExpiry());
    q_->FlushBackoffQCompleted();
    EXPECT_EQ(q_->Counts().active, 1u) << "attempt " << i;
  }
  EXPECT_EQ(waits, (std::vector<double>{1.75, 2.75, 4.75, 8.75, 10.75, 10.75}));
}

// KEP-5142: pods whose backoffs end in the same second come back by priority, not in the order
// they failed; those of a later second come after them, whatever their priority.
TEST_F(QueueTest, PodsWhoseBackoffsEndInOneSecondComeBackByPriority) {
  clock_.Advance(absl::Milliseconds(100));
  q_->Add(Info(MakePod().Name("a").Priority(1)));
  FailWith("a", "NodeResourcesFit");  // Its backoff ends at 1.1 s: in second 1.
  clock_.Advance(absl::Milliseconds(500));
  q_->Add(Info(MakePod().Name("b").Priority(10)));
  FailWith("b", "NodeResourcesFit");  // 1.6 s: second 1.
  clock_.Advance(absl::Milliseconds(600));
  q_->Add(Info(MakePod().Name("c").Priority(100)));
  FailWith("c", "NodeResourcesFit");  // 2.2 s: second 2.
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}, .new_node = Big()});
  EXPECT_EQ(q_->Counts().backoff, 3u);  // At 1.2 s, all still back off.
  EXPECT_EQ(PopName(), "b");
  EXPECT_EQ(PopName(), "a");
  EXPECT_EQ(PopName(), "c");
}

TEST_F(QueueTest, UnschedulablePodMovesOnlyOnEventsItsPluginsCareAbout) {
  q_->Add(Info(MakePod().Name("p").Req("cpu", "2")));
  FailWith("p", "NodeResourcesFit");
  EXPECT_EQ(q_->Counts().unschedulable, 1u);
  // A label change on a node: NodeResourcesFit did not register it.
  auto small = MakeNode().Name("n").Capacity({{"cpu", "1"}, {"pods", "10"}}).Ptr();
  auto labeled = std::make_shared<api::Node>(*small);
  labeled->metadata.labels["x"] = "y";
  q_->MoveAllToActiveOrBackoffQueue(
      {.event = {EventResource::kNode, kUpdateNodeLabel}, .old_node = small, .new_node = labeled});
  EXPECT_EQ(q_->Counts().unschedulable, 1u);
  // A new node too small for the pod: the hint says skip.
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}, .new_node = small});
  EXPECT_EQ(q_->Counts().unschedulable, 1u);
  // A node that fits: queued.
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}, .new_node = Big()});
  EXPECT_EQ(q_->Counts().unschedulable, 0u);
  EXPECT_EQ(PopName(), "p");  // popped early from backoffQ: activeQ is empty
}

TEST_F(QueueTest, LeftoverUnschedulablePodsAreFlushedAfterFiveMinutes) {
  q_->Add(Info(MakePod().Name("p")));
  FailWith("p", "NodeResourcesFit");
  clock_.Advance(absl::Minutes(4));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(q_->Counts().unschedulable, 1u);
  clock_.Advance(absl::Minutes(2));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(q_->Counts().unschedulable, 0u);
  EXPECT_EQ(PopName(), "p");
}

TEST_F(QueueTest, DeletedPodLeavesEveryPart) {
  q_->Add(Info(MakePod().Name("a")));
  q_->Add(Info(MakePod().Name("b")));
  FailWith("a", "NodeResourcesFit");
  q_->Delete("a");
  q_->Delete("b");
  EXPECT_FALSE(q_->Contains("a"));
  EXPECT_EQ(PopName(), "<none>");
  QueueCounts c = q_->Counts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable + c.gated + c.in_flight, 0u);
}

TEST_F(QueueTest, EventDuringTheCycleThatMayHelpSendsTheFailedPodToBackoff) {
  q_->Add(Info(MakePod().Name("p").Req("cpu", "2")));
  auto p = q_->Pop();
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}, .new_node = Big()});
  p->unschedulable_plugins = {"NodeResourcesFit"};
  q_->AddUnschedulableIfNotPresent(*p);
  EXPECT_EQ(q_->Counts().unschedulable, 0u);
  EXPECT_EQ(q_->Counts().backoff, 1u);
}

// Upstream's in-flight events: events during the cycle are replayed through the rejecting
// plugins' hints, so an event that cannot help leaves the pod unschedulable.
TEST_F(QueueTest, EventDuringTheCycleThatCannotHelpLeavesThePodUnschedulable) {
  q_->Add(Info(MakePod().Name("p").Req("cpu", "2")));
  auto p = q_->Pop();
  auto small = MakeNode().Name("n").Capacity({{"cpu", "1"}, {"pods", "10"}}).Ptr();
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}, .new_node = small});
  p->unschedulable_plugins = {"NodeResourcesFit"};
  q_->AddUnschedulableIfNotPresent(*p);
  EXPECT_EQ(q_->Counts().unschedulable, 1u);
  EXPECT_EQ(q_->Counts().backoff, 0u);
}

// An event that came before the pod was popped is not replayed to it.
TEST_F(QueueTest, EventBeforeThePopIsNotReplayed) {
  q_->Add(Info(MakePod().Name("busy")));
  auto busy = q_->Pop();  // Keeps a pod in flight, so that events are kept.
  q_->MoveAllToActiveOrBackoffQueue({.event = {EventResource::kNode, kAdd}, .new_node = Big()});
  q_->Add(Info(MakePod().Name("p").Req("cpu", "2")));
  auto p = q_->Pop();
  ASSERT_TRUE(p && p->pod().metadata.name == "p");
  p->unschedulable_plugins = {"NodeResourcesFit"};
  q_->AddUnschedulableIfNotPresent(*p);
  EXPECT_EQ(q_->Counts().unschedulable, 1u);
}

}  // namespace
}  // namespace ksched::queue

namespace ksched::queue {
namespace {

// A sort whose answers change while pods wait, as Coscheduling's do (a group that fails moves
// behind): by name, or by name reversed once `flipped`.
class FlippingSort : public QueueSortPlugin {
 public:
  explicit FlippingSort(const bool* flipped) : flipped_(flipped) {}
  std::string_view Name() const override { return "FlippingSort"; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override {
    return *flipped_ ? b.pod().metadata.name < a.pod().metadata.name
                     : a.pod().metadata.name < b.pod().metadata.name;
  }

 private:
  const bool* flipped_;
};

// A pod leaves the active queue where it was put, whatever the sort says by then: each pod is
// popped once, none is lost and none comes back (a lookup by the changed order had left a
// popped pod in the queue, to be popped again and again, and lost another).
TEST(QueueSortTest, AnOrderThatChangesWhilePodsWaitLosesNoPodAndRepeatsNone) {
  bool flipped = false;
  Registry registry = plugins::NewInTreeRegistry();
  ASSERT_TRUE(
      registry
          .Register("FlippingSort",
                    [&](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                      return std::make_unique<FlippingSort>(&flipped);
                    })
          .ok());
  config::Profile profile = config::DefaultConfiguration().profiles[0];
  profile.plugins.queue_sort = {.enabled = {{"FlippingSort", 0}}, .disabled = {{"*", 0}}};
  testing::RecordingWriter writer;
  auto fw = framework::Framework::Create(profile, registry, {.writer = &writer});
  ASSERT_TRUE(fw.ok()) << fw.status();
  FakeClock clock;
  SchedulingQueue q(QueueOptions{}, &clock,
                    [&](std::string_view) -> const framework::Framework* { return fw->get(); });
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g"}) {
    q.Add(PodInfo::Make(MakePod().Name(name).Ptr()));
  }
  std::vector<std::string> popped;
  popped.push_back(q.Pop()->pod().metadata.name);
  flipped = true;
  // Pods leave the queue (deleted, updated) by the order they were put in with.
  q.Delete("d");
  q.Update(PodInfo::Make(MakePod().Name("e").Label("x", "y").Ptr()));
  while (std::optional<QueuedPodInfo> p = q.Pop()) popped.push_back(p->pod().metadata.name);
  std::sort(popped.begin(), popped.end());
  EXPECT_EQ(popped, (std::vector<std::string>{"a", "b", "c", "e", "f", "g"}));
}

}  // namespace
}  // namespace ksched::queue
