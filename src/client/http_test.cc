// HttpClient against a recording server (cpp-httplib on loopback): requests reuse the I/O thread's
// easy handles, and each must go out as it was asked, whatever the handle sent before.
#include "src/client/http.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "src/base/lazy_library.h"
#include "src/testing/loopback_server.h"
#include "src/testing/metrics_text.h"

namespace ksched::client {
namespace {

using testing::Sample;

class EchoServer {
 public:
  EchoServer() {
    auto record = [this](const httplib::Request& req, httplib::Response& res) {
      if (req.has_param("sleep_ms")) {
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::stoi(req.get_param_value("sleep_ms"))));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(fmt::format("{} {} [{}] {}", req.method, req.path,
                                        req.get_header_value("Content-Type"), req.body));
        accepts_.push_back(req.get_header_value("Accept"));
      }
      res.set_content("{}", "application/json");
    };
    server_.server().Get(".*", record);
    server_.server().Post(".*", record);
    server_.server().Patch(".*", record);
    server_.server().Delete(".*", record);
    EXPECT_TRUE(server_.Start());
  }
  std::string url() const { return server_.url(); }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  std::vector<std::string> accepts() {  // Each request's Accept header.
    std::lock_guard<std::mutex> lock(mu_);
    return accepts_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> requests_;
  std::vector<std::string> accepts_;
  testing::LoopbackServer server_;  // Last: stopped before what its handlers use goes.
};

// Over HTTPS without a proxy a client takes ksched's own HTTP/2 transport, and libcurl (with the
// libraries it needs, about 3 MiB resident) stays unloaded; a plain-HTTP server takes libcurl,
// which is loaded then. In a process of its own, so that no other test's client loaded it first.
TEST(HttpClientDeathTest, LibcurlIsLoadedOnlyForAClientOnTheCurlTransport) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        for (const char* var :
             {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "KSCHED_HTTP_TRANSPORT"}) {
          unsetenv(var);
        }
        auto h2 = HttpClient::Create({.server = "https://127.0.0.1:9"});
        if (!h2.ok() || LazyLibrary::IsLoaded("libcurl.so.4")) std::_Exit(1);
        auto curl = HttpClient::Create({.server = "http://127.0.0.1:9"});
        std::_Exit(curl.ok() && LazyLibrary::IsLoaded("libcurl.so.4") ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

// A callback (and so a watch handler run on the I/O thread, with the PreEnqueue plugins it runs)
// that calls Call() would wait for an answer only that thread can bring: every request and watch
// of the client would stop. It fails at once instead, and the client goes on.
TEST(HttpClientTest, ACallFromTheIoThreadFailsAtOnceInsteadOfWaitingForItself) {
  EchoServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  EXPECT_FALSE((*http)->OnIoThread());
  std::promise<std::pair<bool, HttpResponse>> inner;
  (*http)->Send({.path = "/outer"}, [&](HttpResponse) {
    const bool on_io_thread = (*http)->OnIoThread();
    inner.set_value({on_io_thread, (*http)->Call({.path = "/inner"})});
  });
  std::future<std::pair<bool, HttpResponse>> got = inner.get_future();
  ASSERT_EQ(got.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the callback's Call waited for itself";
  auto [on_io_thread, r] = got.get();
  EXPECT_TRUE(on_io_thread);
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.transport_error,
              ::testing::HasSubstr("HttpClient::Call on the client's I/O thread, which would wait "
                                   "for itself (GET /inner)"));
  EXPECT_EQ(server.requests(), std::vector<std::string>{"GET /outer [] "});
  // The client goes on.
  EXPECT_TRUE((*http)->Call({.path = "/after"}).ok());
}

TEST(HttpClientTest, EachRequestGoesOutAsAskedOnReusedHandles) {
  EchoServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  const std::vector<HttpRequest> asked = {
      {.method = "POST", .path = "/a", .body = R"({"x":1})"},
      {.method = "GET", .path = "/b"},
      {.method = "DELETE", .path = "/c", .body = R"({"kind":"DeleteOptions"})"},
      {.method = "GET", .path = "/d"},
      {.method = "PATCH",
       .path = "/e",
       .body = R"({"status":{}})",
       .content_type = "application/strategic-merge-patch+json"},
      {.method = "GET", .path = "/f", .accept = "application/vnd.kubernetes.protobuf"},
  };
  for (int round = 0; round < 2; ++round) {
    for (const HttpRequest& r : asked) ASSERT_TRUE((*http)->Call(r).ok()) << r.path;
  }
  const std::vector<std::string> once = {
      R"(POST /a [application/json] {"x":1})",
      "GET /b [] ",
      R"(DELETE /c [application/json] {"kind":"DeleteOptions"})",
      "GET /d [] ",
      R"(PATCH /e [application/strategic-merge-patch+json] {"status":{}})",
      "GET /f [] ",
  };
  std::vector<std::string> expected = once;
  expected.insert(expected.end(), once.begin(), once.end());
  EXPECT_EQ(server.requests(), expected);
  // JSON unless a request asks for another media type.
  std::vector<std::string> accepts_once(5, "application/json");
  accepts_once.push_back("application/vnd.kubernetes.protobuf");
  std::vector<std::string> accepts = accepts_once;
  accepts.insert(accepts.end(), accepts_once.begin(), accepts_once.end());
  EXPECT_EQ(server.accepts(), accepts);
}

// The client asks for gzip alone, as Go's transport does, and reads the answer unpacked: a
// cpp-httplib server offered brotli as well answers at brotli's slowest quality (40 ms a call).
TEST(HttpClientTest, AnswersComeGzippedAsToGoClients) {
  std::string big = "[";
  for (int i = 0; i < 5000; ++i) big += fmt::format("{}\"node-{}\"", i == 0 ? "" : ",", i);
  big += "]";
  std::mutex mu;
  std::vector<std::string> encodings;
  testing::LoopbackServer server;
  server.server().Post("/filter", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      encodings.push_back(req.get_header_value("Accept-Encoding"));
    }
    res.set_content(big, "application/json");
  });
  ASSERT_TRUE(server.Start());
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  for (int i = 0; i < 2; ++i) {
    HttpResponse r = (*http)->Call({.method = "POST", .path = "/filter", .body = "{}"});
    ASSERT_EQ(r.status, 200) << r.transport_error;
    EXPECT_EQ(r.body, big);
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_THAT(encodings, ::testing::ElementsAre("gzip", "gzip"));
}

// A request's timeout is its own: the next one on the same handle has none unless it asks.
TEST(HttpClientTest, ATimeoutEndsItsRequestOnlyAndDoesNotStayOnTheHandle) {
  EchoServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  HttpResponse late =
      (*http)->Call({.path = "/slow?sleep_ms=1500", .timeout = absl::Milliseconds(200)});
  EXPECT_EQ(late.status, 0);
  EXPECT_FALSE(late.transport_error.empty());
  HttpResponse patient =
      (*http)->Call({.path = "/slow?sleep_ms=600", .timeout = absl::ZeroDuration()});
  EXPECT_EQ(patient.status, 200) << patient.transport_error;
}

// The scheduler's throttle: how many requests are outstanding, waited on.
TEST(HttpClientTest, WaitForFewerWaitsUntilEnoughRequestsAreAnswered) {
  EchoServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  std::atomic<int> answered = 0;
  for (int i = 0; i < 3; ++i) {
    (*http)->Send({.path = fmt::format("/slow{}?sleep_ms=700", i)},
                  [&](HttpResponse) { ++answered; });
  }
  EXPECT_TRUE((*http)->WaitForFewer(4, absl::Milliseconds(100)));
  EXPECT_FALSE((*http)->WaitForFewer(3, absl::Milliseconds(100)));
  EXPECT_EQ(answered, 0);
  EXPECT_TRUE((*http)->WaitForFewer(1, absl::Seconds(10)));
  EXPECT_EQ(answered, 3);
}

// Answers the first `refusals` requests with `status` (and Retry-After, when set), the next ones
// 201, and counts them all.
class RefusingServer {
 public:
  RefusingServer(int refusals, int status, const std::string& retry_after) {
    auto answer = [=, this](const httplib::Request&, httplib::Response& res) {
      if (++requests_ <= refusals) {
        res.status = status;
        if (!retry_after.empty()) res.set_header("Retry-After", retry_after);
        res.set_header("X-Kubernetes-PF-FlowSchema-UID", "uid-of-the-schema");
        res.set_content(R"({"kind":"Status","message":"Too many requests, please try again later.")"
                        R"(,"reason":"TooManyRequests","code":429})",
                        "application/json");
        return;
      }
      res.status = 201;
      res.set_content(R"({"kind":"Binding"})", "application/json");
    };
    server_.server().Post(".*", answer);
    server_.server().Get(".*", answer);
    EXPECT_TRUE(server_.Start());
  }
  std::string url() const { return server_.url(); }
  int requests() const { return requests_; }

 private:
  std::atomic<int> requests_{0};
  testing::LoopbackServer server_;
};

// API Priority and Fairness sheds load with 429 and Retry-After: the request goes again after
// the seconds asked, and the caller sees only the final answer, with one warning logged.
TEST(HttpClientTest, ATooManyRequestsAnswerIsSentAgainAfterItsRetryAfter) {
  RefusingServer server(2, 429, "1");
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  ::testing::internal::CaptureStderr();
  const absl::Time start = absl::Now();
  HttpResponse r = (*http)->Call({.method = "POST", .path = "/api/v1/bindings", .body = "{}"});
  const absl::Duration took = absl::Now() - start;
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.status, 201) << r.body << r.transport_error;
  EXPECT_EQ(server.requests(), 3);
  EXPECT_GE(took, absl::Seconds(2));  // Two waits of one second each.
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
  EXPECT_NE(log.find("asked to send the request again later"), std::string::npos) << log;
  EXPECT_NE(log.find("uid-of-the-schema"), std::string::npos) << log;
}

// A 503 with Retry-After goes again too, but only ten times; the eleventh answer is final.
TEST(HttpClientTest, AServerThatKeepsRefusingGetsTenRetriesAndItsAnswerIsFinal) {
  RefusingServer server(100, 503, "0");
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  HttpResponse r = (*http)->Call({.path = "/api/v1/nodes"});
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(server.requests(), 11);
  EXPECT_TRUE(absl::IsUnavailable(r.ToStatus())) << r.ToStatus();
}

// Without Retry-After, a 429 or a 500 is the answer, at once, as in client-go.
TEST(HttpClientTest, AnErrorAnswerWithoutRetryAfterIsFinal) {
  for (int status : {429, 500}) {
    RefusingServer server(1, status, "");
    auto http = HttpClient::Create({.server = server.url()});
    ASSERT_TRUE(http.ok()) << http.status();
    EXPECT_EQ((*http)->Call({.path = "/api/v1/nodes"}).status, status);
    EXPECT_EQ(server.requests(), 1);
  }
}

// A watch refused with Retry-After is opened again; its events then arrive as usual.
TEST(HttpClientTest, ARefusedWatchIsOpenedAgainAfterItsRetryAfter) {
  RefusingServer server(1, 429, "0");
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  std::promise<HttpResponse> done;
  std::string data;
  auto stream = (*http)->Watch(
      {.path = "/api/v1/pods?watch=1", .timeout = absl::ZeroDuration()},
      [&data](std::string_view chunk) { data.append(chunk); },
      [&done](HttpResponse r) { done.set_value(std::move(r)); });
  HttpResponse r = done.get_future().get();
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(data, R"({"kind":"Binding"})");
  EXPECT_EQ(server.requests(), 2);
}

// With `coalesce`, a request sent while the I/O thread sleeps does not wake it; the thread then
// sleeps no longer than that while requests come, so none waits for its one-second poll.
TEST(HttpClientTest, CoalescedRequestsStillGoOutWithinTheirWindow) {
  RefusingServer server(0, 429, "");
  auto http = HttpClient::Create({.server = server.url()}, {.coalesce = absl::Milliseconds(20)});
  ASSERT_TRUE(http.ok()) << http.status();
  absl::Duration slowest;
  for (int i = 0; i < 40; ++i) {
    // Now at once, now after the thread went back to sleep.
    absl::SleepFor(absl::Milliseconds(10 * (i % 4)));
    const absl::Time sent = absl::Now();
    EXPECT_EQ((*http)->Call({.method = "POST", .path = "/api/v1/bindings", .body = "{}"}).status,
              201);
    slowest = std::max(slowest, absl::Now() - sent);
  }
  EXPECT_EQ(server.requests(), 40);
  EXPECT_LT(slowest, absl::Milliseconds(500));
}

// A request sent from an answer's callback, on the I/O thread, wakes nothing (the thread is awake):
// the thread takes it once the callbacks are done, so none waits for the one-second poll.
TEST(HttpClientTest, ARequestSentFromAnAnswersCallbackGoesOutAtOnce) {
  for (absl::Duration coalesce : {absl::ZeroDuration(), absl::Milliseconds(20)}) {
    SCOPED_TRACE(absl::FormatDuration(coalesce));
    RefusingServer server(0, 429, "");
    auto http = HttpClient::Create({.server = server.url()}, {.coalesce = coalesce});
    ASSERT_TRUE(http.ok()) << http.status();
    constexpr int kChain = 20;
    std::promise<void> all_done;
    std::vector<int> statuses;  // The I/O thread alone appends, one answer after the other.
    std::function<void(HttpResponse)> next = [&](HttpResponse r) {
      statuses.push_back(r.status);
      if (statuses.size() == kChain) {
        all_done.set_value();
        return;
      }
      (*http)->Send({.method = "POST", .path = "/api/v1/bindings", .body = "{}"}, next);
    };
    const absl::Time start = absl::Now();
    (*http)->Send({.method = "POST", .path = "/api/v1/bindings", .body = "{}"}, next);
    ASSERT_EQ(all_done.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_EQ(statuses, std::vector<int>(kChain, 201));
    EXPECT_EQ(server.requests(), kChain);
    // Each waiting for the poll's second would take 20 s.
    EXPECT_LT(absl::Now() - start, absl::Seconds(kChain / 2));
  }
}

// client-go's rest_client_* metrics: each request's wait in the rate limit, its final answer
// (a 429 with Retry-After counts as a retry, not a result) and its duration; "<error>" for no
// answer. The host label is the server's host:port.
TEST(HttpClientTest, RestClientMetricsCountAnswersRetriesAndTheWaitInTheRateLimit) {
  metrics::Registry registry;
  RestClientMetrics rest_metrics(registry);
  RefusingServer server(1, 429, "0");
  auto http = HttpClient::Create({.server = server.url(), .qps = 5, .burst = 1},
                                 {.metrics = &rest_metrics});
  ASSERT_TRUE(http.ok()) << http.status();
  // Four at once: the rate limit lets one go at once and the others 0.2, 0.4 and 0.6 s later.
  std::vector<std::future<HttpResponse>> answers;
  for (int i = 0; i < 4; ++i) {
    auto p = std::make_shared<std::promise<HttpResponse>>();
    answers.push_back(p->get_future());
    (*http)->Send({.method = "POST", .path = "/api/v1/bindings", .body = "{}"},
                  [p](HttpResponse r) { p->set_value(std::move(r)); });
  }
  for (auto& a : answers) EXPECT_EQ(a.get().status, 201);
  auto refused = HttpClient::Create({.server = "http://127.0.0.1:1"}, {.metrics = &rest_metrics});
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ((*refused)->Call({.path = "/api/v1/nodes"}).status, 0);

  const std::string text = registry.Text();
  const std::string host = server.url().substr(std::string("http://").size());
  EXPECT_EQ(Sample(text, fmt::format(R"(rest_client_requests_total{{code="201",host="{}",)"
                                     R"(method="POST"}})",
                                     host)),
            4)
      << text;
  EXPECT_EQ(Sample(text, fmt::format(R"(rest_client_request_retries_total{{code="429",)"
                                     R"(host="{}",verb="POST"}})",
                                     host)),
            1)
      << text;
  EXPECT_EQ(Sample(text, R"(rest_client_requests_total{code="<error>",host="127.0.0.1:1",)"
                         R"(method="GET"})"),
            1)
      << text;
  const std::string labels = fmt::format(R"({{host="{}",verb="POST"}})", host);
  EXPECT_EQ(Sample(text, "rest_client_rate_limiter_duration_seconds_count" + labels), 4) << text;
  EXPECT_NEAR(Sample(text, "rest_client_rate_limiter_duration_seconds_sum" + labels), 1.2, 0.1)
      << text;
  EXPECT_EQ(Sample(text, "rest_client_request_duration_seconds_count" + labels), 4) << text;
  EXPECT_GE(Sample(text, "rest_client_request_duration_seconds_sum" + labels), 1.2) << text;
}

}  // namespace
}  // namespace ksched::client
