// The scheduler with HTTP extenders (the test extender, on loopback): where upstream calls them,
// and what a pod's events and conditions say.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "fmt/format.h"
#include "src/api/decode.h"
#include "src/plugins/registry.h"
#include "src/scheduler/explain_records.h"
#include "src/scheduler/scheduler.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "test/extender/test_extender.h"

namespace ksched::scheduler {
namespace {

using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;
using testing::TestExtender;

class ExtenderSchedulingTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ext_.Start()); }
  void TearDown() override { api::KeepObjectJson(false); }

  // The scheduler with one extender of `config` (urlPrefix the test extender's) and nodes n1..n3
  // of 2 CPUs.
  void Build(nlohmann::json config) {
    config["urlPrefix"] = ext_.url();
    BuildMany({std::move(config)});
  }
  // The same with extenders as configured (their urlPrefix included).
  void BuildMany(std::vector<nlohmann::json> configs) {
    config::Configuration cfg = config::DefaultConfiguration();
    cfg.extenders = std::move(configs);
    auto s = Scheduler::Create({.config = std::move(cfg),
                                .writer = &writer_,
                                .clock = &clock_,
                                .seed = 1,
                                .observers = {&explain_}},
                               plugins::NewInTreeRegistry());
    ASSERT_TRUE(s.ok()) << s.status();
    s_ = std::move(*s);
    for (const char* n : {"n1", "n2", "n3"}) {
      s_->OnNodeAdd(MakeNode().Name(n).Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
    }
  }
  void AddPod(const MakePod& p) {
    auto pod = std::make_shared<const api::Pod>(p.Obj());
    pods_[pod->metadata.namespace_ + "/" + pod->metadata.name] = pod;
    s_->OnPodAdd(pod);
  }
  void Drain() {
    while (s_->ScheduleOne()) {
      s_->WaitForBindings();
    }
  }
  std::string LastEvent(const std::string& key, const std::string& reason) {
    std::string out;
    for (const auto& e : writer_.events) {
      if (e.pod == key && e.reason == reason) out = e.message;
    }
    return out;
  }

  TestExtender ext_;
  ExplainRecords explain_;  // What `ksched explain` reads.
  testing::RecordingWriter writer_;
  FakeClock clock_;
  std::unique_ptr<Scheduler> s_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
};

TEST_F(ExtenderSchedulingTest, FilterRemovesNodesAndPrioritizeAddsWeightedScores) {
  Build({{"filterVerb", "filter"},
         {"prioritizeVerb", "prioritize"},
         {"weight", 5},
         {"nodeCacheCapable", true}});
  AddPod(MakePod()
             .Name("p")
             .Annotation("test-extender/reject", "n2")
             .Annotation("test-extender/scores", "n1=1,n3=2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "n3");  // 2 * 5 * 10 beats 1 * 5 * 10.
  EXPECT_EQ(ext_.calls("filter"), 1);
  EXPECT_EQ(ext_.calls("prioritize"), 1);
  // Only n1 and n3 passed the filter, so only they are scored.
  EXPECT_THAT(ext_.last_body("prioritize"), HasSubstr(R"("NodeNames":["n1","n3"])"));
  // `ksched explain` names the extender for the node it rejected and for its scores.
  std::optional<nlohmann::ordered_json> j = explain_.Json("default", "p");
  ASSERT_TRUE(j.has_value());
  EXPECT_THAT(j->dump(), HasSubstr(fmt::format(R"("plugin":"{}")", ext_.url())));
  EXPECT_THAT(j->dump(), HasSubstr(fmt::format(R"("{}":100)", ext_.url())));
}

// Two prioritizers (the test extender under two names) are asked at once, and each one's scores
// count by its own weight: n1's 3 is 30 points from the first (weight 1), 120 from the second.
TEST_F(ExtenderSchedulingTest, EachPrioritizerCountsByItsOwnWeight) {
  const std::string other = "http://localhost:" + ext_.url().substr(ext_.url().rfind(':') + 1);
  BuildMany({{{"urlPrefix", ext_.url()},
              {"prioritizeVerb", "prioritize"},
              {"weight", 1},
              {"nodeCacheCapable", true}},
             {{"urlPrefix", other},
              {"prioritizeVerb", "prioritize"},
              {"weight", 4},
              {"nodeCacheCapable", true}}});
  AddPod(MakePod().Name("p").Annotation("test-extender/scores", "n1=3,n2=2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
  EXPECT_EQ(ext_.calls("prioritize"), 2);
  std::optional<nlohmann::ordered_json> j = explain_.Json("default", "p");
  ASSERT_TRUE(j.has_value());
  EXPECT_THAT(j->dump(), HasSubstr(fmt::format(R"("{}":30)", ext_.url())));
  EXPECT_THAT(j->dump(), HasSubstr(fmt::format(R"("{}":120)", other)));
}

// While a prioritizer is asked, scheduler_goroutines counts it, as upstream's gauge counts the
// goroutine that asks it.
TEST_F(ExtenderSchedulingTest, APrioritizersCallIsCountedInSchedulerGoroutines) {
  Build({{"prioritizeVerb", "prioritize"}, {"weight", 1}, {"nodeCacheCapable", true}});
  const std::string asking = "scheduler_goroutines{operation=\"prioritizing_extender\"} 1\n";
  const std::string idle = "scheduler_goroutines{operation=\"prioritizing_extender\"} 0\n";
  EXPECT_THAT(s_->metrics_registry().Text(), HasSubstr(idle));
  ext_.set_fault(TestExtender::Fault::kSlow);
  ext_.set_slow(absl::Milliseconds(500));
  AddPod(MakePod().Name("p"));
  std::thread scheduling([this] { Drain(); });
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    seen = s_->metrics_registry().Text().find(asking) != std::string::npos;
    if (!seen) absl::SleepFor(absl::Milliseconds(10));
  }
  scheduling.join();
  EXPECT_TRUE(seen);
  EXPECT_THAT(s_->metrics_registry().Text(), HasSubstr(idle));
}

// An extender's score is scaled by weight x 10 and taken as it is, out of [0, 10] too, as upstream
// takes it: 1000 on n3 (10000 points) outweighs the preferred affinity for n4 (100 x 2 points),
// which a score in range (at most 100 points) would not.
TEST_F(ExtenderSchedulingTest, AScoreOutOfRangeIsTakenAsItIsAsUpstreamTakesIt) {
  Build({{"prioritizeVerb", "prioritize"}, {"weight", 1}, {"nodeCacheCapable", true}});
  s_->OnNodeAdd(
      MakeNode().Name("n4").Label("team", "a").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod()
             .Name("in-range")
             .PreferredNodeAffinityIn(100, "team", {"a"})
             .Annotation("test-extender/scores", "n3=10"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/in-range"), "n4");
  AddPod(MakePod()
             .Name("out-of-range")
             .PreferredNodeAffinityIn(100, "team", {"a"})
             .Annotation("test-extender/scores", "n3=1000"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/out-of-range"), "n3");
}

TEST_F(ExtenderSchedulingTest, ItsRejectionsAreThePodsMessageAndAnyEventRequeuesIt) {
  Build({{"filterVerb", "filter"}, {"nodeCacheCapable", true}});
  AddPod(MakePod()
             .Name("p")
             .Annotation("test-extender/reject", "n1,n2")
             .Annotation("test-extender/unresolvable", "n3"));
  Drain();
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_THAT(LastEvent("default/p", "FailedScheduling"),
              HasSubstr("0/3 nodes are available: 3 rejected by the test extender."));
  EXPECT_EQ(writer_.conditions.at("default/p").reason, "Unschedulable");
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);
  // No plugin rejected it: a node's arrival moves it, as any event would (upstream's "Extender").
  s_->OnNodeAdd(MakeNode().Name("n4").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  EXPECT_EQ(s_->queue().Counts().unschedulable, 0u);
  clock_.Advance(absl::Seconds(10));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "n4");
}

TEST_F(ExtenderSchedulingTest, AFailingExtenderKeepsThePodPendingUnlessItIsIgnorable) {
  Build({{"filterVerb", "filter"}, {"nodeCacheCapable", true}});
  ext_.set_fault(TestExtender::Fault::kError500);
  AddPod(MakePod().Name("p"));
  Drain();
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(LastEvent("default/p", "FailedScheduling"),
            fmt::format("failed filter with extender at URL {}/filter, code 500", ext_.url()));
  EXPECT_EQ(writer_.conditions.at("default/p").reason, "SchedulerError");

  Build({{"filterVerb", "filter"}, {"nodeCacheCapable", true}, {"ignorable", true}});
  AddPod(MakePod().Name("q"));
  Drain();
  EXPECT_TRUE(writer_.binds.contains("default/q"));
  EXPECT_THAT(s_->metrics_registry().Text(), HasSubstr("result=\"ignored\",verb=\"filter\"} 1"));
}

TEST_F(ExtenderSchedulingTest, APrioritizersErrorLeavesTheScoresToThePlugins) {
  Build({{"prioritizeVerb", "prioritize"}, {"weight", 1}});
  ext_.set_fault(TestExtender::Fault::kMalformed);
  AddPod(MakePod().Name("p"));
  Drain();
  EXPECT_TRUE(writer_.binds.contains("default/p"));
}

TEST_F(ExtenderSchedulingTest, ABinderBindsThePodsWhoseResourcesItManages) {
  std::vector<std::string> bound;
  ext_.set_bind([&](const std::string& ns, const std::string& name, const std::string&,
                    const std::string& node) {
    bound.push_back(ns + "/" + name + " " + node);
    return name == "fails" ? absl::UnavailableError("no GPU left") : absl::OkStatus();
  });
  Build({{"bindVerb", "bind"},
         {"managedResources", {{{"name", "example.com/vgpu"}, {"ignoredByScheduler", true}}}}});
  // The nodes have no example.com/vgpu: NodeResourcesFit leaves it to the extender.
  AddPod(MakePod().Name("gpu").Req("example.com/vgpu", "1"));
  AddPod(MakePod().Name("cpu"));
  Drain();
  ASSERT_EQ(bound.size(), 1u);
  EXPECT_THAT(bound[0], ::testing::StartsWith("default/gpu n"));
  EXPECT_FALSE(writer_.binds.contains("default/gpu"));  // Not bound by DefaultBinder too.
  EXPECT_TRUE(writer_.binds.contains("default/cpu"));   // Not managed: DefaultBinder binds it.
  EXPECT_THAT(LastEvent("default/gpu", "Scheduled"),
              HasSubstr("Successfully assigned default/gpu"));

  AddPod(MakePod().Name("fails").Req("example.com/vgpu", "1"));
  Drain();
  EXPECT_EQ(LastEvent("default/fails", "FailedScheduling"), "no GPU left");
  EXPECT_EQ(s_->cache().NodeOf("fails"), "");  // Forgotten: nothing holds its node.
}

TEST_F(ExtenderSchedulingTest, WithoutTheExtenderAnUnknownResourceDoesNotFit) {
  Build({{"filterVerb", "filter"}});
  AddPod(MakePod().Name("gpu").Req("example.com/vgpu", "1"));
  Drain();
  EXPECT_THAT(LastEvent("default/gpu", "FailedScheduling"),
              HasSubstr("3 Insufficient example.com/vgpu"));
}

TEST_F(ExtenderSchedulingTest, PreemptionKeepsOnlyTheCandidatesTheExtenderAccepts) {
  Build({{"preemptVerb", "preempt"}, {"nodeCacheCapable", true}});
  for (const char* n : {"n1", "n2", "n3"}) {
    s_->OnPodAdd(MakePod()
                     .Name(std::string("low-") + n)
                     .UID(std::string("low-") + n)
                     .Node(n)
                     .Priority(0)
                     .Req("cpu", "2")
                     .Ptr());
  }
  AddPod(MakePod()
             .Name("high")
             .Priority(100)
             .Req("cpu", "2")
             .Annotation("test-extender/no-preempt", "n1,n3"));
  Drain();
  EXPECT_EQ(ext_.calls("preempt"), 1);
  EXPECT_EQ(writer_.nominated.at("default/high"), "n2");
  EXPECT_THAT(writer_.deleted, ::testing::ElementsAre("default/low-n2"));
}

}  // namespace
}  // namespace ksched::scheduler
