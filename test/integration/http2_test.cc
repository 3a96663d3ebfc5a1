// The HTTP client's own HTTP/2 transport (src/client/h2.h, the default) against a
// real kube-apiserver: many requests in flight on one connection, bodies both ways, error answers,
// a watch and its cancellation, a request's timeout; and, beside it, a TLS server that speaks only
// HTTP/1.1 (ksched's own serving port), reached through libcurl instead.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "fmt/format.h"
#include "src/base/lazy_library.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/server/server.h"
#include "src/testing/control_plane.h"
#include "src/testing/ports.h"

namespace ksched::testing {
namespace {

using client::HttpClient;
using client::HttpRequest;
using client::HttpResponse;

class Http2Test : public ControlPlaneTest {
 protected:
  std::unique_ptr<HttpClient> Client() {
    setenv("KSCHED_HTTP_TRANSPORT", "h2", 1);  // The transport under test, whatever CI's is.
    auto config = client::LoadKubeconfig(cluster().kubeconfig(), "");
    EXPECT_TRUE(config.ok()) << config.status();
    config->qps = -1;  // No client-side rate limit: the requests go at once.
    auto http = HttpClient::Create(*config);
    EXPECT_TRUE(http.ok()) << http.status();
    return std::move(*http);
  }
};

TEST_F(Http2Test, ThreeHundredRequestsInFlightAreAllAnswered) {
  std::unique_ptr<HttpClient> http = Client();
  std::mutex mu;
  std::vector<long> statuses;
  std::promise<void> all;
  constexpr int kRequests = 300;  // More than the 250 streams a Go server allows at once.
  for (int i = 0; i < kRequests; ++i) {
    http->Send({.path = "/api/v1/namespaces/default"}, [&](HttpResponse r) {
      std::lock_guard<std::mutex> lock(mu);
      EXPECT_NE(r.body.find("\"name\":\"default\""), std::string::npos) << r.body;
      statuses.push_back(r.status);
      if (statuses.size() == kRequests) all.set_value();
    });
  }
  ASSERT_EQ(all.get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), kRequests);
}

TEST_F(Http2Test, BodiesGoBothWaysAndErrorAnswersKeepTheirMessage) {
  std::unique_ptr<HttpClient> http = Client();
  const std::string data(200000, 'x');  // Larger than a stream's first window of 64 KiB.
  HttpResponse made = http->Call(
      {.method = "POST",
       .path = "/api/v1/namespaces/default/configmaps",
       .body =
           R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h2-big"},"data":{"d":")" +
           data + R"("}})"});
  ASSERT_EQ(made.status, 201) << made.body << made.transport_error;
  HttpResponse got = http->Call({.path = "/api/v1/namespaces/default/configmaps/h2-big"});
  ASSERT_EQ(got.status, 200);
  EXPECT_NE(got.body.find(data), std::string::npos);

  HttpResponse missing = http->Call({.path = "/api/v1/namespaces/default/pods/nope"});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.ToStatus().message(), "pods \"nope\" not found");
  HttpResponse conflict = http->Call(
      {.method = "POST",
       .path = "/api/v1/namespaces/default/configmaps",
       .body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h2-big"}})"});
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.ToStatus().message(), "configmaps \"h2-big\" already exists");
}

TEST_F(Http2Test, AWatchStreamsEventsUntilItIsCancelled) {
  std::unique_ptr<HttpClient> http = Client();
  std::mutex mu;
  std::string streamed;
  std::promise<HttpResponse> ended;
  std::shared_ptr<HttpClient::Stream> watch = http->Watch(
      {.path = "/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dh2-w",
       .timeout = absl::ZeroDuration()},
      [&](std::string_view chunk) {
        std::lock_guard<std::mutex> lock(mu);
        streamed.append(chunk);
      },
      [&](HttpResponse r) { ended.set_value(std::move(r)); });
  auto seen = [&](const std::string& what) {
    for (int i = 0; i < 100; ++i) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (streamed.find(what) != std::string::npos) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  };
  ASSERT_EQ(cluster().Kubectl({"create", "configmap", "h2-w", "--from-literal=a=1"}).exit_code, 0);
  EXPECT_TRUE(seen(R"("type":"ADDED")"));
  ASSERT_EQ(cluster().Kubectl({"delete", "configmap", "h2-w"}).exit_code, 0);
  EXPECT_TRUE(seen(R"("type":"DELETED")"));
  watch->Cancel();
  std::future<HttpResponse> f = ended.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(f.get().transport_error, "cancelled");
  // The connection goes on serving.
  EXPECT_EQ(http->Call({.path = "/api/v1/namespaces/default"}).status, 200);
}

TEST_F(Http2Test, ARequestPastItsTimeoutEndsAndTheConnectionGoesOn) {
  std::unique_ptr<HttpClient> http = Client();
  // A watch asked as a plain request never completes by itself.
  const absl::Time start = absl::Now();
  HttpResponse r = http->Call(
      {.path = "/api/v1/namespaces/default/configmaps?watch=1", .timeout = absl::Seconds(1)});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.transport_error.find("timed out"), std::string::npos) << r.transport_error;
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(http->Call({.path = "/api/v1/namespaces/default"}).status, 200);
}

// ksched's serving port speaks HTTP/1.1 over TLS only: the client sees ALPN refuse h2, opens
// libcurl (which no client of this process needed before) and sends its requests through it from
// then on.
TEST(Http2FallbackTest, AServerWithoutHttp2IsReachedOverHttp11) {
  const int port = FreePort();
  auto server = server::Server::Start(
      {.bind_address = "127.0.0.1", .secure_port = port, .always_allow_paths = {"/healthz"}}, {},
      nullptr);
  ASSERT_TRUE(server.ok()) << server.status();
  setenv("KSCHED_HTTP_TRANSPORT", "h2", 1);
  client::RestConfig config;
  config.server = fmt::format("https://127.0.0.1:{}", port);
  config.insecure_skip_tls_verify = true;
  auto http = HttpClient::Create(config);
  ASSERT_TRUE(http.ok()) << http.status();
  for (int i = 0; i < 3; ++i) {
    HttpResponse r = (*http)->Call({.path = "/healthz"});
    EXPECT_EQ(r.status, 200) << r.transport_error;
    EXPECT_EQ(r.body, "ok");
  }
  EXPECT_TRUE(LazyLibrary::IsLoaded("libcurl.so.4"));
}

}  // namespace
}  // namespace ksched::testing
