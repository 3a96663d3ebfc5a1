#include "src/client/writer.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "fmt/format.h"
#include "src/client/http.h"

namespace ksched::client {
namespace {

api::Pod MakePod() {
  api::Pod p;
  p.metadata.name = "web-1";
  p.metadata.namespace_ = "shop";
  p.metadata.uid = "u-1";
  p.metadata.resource_version = "42";
  p.spec.scheduler_name = "default-scheduler";
  return p;
}

TEST(ApiWriterTest, BindingNamesThePodByUidAndTheNode) {
  EXPECT_EQ(ApiWriter::BindingBody(MakePod(), "node-a").dump(),
            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web-1","namespace":"shop",)"
            R"("uid":"u-1"},"target":{"kind":"Node","name":"node-a"}})");
}

TEST(ApiWriterTest, EventIsWhatKubeSchedulersRecorderWrites) {
  absl::StatusOr<std::unique_ptr<HttpClient>> http =
      HttpClient::Create({.server = "https://127.0.0.1:1"});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "host-1"});
  absl::Time t = absl::FromUnixMicros(1795357627123456);
  nlohmann::json e = w.EventBody(MakePod(), "Normal", "Scheduled", "Binding",
                                 "Successfully assigned shop/web-1 to node-a", t);
  EXPECT_EQ(e["metadata"]["name"], "web-1.18ea643fe97b5800");
  EXPECT_EQ(e["metadata"]["namespace"], "shop");
  EXPECT_EQ(e["eventTime"], "2026-11-22T14:27:07.123456Z");
  EXPECT_EQ(e["reportingController"], "default-scheduler");
  EXPECT_EQ(e["reportingInstance"], "default-scheduler-host-1");
  EXPECT_EQ(e["regarding"]["kind"], "Pod");
  EXPECT_EQ(e["regarding"]["uid"], "u-1");
  EXPECT_EQ(e["regarding"]["resourceVersion"], "42");
  EXPECT_EQ(e["note"], "Successfully assigned shop/web-1 to node-a");
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["reason"], "Scheduled");
  EXPECT_EQ(e["action"], "Binding");
}

TEST(ApiWriterTest, StatusPatchMergesTheConditionAndClearsTheNominatedNode) {
  api::PodCondition c{.type = "PodScheduled",
                      .status = "False",
                      .reason = "Unschedulable",
                      .message = "0/3 nodes are available: 3 Insufficient cpu.",
                      .last_transition_time = "2026-11-22T08:27:07Z"};
  std::string none;
  EXPECT_EQ(ApiWriter::StatusPatch(c, &none).dump(),
            R"({"status":{"conditions":[{"lastProbeTime":null,)"
            R"("lastTransitionTime":"2026-11-22T08:27:07Z",)"
            R"("message":"0/3 nodes are available: 3 Insufficient cpu.",)"
            R"("reason":"Unschedulable","status":"False","type":"PodScheduled"}],)"
            R"("nominatedNodeName":null}})");
  EXPECT_FALSE(ApiWriter::StatusPatch(c, nullptr)["status"].contains("nominatedNodeName"));
}

TEST(ApiWriterTest, UnreachableServerMakesBindFailWithTheTransportError) {
  absl::StatusOr<std::unique_ptr<HttpClient>> http =
      HttpClient::Create({.server = "https://127.0.0.1:1"});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  absl::Status st = w.Bind(MakePod(), "node-a");
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("POST https://127.0.0.1:1/api/v1/namespaces/shop/pods/web-1/binding"),
            std::string::npos)
      << st;
}

// Records every request an ApiWriter sends, and answers 201.
class RecordingServer {
 public:
  RecordingServer() {
    auto record = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req.method + " " + req.path + " " + req.body);
      res.status = 201;
      res.set_content("{}", "application/json");
    };
    server_.Post(".*", record);
    server_.Patch(".*", record);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~RecordingServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

TEST(ApiWriterTest, RepeatedEventsFormASeriesAsClientGosRecorderDoes) {
  RecordingServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  api::Pod pod = MakePod();
  absl::Time t0 = absl::FromUnixSeconds(1795357627);
  w.RecordEventAt(pod, "Warning", "FailedScheduling", "Scheduling", "0/3 nodes", t0);
  w.RecordEventAt(pod, "Warning", "FailedScheduling", "Scheduling", "0/4 nodes",
                  t0 + absl::Seconds(1));
  w.RecordEventAt(pod, "Warning", "FailedScheduling", "Scheduling", "0/4 nodes",
                  t0 + absl::Seconds(2));
  // The pod changed (its resourceVersion), so this is another event.
  pod.metadata.resource_version = "43";
  w.RecordEventAt(pod, "Warning", "FailedScheduling", "Scheduling", "0/4 nodes",
                  t0 + absl::Seconds(3));
  // Six minutes after the last one, the series is over.
  w.RecordEventAt(pod, "Warning", "FailedScheduling", "Scheduling", "0/4 nodes",
                  t0 + absl::Seconds(3) + absl::Minutes(6));
  ASSERT_TRUE((*http)->WaitIdle(absl::Seconds(10)));
  std::vector<std::string> got = server.requests();
  ASSERT_EQ(got.size(), 4u) << ::testing::PrintToString(got);
  std::sort(got.begin(), got.end());  // Sent asynchronously: the order is not kept.
  EXPECT_EQ(got[0],
            "PATCH /apis/events.k8s.io/v1/namespaces/shop/events/web-1.18ea643fe21f8e00 "
            R"({"series":{"count":2,"lastObservedTime":"2026-11-22T14:27:08.000000Z"}})");
  for (int i = 1; i < 4; ++i) {
    EXPECT_TRUE(got[i].starts_with("POST /apis/events.k8s.io/v1/namespaces/shop/events {"))
        << got[i];
  }
}

TEST(HttpResponseTest, ApiStatusMessageAndCode) {
  HttpResponse r{.status = 404,
                 .body = R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
                         R"("message":"pods \"web-1\" not found","reason":"NotFound","code":404})"};
  EXPECT_EQ(r.ToStatus(), absl::NotFoundError("pods \"web-1\" not found"));
  EXPECT_EQ(HttpResponse{.status = 410}.ToStatus().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(HttpResponse{.status = 503}.ToStatus().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(HttpResponse{.status = 201}.ToStatus().ok());
}

}  // namespace
}  // namespace ksched::client
