#include "src/extender/http_extender.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/synchronization/notification.h"
#include "fmt/format.h"
#include "src/api/decode.h"
#include "src/sdk/snapshot_builder.h"
#include "src/server/tls_material.h"
#include "test/extender/test_extender.h"

namespace ksched::extender {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;
using testing::TestExtender;

class HttpExtenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api::KeepObjectJson(true);
    ASSERT_TRUE(ext_.Start());
    for (const char* name : {"n1", "n2", "n3"}) {
      auto n = std::make_shared<NodeInfo>();
      n->SetNode(std::make_shared<const api::Node>(*api::DecodeNode(fmt::format(
          R"({{"metadata": {{"name": "{}"}}, "status": {{"allocatable": {{"cpu": "4"}},
              "images": [{{"names": ["img:1"], "sizeBytes": 500000000}}]}}}})",
          name))));
      // A pod on each node: a NodeInfo the extender sends back whole comes without it.
      n->AddPod(PodInfo::Make(std::make_shared<const api::Pod>(*api::DecodePod(fmt::format(
          R"({{"metadata": {{"name": "on-{0}", "uid": "on-{0}"}},
              "spec": {{"nodeName": "{0}", "containers": [{{"name": "c",
                "resources": {{"requests": {{"cpu": "1"}}}}}}]}}}})",
          name)))));
      nodes_.push_back(n);
      list_.push_back(n.get());
    }
  }
  void TearDown() override { api::KeepObjectJson(false); }

  std::unique_ptr<HttpExtender> Make(nlohmann::json config) {
    config["urlPrefix"] = ext_.url();
    absl::StatusOr<ExtenderConfig> c = ParseExtenderConfig(config);
    EXPECT_TRUE(c.ok()) << c.status();
    absl::StatusOr<std::unique_ptr<HttpExtender>> e = HttpExtender::Create(*c, &metrics_);
    EXPECT_TRUE(e.ok()) << e.status();
    return *std::move(e);
  }
  static api::Pod Pod(const std::string& annotations) {
    return *api::DecodePod(fmt::format(
        R"({{"metadata": {{"name": "p", "namespace": "ns", "uid": "p1",
            "annotations": {{{}}}}}, "spec": {{"containers": [{{"name": "c"}}]}}}})",
        annotations));
  }

  TestExtender ext_;
  metrics::Registry registry_;
  ExtenderMetrics metrics_{registry_};
  std::vector<std::shared_ptr<NodeInfo>> nodes_;
  std::vector<const NodeInfo*> list_;
};

TEST_F(HttpExtenderTest, FiltersByNameWhenNodeCacheCapable) {
  auto e = Make({{"filterVerb", "filter"}, {"nodeCacheCapable", true}});
  ExtenderFilterResult r;
  ASSERT_TRUE(e->Filter(Pod(R"("test-extender/reject": "n1",
                                "test-extender/unresolvable": "n3")"),
                        list_, &r)
                  .ok());
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0], list_[1]);  // The scheduler's own NodeInfo of n2.
  EXPECT_THAT(r.failed, ElementsAre(Pair("n1", "rejected by the test extender")));
  EXPECT_THAT(r.failed_and_unresolvable, ElementsAre(Pair("n3", "rejected by the test extender")));
  EXPECT_THAT(ext_.last_body("filter"), HasSubstr(R"("NodeNames":["n1","n2","n3"])"));
  EXPECT_THAT(registry_.Text(),
              HasSubstr(fmt::format("scheduler_extender_requests_total{{extender=\"{}\",result="
                                    "\"success\",verb=\"filter\"}} 1",
                                    ext_.url())));
}

TEST_F(HttpExtenderTest, NodesSentBackWholeAreNodesWithoutTheirPodsAsUpstreams) {
  auto e = Make({{"filterVerb", "filter"}});
  ExtenderFilterResult r;
  ASSERT_TRUE(e->Filter(Pod(R"("test-extender/reject": "n2")"), list_, &r).ok());
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0]->name(), "n1");
  EXPECT_EQ(r.nodes[1]->name(), "n3");
  EXPECT_TRUE(r.nodes[0]->pods().empty());
  EXPECT_TRUE(r.nodes[0]->image_sizes().empty());
  EXPECT_EQ(r.nodes[0]->allocatable().milli_cpu, 4000);
  EXPECT_THAT(ext_.last_body("filter"), HasSubstr(R"("Nodes":{"metadata":{},"items":[)"));
}

TEST_F(HttpExtenderTest, ManagedResourcesMakeItInterestedInThePodsThatAskForThem) {
  auto e = Make({{"filterVerb", "filter"}, {"managedResources", {{{"name", "example.com/gpu"}}}}});
  EXPECT_FALSE(e->IsInterested(Pod("")));
  api::Pod init = Pod("");
  init.spec.init_containers.push_back({.name = "i"});
  init.spec.init_containers[0].resources.limits["example.com/gpu"] = api::Quantity::FromValue(1);
  EXPECT_TRUE(e->IsInterested(init));
  EXPECT_TRUE(Make({{"filterVerb", "filter"}})->IsInterested(Pod("")));
}

TEST_F(HttpExtenderTest, PrioritizeReturnsTheScoresUnscaled) {
  auto e = Make({{"prioritizeVerb", "prioritize"}, {"weight", 2}, {"nodeCacheCapable", true}});
  std::vector<HostPriority> scores;
  ASSERT_TRUE(e->Prioritize(Pod(R"("test-extender/scores": "n2=10,n3=4")"), list_, &scores).ok());
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[0].host, "n1");
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 10);
  EXPECT_EQ(scores[2].score, 4);
  EXPECT_EQ(e->weight(), 2);
}

TEST_F(HttpExtenderTest, PreemptionKeepsTheCandidatesItNamesWithTheirPods) {
  auto e = Make({{"preemptVerb", "preempt"}, {"nodeCacheCapable", true}});
  Snapshot snapshot;
  internal::SnapshotBuilder b(snapshot);
  std::vector<std::string_view> order;
  for (const auto& n : nodes_) {
    b.Put(n->name(), n);
    order.push_back(n->name());
  }
  b.Order(order);
  b.Finish();
  std::map<std::string, preemption::Victims> victims;
  for (const NodeInfo* n : list_) victims[n->name()] = {.pods = n->pods()};
  ASSERT_TRUE(
      e->ProcessPreemption(Pod(R"("test-extender/no-preempt": "n1")"), &victims, snapshot).ok());
  ASSERT_EQ(victims.size(), 2u);
  EXPECT_EQ(victims["n2"].pods.at(0)->pod->metadata.name, "on-n2");
}

TEST_F(HttpExtenderTest, BindAnswersOnAnotherThread) {
  std::string bound;
  ext_.set_bind([&](const std::string& ns, const std::string& name, const std::string& uid,
                    const std::string& node) {
    bound = ns + "/" + name + " " + uid + " " + node;
    return node == "n1" ? absl::OkStatus() : absl::ResourceExhaustedError("node is full");
  });
  auto e = Make({{"bindVerb", "bind"}});
  for (const char* node : {"n1", "n2"}) {
    absl::Notification answered;
    absl::Status s;
    e->Bind(Pod(""), node, [&](absl::Status got) {
      s = std::move(got);
      answered.Notify();
    });
    answered.WaitForNotification();
    if (std::string(node) == "n1") {
      EXPECT_TRUE(s.ok()) << s;
      EXPECT_EQ(bound, "ns/p p1 n1");
    } else {
      EXPECT_EQ(std::string(s.message()), "node is full");
    }
  }
}

TEST_F(HttpExtenderTest, FaultsAreErrorsInUpstreamsWords) {
  auto e = Make({{"filterVerb", "filter"}, {"nodeCacheCapable", true}, {"httpTimeout", "500ms"}});
  ExtenderFilterResult r;
  ext_.set_fault(TestExtender::Fault::kError500);
  EXPECT_EQ(std::string(e->Filter(Pod(""), list_, &r).message()),
            fmt::format("failed filter with extender at URL {}/filter, code 500", ext_.url()));
  ext_.set_fault(TestExtender::Fault::kMalformed);
  EXPECT_EQ(std::string(e->Filter(Pod(""), list_, &r).message()),
            "invalid character 'n' looking for beginning of object key string");
  ext_.set_fault(TestExtender::Fault::kUnknownNode);
  EXPECT_EQ(std::string(e->Filter(Pod(""), list_, &r).message()),
            fmt::format("extender \"{}\" claims a filtered node \"ghost\" which is not found in "
                        "the input node list",
                        ext_.url()));
  ext_.set_fault(TestExtender::Fault::kSlow);
  ext_.set_slow(absl::Seconds(2));
  EXPECT_EQ(std::string(e->Filter(Pod(""), list_, &r).message()),
            fmt::format("Post \"{}/filter\": context deadline exceeded (Client.Timeout exceeded "
                        "while awaiting headers)",
                        ext_.url()));
  EXPECT_THAT(registry_.Text(), HasSubstr("result=\"error\",verb=\"filter\"} 4"));
}

TEST_F(HttpExtenderTest, AnExtenderThatIsDownIsAnErrorAtOnce) {
  auto e = Make({{"filterVerb", "filter"}});
  ExtenderConfig c = *ParseExtenderConfig(
      {{"urlPrefix", "http://127.0.0.1:1/x"}, {"filterVerb", "filter"}, {"ignorable", true}});
  auto down = *HttpExtender::Create(c, &metrics_);
  ExtenderFilterResult r;
  EXPECT_EQ(
      std::string(down->Filter(Pod(""), list_, &r).message()),
      "Post \"http://127.0.0.1:1/x/filter\": dial tcp 127.0.0.1:1: connect: connection refused");
  EXPECT_THAT(registry_.Text(), HasSubstr("result=\"ignored\",verb=\"filter\"} 1"));
}

// One filter call to the extender at `url`, configured as `config` says over a node-cache-capable
// filter: "passed N", or the error's words.
std::string FilterOverTls(const std::string& url, const nlohmann::json& config) {
  nlohmann::json full = {{"urlPrefix", url}, {"filterVerb", "filter"}, {"nodeCacheCapable", true}};
  full.update(config);
  auto e = HttpExtender::Create(*ParseExtenderConfig(full), nullptr);
  if (!e.ok()) return std::string(e.status().message());
  auto node = std::make_shared<NodeInfo>();
  node->SetNode(
      std::make_shared<const api::Node>(*api::DecodeNode(R"({"metadata":{"name":"n1"}})")));
  const api::Pod pod = *api::DecodePod(R"({"metadata": {"name": "p", "uid": "p1"}})");
  ExtenderFilterResult r;
  absl::Status s = (*e)->Filter(pod, {node.get()}, &r);
  return s.ok() ? "passed " + std::to_string(r.nodes.size()) : std::string(s.message());
}

std::string CertPem(X509* c) {
  return server::Pem([&](BIO* b) { return PEM_write_bio_X509(b, c); });
}

// Over HTTPS, with the certificate's CA as tlsConfig.caData (base64 in the configuration, as
// []byte fields are); with enableHTTPS and no CA, any certificate, as upstream's makeTransport;
// with another CA, refused.
TEST(HttpExtenderTlsTest, SpeaksHttpsWithTheConfiguredCa) {
  server::X509Ptr cert, other;
  server::KeyPtr key, other_key;
  ASSERT_TRUE(server::SelfSigned(&cert, &key).ok());
  ASSERT_TRUE(server::SelfSigned(&other, &other_key).ok());
  TestExtender ext(std::make_unique<httplib::SSLServer>(cert.get(), key.get()));
  ASSERT_TRUE(ext.Start());
  ASSERT_THAT(ext.url(), StartsWith("https://127.0.0.1:"));
  auto ca = [](X509* c) { return nlohmann::json{{"caData", absl::Base64Escape(CertPem(c))}}; };
  EXPECT_EQ(FilterOverTls(ext.url(), {{"tlsConfig", ca(cert.get())}}), "passed 1");
  EXPECT_EQ(FilterOverTls(ext.url(), {{"enableHTTPS", true}}), "passed 1");
  EXPECT_THAT(FilterOverTls(ext.url(), {{"tlsConfig", ca(other.get())}}),
              StartsWith(fmt::format("Post \"{}/filter\": ", ext.url())));
  EXPECT_EQ(ext.calls("filter"), 2);
}

// An extender that asks for a client certificate gets tlsConfig's (certData and keyData, or
// certFile and keyFile); without one, the handshake fails and so does the call.
TEST(HttpExtenderTlsTest, SendsTheConfiguredClientCertificate) {
  server::X509Ptr cert, client;
  server::KeyPtr key, client_key;
  ASSERT_TRUE(server::SelfSigned(&cert, &key).ok());
  ASSERT_TRUE(server::SelfSigned(&client, &client_key, "clientAuth").ok());
  const std::string client_pem = CertPem(client.get());
  const std::string client_key_pem = server::Pem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, client_key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  X509_STORE* trusted = X509_STORE_new();  // The server's: owned by it from here.
  X509_STORE_add_cert(trusted, client.get());
  TestExtender ext(std::make_unique<httplib::SSLServer>(cert.get(), key.get(), trusted));
  ASSERT_TRUE(ext.Start());
  auto tls = [](nlohmann::json c) {
    return nlohmann::json{{"enableHTTPS", true}, {"tlsConfig", std::move(c)}};
  };
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/client.crt") << client_pem;
  std::ofstream(dir + "/client.key") << client_key_pem;
  EXPECT_EQ(FilterOverTls(ext.url(), tls({{"certData", absl::Base64Escape(client_pem)},
                                          {"keyData", absl::Base64Escape(client_key_pem)}})),
            "passed 1");
  EXPECT_EQ(FilterOverTls(ext.url(), tls({{"certFile", dir + "/client.crt"},
                                          {"keyFile", dir + "/client.key"}})),
            "passed 1");
  EXPECT_THAT(FilterOverTls(ext.url(), tls({{"insecure", true}})),
              StartsWith(fmt::format("Post \"{}/filter\": ", ext.url())));
  EXPECT_EQ(ext.calls("filter"), 2);
}

TEST(BuildExtendersTest, IgnorableExtendersComeLastAndIgnoredResourcesAreCollected) {
  absl::StatusOr<Extenders> all =
      BuildExtenders({{{"urlPrefix", "http://127.0.0.1:1/a"}, {"ignorable", true}},
                      {{"urlPrefix", "http://127.0.0.1:1/b"},
                       {"managedResources",
                        {{{"name", "example.com/vgpu"}, {"ignoredByScheduler", true}},
                         {{"name", "example.com/mem"}}}}}},
                     nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->list.size(), 2u);
  EXPECT_EQ(all->list[0]->Name(), "http://127.0.0.1:1/b");
  EXPECT_EQ(all->list[1]->Name(), "http://127.0.0.1:1/a");
  EXPECT_THAT(all->ignored_resources, ElementsAre("example.com/vgpu"));
  EXPECT_THAT(std::string(BuildExtenders({{{"urlPrefix", "ftp://x"}}}, nullptr).status().message()),
              HasSubstr("urlPrefix must start with http:// or https://"));
}

}  // namespace
}  // namespace ksched::extender
