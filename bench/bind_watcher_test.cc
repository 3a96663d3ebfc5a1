// The bench's BindWatcher against a scripted API server on loopback: a bind the watch never brings
// is reported as lost, and one it brings late is not.
#include "bench/bind_watcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fmt/format.h"
#include "src/testing/loopback_server.h"

namespace ksched::bench {
namespace {

std::string BoundPod(const std::string& name, int rv) {
  return fmt::format(
      R"({{"metadata":{{"name":"{}","namespace":"sched-1","uid":"uid-{}","resourceVersion":"{}"}},)"
      R"("spec":{{"nodeName":"node-0","containers":[{{"name":"c"}}]}},"status":{{}}}})",
      name, name, rv);
}

std::string Added(const std::string& name, int rv) {
  return fmt::format(R"({{"type":"ADDED","object":{}}})", BoundPod(name, rv)) + "\n";
}

// Serves namespace sched-1: the watch cache's list is empty, the watch brings pods a and b at
// once and then `late` after `late_after` (none if empty), and a list from etcd (no
// resourceVersion) shows a, b and c bound.
class FakeServer {
 public:
  FakeServer(std::string late, absl::Duration late_after) {
    server_.server().Get(
        "/api/v1/namespaces/sched-1/pods",
        [this, late, late_after](const httplib::Request& req, httplib::Response& res) {
          if (!req.has_param("watch")) {
            std::string items;
            if (!req.has_param("resourceVersion")) {
              items = BoundPod("a", 11) + "," + BoundPod("b", 12) + "," + BoundPod("c", 13);
            }
            res.set_content(
                fmt::format(R"({{"metadata":{{"resourceVersion":"10"}},"items":[{}]}})", items),
                "application/json");
            return;
          }
          // As text/event-stream, which cpp-httplib does not compress, each event goes out as
          // it is written, as the API server's watch sends it (gzip would hold them back).
          const absl::Time start = absl::Now();
          auto sent = std::make_shared<int>(0);
          res.set_chunked_content_provider(
              "text/event-stream", [=, this](size_t, httplib::DataSink& sink) {
                if (*sent == 0) {
                  const std::string first = Added("a", 11) + Added("b", 12);
                  sink.write(first.data(), first.size());
                  *sent = 1;
                } else if (*sent == 1 && !late.empty() && absl::Now() - start >= late_after) {
                  const std::string last = Added(late, 13);
                  sink.write(last.data(), last.size());
                  *sent = 2;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                return !stopping_.load();
              });
        });
    EXPECT_TRUE(server_.Start());
  }
  ~FakeServer() { stopping_ = true; }
  std::string url() const { return server_.url(); }

 private:
  std::atomic<bool> stopping_{false};
  testing::LoopbackServer server_;
};

TEST(BindWatcherTest, ABindTheWatchNeverBringsIsReportedAsLost) {
  FakeServer server("", absl::ZeroDuration());
  auto http = client::HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  BindWatcher binds(**http, "sched-1",
                    {.stall = absl::Milliseconds(300), .grace = absl::Milliseconds(300)});
  absl::Status st = binds.WaitFor(3, absl::Seconds(30));
  EXPECT_TRUE(absl::IsDataLoss(st)) << st;
  EXPECT_EQ(std::string(st.message()),
            "the watch of sched-1 lost 1 bind(s): bound in the API server, not on the watch 600ms "
            "later: c");
  EXPECT_EQ(binds.Count(), 2u);
}

TEST(BindWatcherTest, ABindTheWatchBringsLateIsNotLost) {
  FakeServer server("c", absl::Seconds(1));
  auto http = client::HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  BindWatcher binds(**http, "sched-1",
                    {.stall = absl::Milliseconds(300), .grace = absl::Seconds(10)});
  EXPECT_TRUE(binds.WaitFor(3, absl::Seconds(30)).ok());
  EXPECT_TRUE(binds.Seen("c"));
  EXPECT_EQ(binds.watches(), 1);
}

TEST(BindWatcherTest, ACountThatStaysShortTimesOut) {
  FakeServer server("", absl::ZeroDuration());
  auto http = client::HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  BindWatcher binds(**http, "sched-1");  // Stalls are checked after 30 s: not within this wait.
  absl::Status st = binds.WaitFor(3, absl::Seconds(1));
  EXPECT_TRUE(absl::IsDeadlineExceeded(st)) << st;
  EXPECT_EQ(std::string(st.message()), "2 of 3 pods bound in sched-1");
}

// A scheduler that exited binds nothing more: the wait ends within a second, not at its timeout.
TEST(BindWatcherTest, AWaitEndsOnceTheSchedulerIsGone) {
  FakeServer server("", absl::ZeroDuration());
  auto http = client::HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  BindWatcher binds(**http, "sched-1");
  int asked = 0;
  absl::Status st = binds.WaitFor(3, absl::Seconds(30), [&] { return ++asked < 3; });
  EXPECT_TRUE(absl::IsAborted(st)) << st;
  EXPECT_EQ(std::string(st.message()), "the scheduler exited: 2 of 3 pods bound in sched-1");
  EXPECT_EQ(asked, 3);
}

}  // namespace
}  // namespace ksched::bench
