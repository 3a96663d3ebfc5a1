#include "src/client/writer.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/synchronization/notification.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/testing/loopback_server.h"
#include "src/testing/ports.h"

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
  EXPECT_EQ(ApiWriter::BindingBody(MakePod(), "node-a"),
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

TEST(ApiWriterTest, AnEventsNoteKeepsQuotesControlCharactersAndUtf8) {
  absl::StatusOr<std::unique_ptr<HttpClient>> http =
      HttpClient::Create({.server = "https://127.0.0.1:1"});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "host-1"});
  const std::string note = "0/3 nodes: \"quoted\" \\ back\nslash\t\x01 \xc3\xa9t\xc3\xa9";
  nlohmann::json e =
      w.EventBody(MakePod(), "Warning", "FailedScheduling", "Scheduling", note, absl::Now());
  EXPECT_EQ(e["note"], note);
  EXPECT_EQ(e["regarding"]["name"], "web-1");
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
  // Without a condition: only the nominated node, as before a PreBind that has work to do.
  std::string node = "node-1";
  EXPECT_EQ(ApiWriter::StatusPatch({}, &node).dump(),
            R"({"status":{"nominatedNodeName":"node-1"}})");
}

// VolumeBinding's writes: JSON merge patches that carry the resourceVersion read, so that a
// write over a newer version is a conflict.
TEST(ApiWriterTest, VolumePatchesNameTheClaimAndTheReadVersion) {
  api::PersistentVolume pv;
  pv.metadata = {.name = "pv-1",
                 .annotations = {{api::kAnnBoundByController, "yes"}},
                 .resource_version = "41"};
  api::PersistentVolumeClaim claim;
  claim.metadata = {.name = "data", .namespace_ = "db", .uid = "u-1", .resource_version = "7"};
  EXPECT_EQ(ApiWriter::VolumeBindingPatch(pv, claim), nlohmann::json::parse(R"({
      "metadata":{"resourceVersion":"41",
                  "annotations":{"pv.kubernetes.io/bound-by-controller":"yes"}},
      "spec":{"claimRef":{"kind":"PersistentVolumeClaim","apiVersion":"v1","namespace":"db",
                          "name":"data","uid":"u-1","resourceVersion":"7"}}})"));
  pv.metadata.annotations.clear();
  EXPECT_FALSE(ApiWriter::VolumeBindingPatch(pv, claim)["metadata"].contains("annotations"));
  EXPECT_EQ(ApiWriter::SelectedNodePatch(claim, "node-3"), nlohmann::json::parse(R"({
      "metadata":{"resourceVersion":"7",
                  "annotations":{"volume.kubernetes.io/selected-node":"node-3"}}})"));
}

TEST(ApiWriterTest, UnreachableServerMakesBindFailWithTheTransportError) {
  absl::StatusOr<std::unique_ptr<HttpClient>> http =
      HttpClient::Create({.server = "https://127.0.0.1:1"});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  absl::Status st = w.Bind(MakePod(), "node-a");
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(std::string(st.message()),
            "Post \"https://127.0.0.1:1/api/v1/namespaces/shop/pods/web-1/binding\": dial tcp "
            "127.0.0.1:1: connect: connection refused");
}

// Records every request an ApiWriter sends, and answers post_status to POST and patch_status to
// PATCH.
class RecordingServer {
 public:
  // On `port`, or any free one.
  explicit RecordingServer(int patch_status = 200, int port = 0, int post_status = 201) {
    auto record = [this, patch_status, post_status](const httplib::Request& req,
                                                    httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req.method + " " + req.path + " " + req.body);
      res.status = req.method == "PATCH" ? patch_status : post_status;
      res.set_content("{}", "application/json");
    };
    server_.server().Post(".*", record);
    server_.server().Patch(".*", record);
    EXPECT_TRUE(server_.Start(port));
  }
  std::string url() const { return server_.url(); }
  // The requests received since the last call, sorted (they are sent asynchronously).
  std::vector<std::string> TakeRequests() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> got;
    got.swap(requests_);
    std::sort(got.begin(), got.end());
    return got;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> requests_;
  testing::LoopbackServer server_;  // Last: stopped before what its handlers use goes.
};

constexpr char kEvents[] = "/apis/events.k8s.io/v1/namespaces/shop/events";

// A pod has one status patch on the way at a time: while the first is unanswered, the newest of
// those that follow waits in its place, and a patch equal to the last one taken is not sent again
// (the scheduler retries faster than the watch shows the pod's new status). Events go through
// their own client.
TEST(ApiWriterTest, APodsStatusPatchesGoOneAtATimeAndOnlyTheNewestWaits) {
  std::mutex mu;
  std::vector<std::string> patches;
  testing::LoopbackServer server;
  server.server().Patch(".*", [&](const httplib::Request& req, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::lock_guard<std::mutex> lock(mu);
    patches.push_back(nlohmann::json::parse(req.body)["status"]["conditions"][0]["message"]);
    res.set_content("{}", "application/json");
  });
  RecordingServer events;
  ASSERT_TRUE(server.Start());
  auto http = HttpClient::Create({.server = server.url()});
  auto events_http = HttpClient::Create({.server = events.url()});
  ASSERT_TRUE(http.ok() && events_http.ok());
  ApiWriter w(**http, {.hostname = "h", .events = events_http->get()});
  auto unschedulable = [](const std::string& message) {
    return api::PodCondition{
        .type = "PodScheduled", .status = "False", .reason = "Unschedulable", .message = message};
  };
  const api::Pod pod = MakePod();
  for (const char* m : {"first", "second", "third", "third"}) {
    ASSERT_TRUE(w.UpdatePodStatus(pod, unschedulable(m), nullptr).ok());
  }
  w.RecordEvent(pod, "Warning", "FailedScheduling", "Scheduling", "third");
  ASSERT_TRUE((*http)->WaitIdle(absl::Seconds(5)));
  ASSERT_TRUE(w.UpdatePodStatus(pod, unschedulable("third"), nullptr).ok());  // Taken already.
  ASSERT_TRUE((*http)->WaitIdle(absl::Seconds(5)));
  ASSERT_TRUE((*events_http)->WaitIdle(absl::Seconds(5)));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(patches, (std::vector<std::string>{"first", "third"}));
  EXPECT_EQ(events.TakeRequests().size(), 1u);
}

// A bind waits for the pod's status patch on the way and goes in place of one that waited, as
// upstream's dispatcher orders them: the API server refuses a nominated node on a bound pod
// ("may not be set on pods that are already bound to a node"), which a gang's pods waiting at
// Permit met when their nomination arrived after their bind.
TEST(ApiWriterTest, ABindGoesAfterThePodsStatusPatchAndInPlaceOfOneThatWaited) {
  std::mutex mu;
  std::vector<std::string> order;
  testing::LoopbackServer server;
  server.server().Patch(".*", [&](const httplib::Request& req, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::lock_guard<std::mutex> lock(mu);
    order.push_back("patch " + nlohmann::json::parse(req.body)["status"].value("nominatedNodeName",
                                                                               std::string()));
    res.set_content("{}", "application/json");
  });
  server.server().Post(".*", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back("bind " + nlohmann::json::parse(req.body)["target"].value("name", ""));
    res.status = 201;
    res.set_content("{}", "application/json");
  });
  ASSERT_TRUE(server.Start());
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  RecordingServer events;
  auto events_http = HttpClient::Create({.server = events.url()});
  ASSERT_TRUE(events_http.ok());
  ApiWriter w(**http, {.hostname = "h", .events = events_http->get()});
  const api::PodCondition waiting{
      .type = "PodScheduled", .status = "False", .reason = "SchedulerError", .message = "waiting"};
  const api::Pod pod = MakePod();
  const std::string a = "node-a", b = "node-b";
  ASSERT_TRUE(w.UpdatePodStatus(pod, waiting, &a).ok());  // On the way.
  ASSERT_TRUE(w.UpdatePodStatus(pod,
                                {.type = "PodScheduled",
                                 .status = "False",
                                 .reason = "SchedulerError",
                                 .message = "later"},
                                &b)
                  .ok());  // Waits, until the bind takes its place.
  absl::Notification bound;
  absl::Status bind_status = absl::UnknownError("not answered");
  w.BindAsync(pod, "node-a", [&](absl::Status st) {
    bind_status = st;
    bound.Notify();
  });
  ASSERT_TRUE(bound.WaitForNotificationWithTimeout(absl::Seconds(5)));
  EXPECT_TRUE(bind_status.ok()) << bind_status;
  // With nothing on the way, a bind goes at once, and the synchronous one answers.
  EXPECT_TRUE(w.Bind(pod, "node-c").ok());
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(order, (std::vector<std::string>{"patch node-a", "bind node-a", "bind node-c"}));
}

// The leader's fence: while it fails, binds and evictions are not sent at all; it is checked as
// each request leaves, so a bind that waited (for the rate limit) is held back too.
TEST(ApiWriterTest, BindsAndEvictionsAreNotSentWhileTheFenceSaysNotLeader) {
  RecordingServer server;
  auto http = HttpClient::Create({.server = server.url(), .qps = 1, .burst = 1});
  ASSERT_TRUE(http.ok());
  std::atomic<bool> leading{true};
  ApiWriter w(**http, {.hostname = "h", .may_write = [&leading] {
                         return leading ? absl::OkStatus()
                                        : absl::FailedPreconditionError("not the leader");
                       }});
  EXPECT_TRUE(w.Bind(MakePod(), "node-a").ok());
  ASSERT_EQ(server.TakeRequests().size(), 1u);
  // The next request waits a second for the rate limit; leadership ends meanwhile.
  std::thread lose([&leading] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    leading = false;
  });
  absl::Status st = w.Bind(MakePod(), "node-b");
  lose.join();
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("not the leader"), std::string::npos) << st;
  EXPECT_FALSE(w.DeletePod(MakePod()).ok());
  EXPECT_TRUE(server.TakeRequests().empty());
}

TEST(ApiWriterTest, RepeatedEventsFormASeriesAsClientGosRecorderDoes) {
  RecordingServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  api::Pod pod = MakePod();
  absl::Time t0 = absl::FromUnixSeconds(1795357627);
  auto record = [&](absl::Duration after, const std::string& note = "0/4 nodes") {
    w.RecordEventAt(pod, "Warning", "FailedScheduling", "Scheduling", note, t0 + after);
  };
  auto sent = [&] {
    EXPECT_TRUE((*http)->WaitIdle(absl::Seconds(10)));
    return server.TakeRequests();
  };
  const std::string first = fmt::format("{}/web-1.18ea643fe21f8e00", kEvents);

  record(absl::ZeroDuration(), "0/3 nodes");
  std::vector<std::string> got = sent();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].starts_with(fmt::format("POST {} {{", kEvents))) << got[0];
  EXPECT_NE(got[0].find(R"("note":"0/3 nodes")"), std::string::npos) << got[0];
  // The second one (its note may differ) patches the first; the third is only counted.
  record(absl::Seconds(1));
  record(absl::Seconds(2));
  EXPECT_EQ(sent(),
            std::vector<std::string>{fmt::format(
                "PATCH {} {}", first,
                R"({"series":{"count":2,"lastObservedTime":"2026-11-22T14:27:08.000000Z"}})")});
  // Another type, or the pod changed (its resourceVersion): another event.
  w.RecordEventAt(pod, "Normal", "FailedScheduling", "Scheduling", "0/4 nodes", t0);
  pod.metadata.resource_version = "43";
  record(absl::Seconds(3));
  got = sent();
  ASSERT_EQ(got.size(), 2u);
  for (const std::string& r : got) EXPECT_TRUE(r.starts_with("POST ")) << r;
  pod.metadata.resource_version = "42";

  // The 30-minute refresh sends the count so far; single events are not sent again.
  w.RefreshSeries();
  EXPECT_EQ(sent(),
            std::vector<std::string>{fmt::format(
                "PATCH {} {}", first,
                R"({"series":{"count":3,"lastObservedTime":"2026-11-22T14:27:09.000000Z"}})")});
  // A series seen in the last 6 minutes goes on.
  w.FinishSeries(t0 + absl::Minutes(6));
  EXPECT_TRUE(sent().empty());
  record(absl::Minutes(5));
  EXPECT_TRUE(sent().empty());
  // Six minutes after it was last seen, the series ends with its final count.
  w.FinishSeries(t0 + absl::Minutes(11) + absl::Seconds(1));
  EXPECT_EQ(sent(),
            std::vector<std::string>{fmt::format(
                "PATCH {} {}", first,
                R"({"series":{"count":4,"lastObservedTime":"2026-11-22T14:32:07.000000Z"}})")});
  // It has left the cache, as have the single events: the same event is created anew.
  record(absl::Minutes(12));
  pod.metadata.resource_version = "43";
  record(absl::Minutes(12));
  got = sent();
  ASSERT_EQ(got.size(), 2u);
  for (const std::string& r : got) EXPECT_TRUE(r.starts_with("POST ")) << r;
}

TEST(ApiWriterTest, ASeriesWhoseEventIsGoneIsCreatedAnew) {
  RecordingServer server(/*patch_status=*/404);
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  absl::Time t0 = absl::FromUnixSeconds(1795357627);
  w.RecordEventAt(MakePod(), "Warning", "FailedScheduling", "Scheduling", "0/3", t0);
  w.RecordEventAt(MakePod(), "Warning", "FailedScheduling", "Scheduling", "0/3",
                  t0 + absl::Seconds(1));
  ASSERT_TRUE((*http)->WaitIdle(absl::Seconds(10)));
  std::vector<std::string> got = server.TakeRequests();
  ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
  EXPECT_TRUE(got[0].starts_with(fmt::format("PATCH {}/web-1.", kEvents))) << got[0];
  EXPECT_TRUE(got[1].starts_with(fmt::format("POST {} {{", kEvents))) << got[1];
  EXPECT_TRUE(got[2].starts_with(fmt::format("POST {} {{", kEvents))) << got[2];
  // One of the two creates is the series, under the first event's name.
  int with_series = 0;
  for (int i = 1; i < 3; ++i) {
    nlohmann::json e = nlohmann::json::parse(got[i].substr(got[i].find('{')));
    if (e.contains("series")) {
      ++with_series;
      EXPECT_EQ(e["series"]["count"], 2);
      EXPECT_EQ(e["metadata"]["name"], "web-1.18ea643fe21f8e00");
    }
  }
  EXPECT_EQ(with_series, 1);
}

// Runs `write` against a server that is not there yet and comes up 300 ms later (the first
// tries are refused), and returns the requests it then received; no failure may be reported.
std::vector<std::string> SentOnceTheServerIsUp(const std::function<void(ApiWriter&)>& write) {
  const int port = ksched::testing::FreePort();
  std::optional<RecordingServer> server;  // Outlives the client, which closes its connection.
  auto http = HttpClient::Create({.server = fmt::format("http://127.0.0.1:{}", port)});
  EXPECT_TRUE(http.ok());
  if (!http.ok()) return {};
  std::vector<std::string> errors;
  ApiWriter w(**http, {.hostname = "h",
                       .on_write_error = [&](const std::string& what,
                                             const absl::Status&) { errors.push_back(what); },
                       .event_retry_delay = absl::Milliseconds(100),
                       .status_retry_delay = absl::Milliseconds(100)});
  write(w);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Refused at least twice.
  server.emplace(/*patch_status=*/200, port);
  EXPECT_TRUE((*http)->WaitIdle(absl::Seconds(10)));
  EXPECT_TRUE(errors.empty()) << errors[0];
  return server->TakeRequests();
}

TEST(ApiWriterTest, AnEventIsSentAgainUntilTheServerCanBeReached) {
  std::vector<std::string> got = SentOnceTheServerIsUp([](ApiWriter& w) {
    w.RecordEvent(MakePod(), "Normal", "Scheduled", "Binding", "Successfully assigned");
  });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].starts_with(fmt::format("POST {} {{", kEvents))) << got[0];
}

// A status patch, idempotent, is sent again too while the server cannot be reached.
TEST(ApiWriterTest, AStatusPatchIsSentAgainUntilTheServerCanBeReached) {
  std::vector<std::string> got = SentOnceTheServerIsUp([](ApiWriter& w) {
    ASSERT_TRUE(w.UpdatePodStatus(MakePod(),
                                  {.type = "PodScheduled",
                                   .status = "False",
                                   .reason = "Unschedulable",
                                   .message = "0/1 nodes are available: 1 Insufficient cpu."},
                                  nullptr)
                    .ok());
  });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].starts_with("PATCH /api/v1/namespaces/shop/pods/web-1/status {")) << got[0];
}

// An event the server could not store (a 500 while its etcd is down) is sent again, beyond what
// client-go's recorder does. The chaos soak lost a Scheduled event to an etcd restart before.
TEST(ApiWriterTest, AnEventTheServerCouldNotStoreIsSentAgain) {
  std::atomic<int> posts{0};
  testing::LoopbackServer server;
  server.server().Post(".*", [&](const httplib::Request&, httplib::Response& res) {
    res.status = ++posts <= 2 ? 500 : 201;
    res.set_content(
        res.status == 500
            ? R"({"kind":"Status","message":"rpc error: code = Unavailable desc = error reading )"
              R"(from server: EOF","code":500})"
            : "{}",
        "application/json");
  });
  ASSERT_TRUE(server.Start());
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  std::vector<std::string> errors;
  ApiWriter w(**http, {.hostname = "h",
                       .on_write_error = [&](const std::string& what,
                                             const absl::Status&) { errors.push_back(what); },
                       .event_retry_delay = absl::Milliseconds(50)});
  w.RecordEvent(MakePod(), "Normal", "Scheduled", "Binding", "Successfully assigned");
  ASSERT_TRUE((*http)->WaitIdle(absl::Seconds(10)));
  EXPECT_EQ(posts, 3);
  EXPECT_TRUE(errors.empty()) << errors[0];
}

// A create sent again after its answer was lost finds the event its first try made: that is no
// failure. A status patch the server refuses still is.
TEST(ApiWriterTest, AnEventThatAlreadyExistsIsNoFailure) {
  RecordingServer server(/*patch_status=*/409, /*port=*/0, /*post_status=*/409);
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  std::vector<std::string> errors;
  ApiWriter w(**http, {.hostname = "h",
                       .on_write_error = [&](const std::string& what, const absl::Status&) {
                         errors.push_back(what);
                       }});
  w.RecordEvent(MakePod(), "Normal", "Scheduled", "Binding", "Successfully assigned");
  api::PodCondition c{.type = "PodScheduled", .status = "False", .reason = "Unschedulable"};
  ASSERT_TRUE(w.UpdatePodStatus(MakePod(), c, nullptr).ok());
  ASSERT_TRUE((*http)->WaitIdle(absl::Seconds(10)));
  EXPECT_EQ(server.TakeRequests().size(), 2u);
  EXPECT_EQ(errors, std::vector<std::string>{"status of pod shop/web-1"});
}

// A victim's DisruptionTarget is in place before its deletion: the patch is answered by the time
// UpdatePodStatusAndWait returns, and the server's refusal is its result.
TEST(ApiWriterTest, UpdatePodStatusAndWaitReturnsTheServersAnswer) {
  api::PodCondition target{
      .type = "DisruptionTarget", .status = "True", .reason = "PreemptionByScheduler"};
  {
    RecordingServer server(/*patch_status=*/200);
    auto http = HttpClient::Create({.server = server.url()});
    ASSERT_TRUE(http.ok());
    ApiWriter w(**http, {.hostname = "h"});
    ASSERT_TRUE(w.UpdatePodStatusAndWait(MakePod(), target).ok());
    std::vector<std::string> got = server.TakeRequests();  // No wait: it is in already.
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(got[0].starts_with("PATCH /api/v1/namespaces/shop/pods/web-1/status {")) << got[0];
    EXPECT_NE(got[0].find("PreemptionByScheduler"), std::string::npos) << got[0];
  }
  RecordingServer gone(/*patch_status=*/404);
  auto http = HttpClient::Create({.server = gone.url()});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  EXPECT_EQ(w.UpdatePodStatusAndWait(MakePod(), target).code(), absl::StatusCode::kNotFound);
}

// PreBind's write of a claim, on a conflict: the claim is read again and written over its new
// version, as upstream's bindClaim retries; a claim allocated meanwhile is not written over, but
// where it was allocated the same devices (by a pod that shares it in its pod group's cycle), it
// is reserved.
TEST(ApiWriterTest, AClaimsReservationIsRetriedOnAConflictWithTheClaimReadAgain) {
  constexpr char kPath[] = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/gpu";
  std::mutex mu;
  std::vector<std::string> requests;
  std::string last_body;
  std::string stored_rv = "6";  // The version the GET answers with.
  bool allocated_meanwhile = false;
  std::string device_meanwhile = "y";  // The device it was allocated meanwhile.
  testing::LoopbackServer server;
  auto claim_json = [&](const std::string& rv, bool allocated) {
    nlohmann::json c = {
        {"metadata",
         {{"name", "gpu"}, {"namespace", "default"}, {"uid", "c1"}, {"resourceVersion", rv}}},
        {"spec", {{"devices", nlohmann::json::object()}}}};
    if (allocated) {
      c["status"]["allocation"]["devices"]["results"] = {
          {{"request", "gpu"}, {"driver", "d"}, {"pool", "p"}, {"device", device_meanwhile}}};
    }
    return c.dump();
  };
  server.server().Get(kPath, [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    requests.push_back("GET " + req.path);
    res.set_content(claim_json(stored_rv, allocated_meanwhile), "application/json");
  });
  server.server().Patch(".*", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    const std::string rv = nlohmann::json::parse(req.body)["metadata"].value("resourceVersion", "");
    requests.push_back("PATCH " + req.path + " rv=" + rv);
    last_body = req.body;
    if (rv != stored_rv) {  // The API server's precondition.
      res.status = 409;
      res.set_content(R"({"kind":"Status","code":409,"reason":"Conflict"})", "application/json");
      return;
    }
    stored_rv = std::to_string(std::stoi(stored_rv) + 1);
    res.set_content(claim_json(stored_rv, true), "application/json");
  });
  ASSERT_TRUE(server.Start());
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  ApiWriter w(**http, {.hostname = "h"});
  api::ResourceClaim read;  // What the scheduler read: version 5, since changed to 6.
  read.metadata = {.name = "gpu", .namespace_ = "default", .uid = "c1", .resource_version = "5"};
  api::AllocationResult allocation;
  allocation.results.push_back({.request = "gpu", .driver = "d", .pool = "p", .device = "x"});
  const api::ResourceClaimConsumerReference pod{.resource = "pods", .name = "p", .uid = "u"};

  absl::StatusOr<api::ResourceClaim> written = w.ReserveResourceClaim(read, &allocation, pod);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->metadata.resource_version, "8");
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(requests, (std::vector<std::string>{
                            fmt::format("PATCH {} rv=5", kPath),  // The finalizer: a conflict.
                            fmt::format("GET {}", kPath),
                            fmt::format("PATCH {} rv=6", kPath),  // The finalizer.
                            fmt::format("PATCH {}/status rv=7", kPath),
                        }));
    requests.clear();
    allocated_meanwhile = true;
    stored_rv = "9";
  }
  written = w.ReserveResourceClaim(read, &allocation, pod);
  EXPECT_EQ(written.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(written.status().message(),
            "claim default/gpu got allocated elsewhere in the meantime");
  {
    std::lock_guard<std::mutex> lock(mu);
    requests.clear();
    device_meanwhile = "x";  // As this write would allocate it.
  }
  written = w.ReserveResourceClaim(read, &allocation, pod);
  ASSERT_TRUE(written.ok()) << written.status();
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(requests, (std::vector<std::string>{
                            fmt::format("PATCH {} rv=5", kPath), fmt::format("GET {}", kPath),
                            fmt::format("PATCH {}/status rv=9", kPath),  // No finalizer.
                        }));
    nlohmann::json status = nlohmann::json::parse(last_body)["status"];
    EXPECT_FALSE(status["allocation"].contains("devices")) << last_body;
    EXPECT_EQ(status["reservedFor"][0]["uid"], "u");
    stored_rv = "9";
  }

  // A reservation only, of a claim someone else allocated without saying when: the time is
  // filled in, as upstream does.
  api::ResourceClaim allocated = read;
  allocated.metadata.resource_version = "9";
  allocated.allocation = allocation;
  written = w.ReserveResourceClaim(allocated, nullptr, pod);
  ASSERT_TRUE(written.ok()) << written.status();
  {
    std::lock_guard<std::mutex> lock(mu);
    nlohmann::json status = nlohmann::json::parse(last_body)["status"];
    EXPECT_TRUE(status["allocation"].value("allocationTimestamp", "").ends_with("Z")) << last_body;
    EXPECT_EQ(status["reservedFor"][0]["uid"], "u");
    allocated_meanwhile = false;  // Deallocated since it was read.
  }
  written = w.ReserveResourceClaim(allocated, nullptr, pod);
  EXPECT_EQ(written.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(written.status().message(),
            "claim default/gpu got deallocated elsewhere in the meantime");
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
