// ksched's informers (client::ApiSource) against the real control plane: objects that kubectl
// creates, changes and deletes reach plugins through the Handle, from the first list and from the
// watch. (That ksched's ServiceAccount may list them all is run_test's DeployManifests test.)
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "src/client/api_source.h"
#include "src/client/rest_config.h"
#include "src/plugins/registry.h"
#include "src/scheduler/scheduler.h"
#include "src/sim/cluster.h"
#include "src/testing/control_plane.h"

namespace ksched::testing {
namespace {

class InformersTest : public ControlPlaneTest {
 protected:
  void Kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    CommandResult r = cluster().Kubectl(args, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // A scheduler fed by an ApiSource on the cluster, as the admin; synced.
  void Start() {
    auto config = client::LoadKubeconfig(cluster().kubeconfig(), "");
    ASSERT_TRUE(config.ok()) << config.status();
    auto http = client::HttpClient::Create(*config);
    ASSERT_TRUE(http.ok()) << http.status();
    http_ = std::move(*http);
    auto s = scheduler::Scheduler::Create({.writer = &writer_}, registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    scheduler_ = std::move(*s);
    source_ = std::make_unique<client::ApiSource>(*http_, *scheduler_, writer_);
    source_->Start();
    ASSERT_TRUE(source_->WaitForSync(absl::Seconds(30)));
  }
  void TearDown() override {
    if (source_) source_->Stop();
  }
  const Handle& handle() { return *scheduler_->FrameworkFor("default-scheduler"); }

  // Polls `done` every 50 ms for up to 30 s.
  static bool Eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 600 && !done(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }

  sim::Cluster writer_{{}};  // Takes the scheduler's writes; nothing is scheduled here.
  Registry registry_ = plugins::NewInTreeRegistry();
  std::unique_ptr<client::HttpClient> http_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<client::ApiSource> source_;
};

TEST_F(InformersTest, ServicesWorkloadsAndDisruptionBudgetsReachPluginsThroughTheHandle) {
  Kubectl({"create", "namespace", "informers"});
  // Listed: made before the scheduler starts.
  Kubectl({"create", "-n", "informers", "-f", "-"}, R"({"apiVersion": "v1", "kind": "List",
    "items": [
      {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
       "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
      {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
       "spec": {"replicas": 0, "selector": {"app": "rc"},
                "template": {"metadata": {"labels": {"app": "rc"}},
                             "spec": {"containers": [{"name": "c", "image": "pause"}]}}}},
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
       "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "rs"}},
                "template": {"metadata": {"labels": {"app": "rs"}},
                             "spec": {"containers": [{"name": "c", "image": "pause"}]}}}},
      {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
       "spec": {"replicas": 0, "serviceName": "web", "selector": {"matchLabels": {"app": "db"}},
                "template": {"metadata": {"labels": {"app": "db"}},
                             "spec": {"containers": [{"name": "c", "image": "pause"}]}}}}]})");
  Start();
  std::vector<std::shared_ptr<const api::Service>> services = handle().ListServices("informers");
  ASSERT_EQ(services.size(), 1u);
  EXPECT_EQ(services[0]->selector.at("app"), "web");
  ASSERT_NE(handle().GetReplicationController("informers", "rc"), nullptr);
  EXPECT_EQ(handle().GetReplicationController("informers", "rc")->selector.at("app"), "rc");
  ASSERT_NE(handle().GetReplicaSet("informers", "rs"), nullptr);
  EXPECT_EQ(handle().GetReplicaSet("informers", "rs")->selector->match_labels.at("app"), "rs");
  ASSERT_NE(handle().GetStatefulSet("informers", "db"), nullptr);
  // The API server's own Service, in default.
  EXPECT_FALSE(handle().ListServices("default").empty());

  // Watched: a PodDisruptionBudget made, changed and deleted while the scheduler runs.
  Kubectl({"create", "pdb", "web", "-n", "informers", "--selector=app=web", "--min-available=50%"});
  auto pdb = [&]() -> std::shared_ptr<const api::PodDisruptionBudget> {
    for (const auto& p : handle().ListPodDisruptionBudgets()) {
      if (p->metadata.namespace_ == "informers" && p->metadata.name == "web") return p;
    }
    return nullptr;
  };
  ASSERT_TRUE(Eventually([&] { return pdb() != nullptr; }));
  EXPECT_EQ(pdb()->min_available->str_value, "50%");
  EXPECT_EQ(pdb()->selector->match_labels.at("app"), "web");
  EXPECT_TRUE(pdb()->has_status);  // The API server always serves one.
  Kubectl({"patch", "pdb", "web", "-n", "informers", "--type=merge", "-p",
           R"({"spec": {"minAvailable": null, "maxUnavailable": 1}})"});
  ASSERT_TRUE(Eventually([&] { return pdb() && pdb()->max_unavailable.has_value(); }));
  EXPECT_EQ(pdb()->max_unavailable->int_value, 1);
  EXPECT_FALSE(pdb()->min_available.has_value());

  Kubectl({"delete", "pdb", "web", "-n", "informers"});
  Kubectl({"delete", "service", "web", "-n", "informers"});
  ASSERT_TRUE(Eventually([&] { return pdb() == nullptr; }));
  ASSERT_TRUE(Eventually([&] { return handle().ListServices("informers").empty(); }));
}

}  // namespace
}  // namespace ksched::testing
