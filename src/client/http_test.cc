// HttpClient against a recording server (cpp-httplib on loopback): requests reuse the I/O thread's
// easy handles, and each must go out as it was asked, whatever the handle sent before.
#include "src/client/http.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "src/testing/loopback_server.h"

namespace ksched::client {
namespace {

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

 private:
  std::mutex mu_;
  std::vector<std::string> requests_;
  testing::LoopbackServer server_;  // Last: stopped before what its handlers use goes.
};

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
  };
  std::vector<std::string> expected = once;
  expected.insert(expected.end(), once.begin(), once.end());
  EXPECT_EQ(server.requests(), expected);
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

}  // namespace
}  // namespace ksched::client
