#include "src/client/writer.h"

#include <gtest/gtest.h>

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
