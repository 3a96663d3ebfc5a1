// LeaderElector against a Lease server on loopback that keeps one Lease with a resourceVersion,
// as the API server does, and can be told to fail every call.
#include "src/client/leader_election.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "nlohmann/json.hpp"
#include "src/testing/loopback_server.h"

namespace ksched::client {
namespace {

using nlohmann::json;

class LeaseServer {
 public:
  LeaseServer() {
    const std::string path = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
    server_.server().Get(path + "/kube-scheduler", [this](const auto&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      if (failing_) return Fail(res);
      if (lease_.is_null()) {
        res.status = 404;
        return;
      }
      res.set_content(lease_.dump(), "application/json");
    });
    auto write = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      if (failing_) return Fail(res);
      json l = json::parse(req.body);
      if (!lease_.is_null() && l["metadata"].value("resourceVersion", "") !=
                                   lease_["metadata"].value("resourceVersion", "")) {
        res.status = 409;
        return;
      }
      l["metadata"]["resourceVersion"] = std::to_string(++version_);
      lease_ = l;
      res.status = req.method == "POST" ? 201 : 200;
      res.set_content(lease_.dump(), "application/json");
    };
    server_.server().Post(path, write);
    server_.server().Put(path + "/kube-scheduler", write);
    EXPECT_TRUE(server_.Start());
  }
  std::string url() const { return server_.url(); }
  void set_failing(bool f) {
    std::lock_guard<std::mutex> lock(mu_);
    failing_ = f;
  }

 private:
  static void Fail(httplib::Response& res) { res.status = 503; }
  std::mutex mu_;
  json lease_;
  int version_ = 0;
  bool failing_ = false;
  testing::LoopbackServer server_;
};

LeaderElectionOptions Fast(const std::string& identity) {
  return {.identity = identity,
          .lease_duration = absl::Milliseconds(1500),
          .renew_deadline = absl::Milliseconds(1000),
          .retry_period = absl::Milliseconds(200)};
}

// The fence opens when the Lease is won and closes one renew deadline after the last renewal
// that went through, before anyone else may take the Lease; a standby's fence stays shut.
TEST(LeaderElectorTest, LeadingHoldsFromTheLastRenewalForTheRenewDeadlineOnly) {
  LeaseServer server;
  auto http = HttpClient::Create({.server = server.url()});
  ASSERT_TRUE(http.ok());
  LeaderElector a(**http, Fast("a"));
  LeaderElector b(**http, Fast("b"));
  EXPECT_EQ(a.Leading().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(a.TryAcquireOrRenew(absl::Now()).ok());
  EXPECT_TRUE(a.Leading().ok());
  EXPECT_FALSE(b.TryAcquireOrRenew(absl::Now()).ok());
  EXPECT_EQ(b.Leading().code(), absl::StatusCode::kFailedPrecondition);

  std::atomic<bool> lost{false};
  a.KeepRenewing([&lost] { lost = true; });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_TRUE(a.Leading().ok()) << "renewals went through";
  server.set_failing(true);
  const absl::Time failing_since = absl::Now();
  while (a.Leading().ok() && absl::Now() - failing_since < absl::Seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Shut before a standby could take the Lease: within the lease duration of the last renewal.
  EXPECT_LT(absl::Now() - failing_since, absl::Milliseconds(1500));
  EXPECT_EQ(a.Leading().code(), absl::StatusCode::kFailedPrecondition) << a.Leading();
  while (!lost && absl::Now() - failing_since < absl::Seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(lost);
}

}  // namespace
}  // namespace ksched::client
