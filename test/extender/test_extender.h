// TestExtender: a scheduler extender for tests, served on 127.0.0.1 (cpp-httplib), with the four
// verbs at /ext/filter, /ext/prioritize, /ext/preempt and /ext/bind. Its rules are read from the
// pod's annotations, so that one extender serves every case and kube-scheduler and ksched, given
// the same pods, are asked the same:
//
//   test-extender/reject: "n1,n2"          filter: FailedNodes, "rejected by the test extender"
//   test-extender/unresolvable: "n3"       filter: FailedAndUnresolvableNodes, the same words
//   test-extender/scores: "n1=3,n2=10"     prioritize: those scores, 0 for the other nodes
//   test-extender/no-preempt: "n4"         preempt: those candidates dropped, the others kept
//
// It answers node-cache-capable calls (NodeNames) by name and the others (Nodes) with the nodes it
// was sent. A fault mode makes every verb fail one way (a 500, a slow answer, JSON that cannot be
// read, a node it was not asked about, a score out of range). Bind calls `bind`, which binds as
// the test wants (a Binding to a real API server, a note in a list).
//
//   TestExtender ext;
//   ASSERT_TRUE(ext.Start());
//   cfg.extenders.push_back({{"urlPrefix", ext.url()}, {"filterVerb", "filter"}, ...});
//   EXPECT_EQ(ext.calls("filter"), 1);
//
// Thread safety: the handlers run on the server's threads; the methods may be called from any.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace ksched::testing {

// A scenario's configuration names the test extender by this urlPrefix; whoever runs the
// scenario starts one and puts its URL there (WithTestExtender).
inline constexpr char kTestExtenderPlaceholder[] = "test-extender";

// Whether `config` (a KubeSchedulerConfiguration) names the test extender.
bool NamesTestExtender(const nlohmann::json& config);
// `config` with each urlPrefix kTestExtenderPlaceholder replaced by `url`.
nlohmann::json WithTestExtender(nlohmann::json config, const std::string& url);

class TestExtender {
 public:
  enum class Fault {
    kNone,
    kError500,        // Every verb answers 500.
    kSlow,            // Every verb answers after `slow` (past a short httpTimeout).
    kMalformed,       // Every verb answers "{not json".
    kUnknownNode,     // filter also passes a node "ghost"; prioritize scores it.
    kScoreOutOfRange  // prioritize scores every node 1000.
  };
  // The pod and node of a bind verb's call.
  using BindFn = std::function<absl::Status(const std::string& ns, const std::string& name,
                                            const std::string& uid, const std::string& node)>;

  // Served over HTTP, or over HTTPS by an httplib::SSLServer given (with its certificate, and the
  // CA that client certificates must chain to, if any).
  explicit TestExtender(std::unique_ptr<httplib::Server> server = nullptr);
  TestExtender(const TestExtender&) = delete;
  TestExtender& operator=(const TestExtender&) = delete;
  ~TestExtender();
  // Binds `port` on 127.0.0.1 (0: a free one) and serves; false if it could not.
  bool Start(int port = 0);
  // http://127.0.0.1:PORT/ext (https:// over TLS).
  std::string url() const;

  void set_fault(Fault f) { fault_ = f; }
  void set_slow(absl::Duration d) { slow_ms_ = absl::ToInt64Milliseconds(d); }
  void set_bind(BindFn fn) {
    absl::MutexLock lock(&mu_);
    bind_ = std::move(fn);
  }
  // How many calls a verb had.
  int calls(const std::string& verb) const {
    absl::MutexLock lock(&mu_);
    auto it = calls_.find(verb);
    return it == calls_.end() ? 0 : it->second;
  }
  // How long the handlers took, all calls together.
  double busy_seconds() const { return static_cast<double>(busy_ns_.load()) / 1e9; }
  // The body of the verb's last call.
  std::string last_body(const std::string& verb) const {
    absl::MutexLock lock(&mu_);
    auto it = last_body_.find(verb);
    return it == last_body_.end() ? "" : it->second;
  }

 private:
  void Serve(const std::string& verb, const httplib::Request& req, httplib::Response& res);

  std::unique_ptr<httplib::Server> server_;
  bool tls_ = false;
  int port_ = 0;
  std::thread thread_;
  std::atomic<Fault> fault_{Fault::kNone};
  std::atomic<int64_t> slow_ms_{3000};
  std::atomic<int64_t> busy_ns_{0};
  mutable absl::Mutex mu_;
  std::map<std::string, int> calls_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> last_body_ ABSL_GUARDED_BY(mu_);
  BindFn bind_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::testing
