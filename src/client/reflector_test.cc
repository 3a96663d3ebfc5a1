// The reflector and ApiSource against a scripted fake API server (cpp-httplib on loopback): the
// list/watch protocol cases that a real API server cannot be made to produce on demand.
#include "src/client/reflector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <deque>
#include <map>
#include <set>
#include <thread>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/client/api_source.h"
#include "src/plugins/registry.h"
#include "src/scheduler/scheduler.h"
#include "src/sim/cluster.h"

namespace ksched::client {
namespace {

std::string PodJson(const std::string& name, const std::string& rv, const std::string& cpu = "1") {
  return fmt::format(
      R"({{"metadata":{{"name":"{}","namespace":"default","uid":"uid-{}","resourceVersion":"{}"}},)"
      R"("spec":{{"schedulerName":"default-scheduler","containers":[{{"name":"c","resources":)"
      R"({{"requests":{{"cpu":"{}"}}}}}}]}},"status":{{"phase":"Pending"}}}})",
      name, name, rv, cpu);
}

std::string List(const std::string& rv, const std::vector<std::string>& items) {
  std::string joined;
  for (const std::string& i : items) joined += (joined.empty() ? "" : ",") + i;
  return fmt::format(R"({{"kind":"PodList","metadata":{{"resourceVersion":"{}"}},"items":[{}]}})",
                     rv, joined);
}

std::string Event(const std::string& type, const std::string& object) {
  return fmt::format(R"({{"type":"{}","object":{}}})", type, object) + "\n";
}

// Serves scripted answers to lists and watches of /api/v1/pods, in order; once a script runs
// out, lists are empty and watches stay open without events until the server stops. The other
// collections (nodes, namespaces, Services, ...) are what set_items says (none by default).
class FakeApiServer {
 public:
  FakeApiServer() {
    server_.Get("/api/v1/pods", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      if (req.has_param("watch")) {
        watch_versions_.push_back(req.get_param_value("resourceVersion"));
        watch_times_.push_back(absl::Now());
        if (!watches_.empty() && watches_.front() == kFailedWatch) {
          watches_.pop_front();
          res.status = 500;
          return;
        }
        if (watches_.empty() || watches_.front() == kSilentWatch) {
          if (!watches_.empty()) watches_.pop_front();
          res.set_chunked_content_provider("application/json", [this](size_t, httplib::DataSink&) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return !stopping_;
          });
          return;
        }
        res.set_content(watches_.front(), "application/json");
        watches_.pop_front();
        return;
      }
      list_versions_.push_back(
          req.has_param("resourceVersion") ? req.get_param_value("resourceVersion") : "(none)");
      res.set_content(lists_.empty() ? List("1", {}) : lists_.front(), "application/json");
      if (!lists_.empty()) lists_.pop_front();
    });
    // The other collections: listed as set_items left them (empty, or 403 once forbidden), and
    // a watch that stays open.
    for (std::string path :
         {kNodes, kNamespaces, kPriorityClasses, kServices, kReplicationControllers, kReplicaSets,
          kStatefulSets, kPodDisruptionBudgets, kPersistentVolumes, kPersistentVolumeClaims,
          kStorageClasses, kCSINodes, kCSIDrivers, kCSIStorageCapacities, kVolumeAttachments,
          kDeviceClasses, kResourceSlices, kResourceClaims}) {
      server_.Get(path, [this, path](const httplib::Request& req, httplib::Response& res) {
        if (!req.has_param("watch")) {
          std::lock_guard<std::mutex> lock(mu_);
          if (unserved_.contains(path)) {
            res.status = 404;
            res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
                            R"("message":"the server could not find the requested resource",)"
                            R"("reason":"NotFound","code":404})",
                            "application/json");
            return;
          }
          if (forbidden_.contains(path)) {
            res.status = 403;
            res.set_content(
                fmt::format(R"({{"kind":"Status","apiVersion":"v1","status":"Failure",)"
                            R"("reason":"Forbidden","message":"{} is forbidden","code":403}})",
                            path.substr(path.rfind('/') + 1)),
                "application/json");
            return;
          }
          res.set_content(
              fmt::format(R"({{"metadata":{{"resourceVersion":"1"}},"items":[{}]}})", items_[path]),
              "application/json");
          return;
        }
        res.set_chunked_content_provider("application/json", [this](size_t, httplib::DataSink&) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          return !stopping_;
        });
      });
    }
    // Every collection's watch holds a thread for as long as it is open: enough threads for all
    // of them, and for the lists beside.
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeApiServer() {
    stopping_ = true;
    server_.stop();
    thread_.join();
  }

  void AddList(std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    lists_.push_back(std::move(body));
  }
  void AddWatch(std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    watches_.push_back(std::move(body));
  }
  // A watch script that keeps the watch open and sends nothing.
  static constexpr char kSilentWatch[] = "(silent)";
  // A watch script answered 500 at once.
  static constexpr char kFailedWatch[] = "(500)";
  static constexpr char kNodes[] = "/api/v1/nodes";
  static constexpr char kNamespaces[] = "/api/v1/namespaces";
  static constexpr char kPriorityClasses[] = "/apis/scheduling.k8s.io/v1/priorityclasses";
  static constexpr char kServices[] = "/api/v1/services";
  static constexpr char kReplicationControllers[] = "/api/v1/replicationcontrollers";
  static constexpr char kReplicaSets[] = "/apis/apps/v1/replicasets";
  static constexpr char kStatefulSets[] = "/apis/apps/v1/statefulsets";
  static constexpr char kPodDisruptionBudgets[] = "/apis/policy/v1/poddisruptionbudgets";
  static constexpr char kPersistentVolumes[] = "/api/v1/persistentvolumes";
  static constexpr char kPersistentVolumeClaims[] = "/api/v1/persistentvolumeclaims";
  static constexpr char kStorageClasses[] = "/apis/storage.k8s.io/v1/storageclasses";
  static constexpr char kCSINodes[] = "/apis/storage.k8s.io/v1/csinodes";
  static constexpr char kCSIDrivers[] = "/apis/storage.k8s.io/v1/csidrivers";
  static constexpr char kCSIStorageCapacities[] = "/apis/storage.k8s.io/v1/csistoragecapacities";
  static constexpr char kVolumeAttachments[] = "/apis/storage.k8s.io/v1/volumeattachments";
  static constexpr char kDeviceClasses[] = "/apis/resource.k8s.io/v1/deviceclasses";
  static constexpr char kResourceSlices[] = "/apis/resource.k8s.io/v1/resourceslices";
  static constexpr char kResourceClaims[] = "/apis/resource.k8s.io/v1/resourceclaims";
  // The items of a collection's list, as JSON objects joined by ",".
  void set_items(const std::string& path, std::string items) {
    std::lock_guard<std::mutex> lock(mu_);
    items_[path] = std::move(items);
  }
  // While `forbidden`, lists of the collection are answered 403, as RBAC answers them.
  void set_forbidden(const std::string& path, bool forbidden) { Mark(forbidden_, path, forbidden); }
  // While not `served`, lists of the collection are answered 404, as by an API server that does
  // not enable its group.
  void set_served(const std::string& path, bool served) { Mark(unserved_, path, !served); }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }
  std::vector<std::string> watch_versions() {
    std::lock_guard<std::mutex> lock(mu_);
    return watch_versions_;
  }
  // When each pod watch was asked for.
  std::vector<absl::Time> watch_times() {
    std::lock_guard<std::mutex> lock(mu_);
    return watch_times_;
  }
  // The resourceVersion each pod list asked for; "(none)" for a consistent read.
  std::vector<std::string> list_versions() {
    std::lock_guard<std::mutex> lock(mu_);
    return list_versions_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::deque<std::string> lists_, watches_;
  std::map<std::string, std::string> items_;
  std::set<std::string> forbidden_, unserved_;
  // Puts `path` in `paths` or takes it out.
  void Mark(std::set<std::string>& paths, const std::string& path, bool in) {
    std::lock_guard<std::mutex> lock(mu_);
    if (in) {
      paths.insert(path);
    } else {
      paths.erase(path);
    }
  }
  std::vector<std::string> watch_versions_, list_versions_;
  std::vector<absl::Time> watch_times_;
  std::atomic<bool> stopping_{false};
};

// What the handlers saw, as "add a", "update a", "delete b".
struct Recorder {
  std::mutex mu;
  std::vector<std::string> seen;
  void Note(std::string s) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(std::move(s));
  }
  std::vector<std::string> Seen() {
    std::lock_guard<std::mutex> lock(mu);
    return seen;
  }
  ReflectorHandlers<api::Pod> Handlers() {
    return {.on_add = [this](auto p) { Note("add " + p->metadata.name); },
            .on_update = [this](auto, auto p) { Note("update " + p->metadata.name); },
            .on_delete = [this](auto p) { Note("delete " + p->metadata.name); },
            .on_decode_error =
                [this](const api::Pod& p, const absl::Status& st) {
                  Note(fmt::format("bad {}: {}", p.metadata.name, AsStd(st.message())));
                }};
  }
};

bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

// A pod reflector on the fake server, started, and what its handlers saw; the watch's events
// handled on the HTTP client's I/O thread when `on_io_thread`. With `store`, the reflector keeps
// its copy there.
struct PodReflector {
  PodReflector(const FakeApiServer& server, bool on_io_thread,
               ObjectStore<api::Pod>* store = nullptr)
      : http(HttpClient::Create({.server = server.url()}).value()),
        reflector(*http, {.path = "/api/v1/pods", .handle_on_io_thread = on_io_thread},
                  rec.Handlers(), store) {
    reflector.Start();
  }
  std::unique_ptr<HttpClient> http;
  Recorder rec;
  Reflector<api::Pod> reflector;
};

// Each runs with the watch's events handled on the reflector's thread, and on the HTTP client's
// I/O thread (ReflectorOptions::handle_on_io_thread).
class ReflectorTest : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Threads, ReflectorTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "OnTheIoThread" : "OnTheReflectorsThread";
                         });

// Where the events are handled: the list on the reflector's thread; the watch's on the I/O thread
// when asked, and never two at once.
TEST(ReflectorThreadTest, WatchEventsAreHandledOnTheClientsIoThreadWhenAsked) {
  for (bool on_io_thread : {false, true}) {
    SCOPED_TRACE(on_io_thread);
    // A server of its own each time: the last reflector's watch again, sent as it stopped, may
    // reach a shared server late and take the next script.
    FakeApiServer server;
    server.AddList(List("5", {PodJson("a", "1")}));
    server.AddWatch(Event("ADDED", PodJson("b", "6")) + Event("MODIFIED", PodJson("a", "7")));
    auto http = HttpClient::Create({.server = server.url()}, {.thread_name = "test-http"});
    ASSERT_TRUE(http.ok()) << http.status();
    std::mutex mu;
    std::vector<std::string> seen;
    auto note = [&](const std::string& what) {
      char name[16] = {};
      pthread_getname_np(pthread_self(), name, sizeof name);
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(what + " on " + name);
    };
    Reflector<api::Pod> reflector(
        **http, {.path = "/api/v1/pods", .handle_on_io_thread = on_io_thread},
        {.on_add = [&](auto p) { note("add " + p->metadata.name); },
         .on_update = [&](auto, auto p) { note("update " + p->metadata.name); }});
    reflector.Start();
    ASSERT_TRUE(WaitFor([&] {
      std::lock_guard<std::mutex> lock(mu);
      return seen.size() >= 3;
    }));
    reflector.Stop();
    const std::string watcher = on_io_thread ? "test-http" : "watch-pods";
    EXPECT_EQ(seen, (std::vector<std::string>{"add a on watch-pods", "add b on " + watcher,
                                              "update a on " + watcher}));
  }
}

TEST_P(ReflectorTest, WatchesFromTheListAndRelistsOnGoneWithOnlyTheDifferences) {
  FakeApiServer server;
  server.AddList(List("10", {PodJson("a", "1"), PodJson("b", "2")}));
  server.AddWatch(Event("MODIFIED", PodJson("a", "11")) + Event("ADDED", PodJson("c", "12")) +
                  Event("ERROR", R"({"kind":"Status","code":410,"reason":"Expired"})"));
  // After the relist: b is gone, d is new, a and c are unchanged and must not be handed on again.
  server.AddList(List("20", {PodJson("a", "11"), PodJson("c", "12"), PodJson("d", "13")}));
  ObjectStore<api::Pod> store;  // As the scheduler's listers are given to reflectors.
  PodReflector pods(server, GetParam(), &store);
  Recorder& rec = pods.rec;
  Reflector<api::Pod>& reflector = pods.reflector;
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(5)));
  std::vector<std::string> want = {"add a", "add b", "update a", "add c", "add d", "delete b"};
  ASSERT_TRUE(WaitFor([&] { return rec.Seen().size() >= want.size() && reflector.lists() == 2; }));
  ASSERT_TRUE(WaitFor([&] { return server.watch_versions().size() == 2; }));
  reflector.Stop();
  EXPECT_EQ(rec.Seen(), want);
  EXPECT_EQ(server.watch_versions(), (std::vector<std::string>{"10", "20"}));
  // The copy is the store given, as the server has it now.
  std::vector<std::string> copy;
  for (const auto& p : store.ListAll()) {
    copy.push_back(p->metadata.name + "@" + p->metadata.resource_version);
  }
  EXPECT_EQ(copy, (std::vector<std::string>{"a@11", "c@12", "d@13"}));
}

TEST_P(ReflectorTest, AWatchThatEndsIsResumedFromTheLastVersionSeen) {
  FakeApiServer server;
  server.AddList(List("5", {}));
  server.AddWatch(Event("ADDED", PodJson("a", "6")) +
                  Event("BOOKMARK", R"({"metadata":{"resourceVersion":"9"}})"));
  PodReflector pods(server, GetParam());
  Recorder& rec = pods.rec;
  Reflector<api::Pod>& reflector = pods.reflector;
  ASSERT_TRUE(WaitFor([&] { return server.watch_versions().size() == 2; }));
  reflector.Stop();
  EXPECT_EQ(server.watch_versions(), (std::vector<std::string>{"5", "9"}));
  EXPECT_EQ(reflector.lists(), 1);
  EXPECT_EQ(rec.Seen(), std::vector<std::string>{"add a"});
}

// A new leader's resync: while its watch says nothing (it lags), a consistent list shows what
// the old leader did, and Resync returns only once that is handed on.
TEST_P(ReflectorTest, AResyncListsFromEtcdWhileTheWatchLagsAndReturnsOnceHandedOn) {
  FakeApiServer server;
  server.AddList(List("5", {PodJson("a", "1")}));
  server.AddWatch(FakeApiServer::kSilentWatch);
  server.AddList(List("9", {PodJson("a", "7"), PodJson("b", "8")}));
  PodReflector pods(server, GetParam());
  ASSERT_TRUE(pods.reflector.WaitForSync(absl::Seconds(5)));
  ASSERT_TRUE(WaitFor([&] { return server.watch_versions().size() == 1; }));
  EXPECT_EQ(pods.rec.Seen(), std::vector<std::string>{"add a"});

  EXPECT_TRUE(pods.reflector.Resync(absl::Seconds(5)));
  EXPECT_EQ(pods.rec.Seen(), (std::vector<std::string>{"add a", "update a", "add b"}));
  EXPECT_EQ(server.list_versions(), (std::vector<std::string>{"0", "(none)"}));
  ASSERT_TRUE(WaitFor([&] { return server.watch_versions().size() == 2; }));
  EXPECT_EQ(server.watch_versions(), (std::vector<std::string>{"5", "9"}));
  pods.reflector.Stop();
  EXPECT_FALSE(pods.reflector.Resync(absl::Seconds(1))) << "a stopped reflector lists nothing";
}

TEST_P(ReflectorTest, AnUndecodableObjectIsReportedAndSkipped) {
  FakeApiServer server;
  server.AddList(List("5", {PodJson("good", "1"), PodJson("bad", "2", "1.5.3")}));
  PodReflector pods(server, GetParam());
  Recorder& rec = pods.rec;
  Reflector<api::Pod>& reflector = pods.reflector;
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(5)));
  reflector.Stop();
  EXPECT_EQ(rec.Seen(),
            (std::vector<std::string>{
                "add good",
                "bad bad: spec.containers[0].resources.requests.cpu: invalid quantity \"1.5.3\""}));
}

TEST_P(ReflectorTest, ACutListIsListedAgainAndNothingIsAppliedTwice) {
  FakeApiServer server;
  std::string good = List("5", {PodJson("a", "1"), PodJson("b", "2")});
  server.AddList(good.substr(0, good.find("\"b\"")));  // Cut inside the second pod.
  server.AddList(good);
  PodReflector pods(server, GetParam());
  Recorder& rec = pods.rec;
  Reflector<api::Pod>& reflector = pods.reflector;
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(5)));
  ASSERT_TRUE(WaitFor([&] { return !server.watch_versions().empty(); }));
  reflector.Stop();
  EXPECT_EQ(reflector.lists(), 1);  // The cut one did not count.
  EXPECT_EQ(rec.Seen(), (std::vector<std::string>{"add a", "add b"}));
  EXPECT_EQ(server.watch_versions(), std::vector<std::string>{"5"});
}

// What the reflector logged while `fn` ran.
std::string StderrOf(const std::function<void()>& fn) {
  ::testing::internal::CaptureStderr();
  fn();
  return ::testing::internal::GetCapturedStderr();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A line of a watch that is not JSON ends that watch with one warning; the next watch starts
// from the last event decoded, so the events after the bad line still arrive, once each.
TEST_P(ReflectorTest, AMalformedWatchEventIsLoggedAndTheWatchResumesAfterTheLastGoodOne) {
  FakeApiServer server;
  server.AddList(List("5", {PodJson("a", "1")}));
  server.AddWatch(Event("ADDED", PodJson("b", "6")) + R"({"type":"ADDED","object":{"metad)" + "\n" +
                  Event("ADDED", PodJson("c", "8")));
  server.AddWatch(Event("ADDED", PodJson("c", "8")));
  std::vector<std::string> seen;
  const std::string log = StderrOf([&] {
    PodReflector pods(server, GetParam());
    ASSERT_TRUE(WaitFor([&] { return pods.rec.Seen().size() >= 3; }));
    pods.reflector.Stop();
    seen = pods.rec.Seen();
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"add a", "add b", "add c"}));
  const std::vector<std::string> versions = server.watch_versions();
  ASSERT_GE(versions.size(), 2u);
  EXPECT_EQ(versions[0], "5");
  EXPECT_EQ(versions[1], "6");  // After b, the last event decoded.
  EXPECT_EQ(Count(log, "Unable to decode an event from the watch stream"), 1) << log;
}

// A watch that stays open and sends nothing, not even bookmarks, is given up after the idle
// timeout and opened again from the last version seen; the events of the new one arrive.
TEST_P(ReflectorTest, AWatchThatSendsNothingIsOpenedAgainFromTheLastVersionSeen) {
  FakeApiServer server;
  server.AddList(List("5", {PodJson("a", "1")}));
  server.AddWatch(FakeApiServer::kSilentWatch);
  server.AddWatch(Event("ADDED", PodJson("b", "6")));
  server.AddWatch(FakeApiServer::kSilentWatch);
  std::vector<std::string> seen;
  const std::string log = StderrOf([&] {
    auto http = HttpClient::Create({.server = server.url()});
    ASSERT_TRUE(http.ok()) << http.status();
    Recorder rec;
    Reflector<api::Pod> reflector(**http,
                                  {.path = "/api/v1/pods",
                                   .watch_idle_timeout = absl::Seconds(1),
                                   .handle_on_io_thread = GetParam()},
                                  rec.Handlers());
    reflector.Start();
    ASSERT_TRUE(WaitFor([&] { return rec.Seen().size() >= 2; }));
    reflector.Stop();
    seen = rec.Seen();
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"add a", "add b"}));
  const std::vector<std::string> versions = server.watch_versions();
  ASSERT_GE(versions.size(), 2u);
  EXPECT_EQ(versions[0], "5");
  EXPECT_EQ(versions[1], "5");
  EXPECT_EQ(Count(log, "The watch sent nothing for too long"), 1) << log;
}

// The wait after a failed watch doubles, and starts again from the first once the reset interval
// has passed since the doubling began (client-go's reflector: 800 ms, 30 s, 2 min). Before, the
// waits kept doubling over failures minutes apart, and a network cut that came after a few earlier
// faults left the pod watch down for 57 s of a 30 s cap with its jitter.
TEST_P(ReflectorTest, TheWaitAfterAFailedWatchStartsAgainFromTheFirstOnceTheResetIntervalPassed) {
  FakeApiServer server;
  server.AddList(List("5", {PodJson("a", "1")}));
  // Seven failures: waits of 10, 20, ... 640 ms (each up to twice that), under 2.6 s in all.
  for (int i = 0; i < 7; ++i) server.AddWatch(FakeApiServer::kFailedWatch);
  // Then a watch that hangs: it fails after the idle timeout, more than 3 s after the first.
  server.AddWatch(FakeApiServer::kSilentWatch);
  const absl::Duration idle = absl::Seconds(2);
  StderrOf([&] {
    auto http = HttpClient::Create({.server = server.url()});
    ASSERT_TRUE(http.ok()) << http.status();
    Recorder rec;
    Reflector<api::Pod> reflector(**http,
                                  {.path = "/api/v1/pods",
                                   .watch_idle_timeout = idle,
                                   .handle_on_io_thread = GetParam(),
                                   .backoff = {.initial = absl::Milliseconds(10),
                                               .max = absl::Seconds(10),
                                               .reset = absl::Seconds(3)}},
                                  rec.Handlers());
    reflector.Start();
    for (int i = 0; i < 1000 && server.watch_times().size() < 9; ++i)
      absl::SleepFor(absl::Milliseconds(10));
    reflector.Stop();
  });
  const std::vector<absl::Time> at = server.watch_times();
  ASSERT_GE(at.size(), 9u);
  // The hanging watch (the 8th) ended after `idle`; the next came after the first wait again
  // (10 to 20 ms), not the eighth (1.28 to 2.56 s).
  EXPECT_GE(at[8] - at[7], idle);
  EXPECT_LT(at[8] - at[7], idle + absl::Milliseconds(800)) << "the wait kept doubling";
}

// A scheduler fed by an ApiSource from the fake server, writing into an embedded cluster.
class ApiSourceTest : public ::testing::Test {
 protected:
  void Start(config::Configuration cfg = config::DefaultConfiguration()) {
    StartUnsynced(std::move(cfg));
    ASSERT_TRUE(source_->WaitForSync(absl::Seconds(5)));
  }
  void StartUnsynced(config::Configuration cfg = config::DefaultConfiguration()) {
    auto http = HttpClient::Create({.server = server.url()});
    ASSERT_TRUE(http.ok()) << http.status();
    http_ = std::move(*http);
    auto s = scheduler::Scheduler::Create({.config = std::move(cfg), .writer = &writer}, registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    scheduler_ = std::move(*s);
    source_ = std::make_unique<ApiSource>(*http_, *scheduler_, writer);
    source_->Start();
  }
  void TearDown() override {
    if (source_) source_->Stop();
  }

  FakeApiServer server;
  sim::Cluster writer{{}};
  Registry registry_ = plugins::NewInTreeRegistry();
  std::unique_ptr<HttpClient> http_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<ApiSource> source_;
};

TEST_F(ApiSourceTest, AnUndecodablePendingPodGetsAnEventAndTheOthersAreScheduled) {
  server.AddList(List("5", {PodJson("good", "1"), PodJson("bad", "2", "1.5.3")}));
  Start();
  ASSERT_TRUE(WaitFor([&] { return scheduler_->queue().Contains("uid-good"); }));
  ASSERT_TRUE(WaitFor([&] { return !writer.Events().empty(); }));
  std::vector<sim::RecordedEvent> events = writer.Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].pod, "bad");
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].reason, "FailedScheduling");
  EXPECT_EQ(events[0].message,
            "failed to decode pod: spec.containers[0].resources.requests.cpu: invalid quantity "
            "\"1.5.3\"");
}

// A PreEnqueue plugin that blocks, as none may: the pod watch's handler runs it on the HTTP
// client's I/O thread, where it holds up every request and watch of the client.
class BlocksAtPreEnqueue : public PreEnqueuePlugin {
 public:
  std::string_view Name() const override { return "BlocksAtPreEnqueue"; }
  Status PreEnqueue(const api::Pod&) override {
    absl::SleepFor(absl::Milliseconds(1500));
    return Status();
  }
};

// The client catches it: the I/O thread held past a second is counted and logged as an error.
TEST_F(ApiSourceTest, APreEnqueuePluginThatBlocksIsCaughtHoldingTheIoThread) {
  ASSERT_TRUE(
      registry_
          .Register("BlocksAtPreEnqueue",
                    [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                      return std::make_unique<BlocksAtPreEnqueue>();
                    })
          .ok());
  config::Configuration cfg = config::DefaultConfiguration();
  cfg.profiles[0].plugins.pre_enqueue.enabled.push_back({"BlocksAtPreEnqueue", 0});
  server.AddList(List("5", {PodJson("listed", "1")}));  // Handled on the reflector's thread.
  server.AddWatch(Event("ADDED", PodJson("watched", "6")));
  Start(std::move(cfg));
  ASSERT_TRUE(WaitFor([&] { return scheduler_->queue().Contains("uid-listed"); }));
  EXPECT_EQ(http_->io_thread_held(), 0);
  ASSERT_TRUE(WaitFor([&] { return scheduler_->queue().Contains("uid-watched"); }));
  EXPECT_TRUE(WaitFor([&] { return http_->io_thread_held() == 1; }));
}

TEST_F(ApiSourceTest, NamespacesReachPluginsThroughTheHandle) {
  server.set_items(
      FakeApiServer::kNamespaces,
      R"({"metadata":{"name":"team-a","labels":{"tier":"gold"}}},{"metadata":{"name":"b"}})");
  Start();
  const framework::Framework* fw = scheduler_->FrameworkFor("default-scheduler");
  std::shared_ptr<const api::Namespace> ns = fw->GetNamespace("team-a");
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->metadata.labels.at("tier"), "gold");
  EXPECT_NE(fw->GetNamespace("b"), nullptr);
  EXPECT_EQ(fw->GetNamespace("absent"), nullptr);
}

TEST_F(ApiSourceTest, PriorityClassesReachPluginsThroughTheHandle) {
  server.set_items(FakeApiServer::kPriorityClasses,
                   R"({"metadata":{"name":"batch","labels":{"team":"ml"}},"value":1000,)"
                   R"("preemptionPolicy":"Never"})");
  Start();
  const framework::Framework* fw = scheduler_->FrameworkFor("default-scheduler");
  std::shared_ptr<const api::PriorityClass> pc = fw->GetPriorityClass("batch");
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(pc->value, 1000);
  EXPECT_EQ(pc->preemption_policy, "Never");
  EXPECT_EQ(pc->metadata.labels.at("team"), "ml");
  EXPECT_EQ(fw->GetPriorityClass("absent"), nullptr);
}

// system:kube-scheduler may not list PriorityClasses: ksched syncs and schedules without them,
// and sees them once RBAC allows.
TEST_F(ApiSourceTest, ForbiddenPriorityClassesDoNotHoldTheSchedulerBack) {
  server.set_forbidden(FakeApiServer::kPriorityClasses, true);
  server.set_items(FakeApiServer::kPriorityClasses, R"({"metadata":{"name":"batch"},"value":7})");
  server.AddList(List("5", {PodJson("p", "1")}));
  Start();  // Asserts the sync.
  ASSERT_TRUE(WaitFor([&] { return scheduler_->queue().Contains("uid-p"); }));
  const framework::Framework* fw = scheduler_->FrameworkFor("default-scheduler");
  EXPECT_EQ(fw->GetPriorityClass("batch"), nullptr);
  server.set_forbidden(FakeApiServer::kPriorityClasses, false);
  // Listed again after a backoff of 0.8 to 1.6 s.
  ASSERT_TRUE(WaitFor([&] { return fw->GetPriorityClass("batch") != nullptr; }));
  EXPECT_EQ(fw->GetPriorityClass("batch")->value, 7);
}

TEST_F(ApiSourceTest, WorkloadsAndDisruptionBudgetsReachPluginsThroughTheHandle) {
  server.set_items(FakeApiServer::kServices,
                   R"({"metadata":{"name":"web","namespace":"prod"},)"
                   R"("spec":{"selector":{"app":"web"},"ports":[{"port":80}]}},)"
                   R"({"metadata":{"name":"kubernetes","namespace":"default"},"spec":{}})");
  server.set_items(
      FakeApiServer::kReplicationControllers,
      R"({"metadata":{"name":"rc","namespace":"prod"},"spec":{"selector":{"a":"b"}}})");
  server.set_items(FakeApiServer::kReplicaSets,
                   R"({"metadata":{"name":"web-5d8f","namespace":"prod"},)"
                   R"("spec":{"selector":{"matchLabels":{"app":"web"}}}})");
  server.set_items(FakeApiServer::kStatefulSets,
                   R"({"metadata":{"name":"db","namespace":"prod"},)"
                   R"("spec":{"selector":{"matchLabels":{"app":"db"}}}})");
  server.set_items(FakeApiServer::kPodDisruptionBudgets,
                   R"({"metadata":{"name":"web","namespace":"prod"},)"
                   R"("spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}}},)"
                   R"("status":{"disruptionsAllowed":2,"expectedPods":4}})");
  Start();
  const framework::Framework* fw = scheduler_->FrameworkFor("default-scheduler");
  std::vector<std::shared_ptr<const api::Service>> services = fw->ListServices("prod");
  ASSERT_EQ(services.size(), 1u);
  EXPECT_EQ(services[0]->selector.at("app"), "web");
  EXPECT_EQ(fw->ListServices("default").size(), 1u);
  ASSERT_NE(fw->GetReplicationController("prod", "rc"), nullptr);
  EXPECT_EQ(fw->GetReplicationController("prod", "rc")->selector.at("a"), "b");
  ASSERT_NE(fw->GetReplicaSet("prod", "web-5d8f"), nullptr);
  EXPECT_EQ(fw->GetReplicaSet("prod", "web-5d8f")->selector->match_labels.at("app"), "web");
  EXPECT_EQ(fw->GetReplicaSet("default", "web-5d8f"), nullptr);
  ASSERT_NE(fw->GetStatefulSet("prod", "db"), nullptr);
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs =
      fw->ListPodDisruptionBudgets();
  ASSERT_EQ(pdbs.size(), 1u);
  EXPECT_EQ(pdbs[0]->min_available->str_value, "50%");
  EXPECT_EQ(pdbs[0]->disruptions_allowed, 2);
}

TEST_F(ApiSourceTest, StorageObjectsReachPluginsThroughTheHandle) {
  server.set_items(FakeApiServer::kPersistentVolumes,
                   R"({"metadata":{"name":"pv-1","resourceVersion":"7"},)"
                   R"("spec":{"storageClassName":"local","capacity":{"storage":"10Gi"}},)"
                   R"("status":{"phase":"Available"}})");
  server.set_items(FakeApiServer::kPersistentVolumeClaims,
                   R"({"metadata":{"name":"data","namespace":"prod"},)"
                   R"("spec":{"storageClassName":"local"},"status":{"phase":"Pending"}})");
  server.set_items(FakeApiServer::kStorageClasses,
                   R"({"metadata":{"name":"local"},"provisioner":"kubernetes.io/no-provisioner",)"
                   R"("volumeBindingMode":"WaitForFirstConsumer"})");
  server.set_items(FakeApiServer::kCSINodes,
                   R"({"metadata":{"name":"n1"},"spec":{"drivers":[{"name":"d","nodeID":"n1",)"
                   R"("allocatable":{"count":3}}]}})");
  server.set_items(FakeApiServer::kCSIDrivers,
                   R"({"metadata":{"name":"d"},"spec":{"storageCapacity":true}})");
  server.set_items(FakeApiServer::kCSIStorageCapacities,
                   R"({"metadata":{"name":"c","namespace":"kube-system"},)"
                   R"("storageClassName":"local","capacity":"1Gi"})");
  server.set_items(FakeApiServer::kVolumeAttachments,
                   R"({"metadata":{"name":"va"},"spec":{"attacher":"d","nodeName":"n1",)"
                   R"("source":{"persistentVolumeName":"pv-1"}}})");
  Start();
  const StorageLister& storage = scheduler_->FrameworkFor("default-scheduler")->storage();
  ASSERT_NE(storage.GetPersistentVolume("pv-1"), nullptr);
  EXPECT_EQ(storage.GetPersistentVolume("pv-1")->metadata.resource_version, "7");
  EXPECT_EQ(storage.ListPersistentVolumes("local").size(), 1u);
  EXPECT_TRUE(storage.ListPersistentVolumes("other").empty());
  ASSERT_NE(storage.GetPersistentVolumeClaim("prod", "data"), nullptr);
  EXPECT_EQ(storage.GetPersistentVolumeClaim("default", "data"), nullptr);
  ASSERT_NE(storage.GetStorageClass("local"), nullptr);
  EXPECT_EQ(storage.GetStorageClass("local")->volume_binding_mode, "WaitForFirstConsumer");
  ASSERT_NE(storage.GetCSINode("n1"), nullptr);
  EXPECT_EQ(storage.GetCSINode("n1")->drivers[0].allocatable_count, 3);
  ASSERT_NE(storage.GetCSIDriver("d"), nullptr);
  EXPECT_EQ(storage.ListCSIStorageCapacities().size(), 1u);
  ASSERT_EQ(storage.ListVolumeAttachments().size(), 1u);
  EXPECT_EQ(storage.ListVolumeAttachments()[0]->persistent_volume_name, "pv-1");
}

// A storage object ksched cannot decode is left out; the others of its list still arrive, and
// the scheduler syncs.
TEST_F(ApiSourceTest, AnUndecodableStorageObjectIsLeftOutAndTheOthersArrive) {
  server.set_items(FakeApiServer::kPersistentVolumes,
                   R"({"metadata":{"name":"bad"},"spec":{"capacity":{"storage":"1.5.3"}}},)"
                   R"({"metadata":{"name":"good"},"spec":{"capacity":{"storage":"1Gi"}}})");
  server.set_items(FakeApiServer::kStorageClasses,
                   R"({"metadata":{"name":"later"},"provisioner":"p","volumeBindingMode":"Later"},)"
                   R"({"metadata":{"name":"now"},"provisioner":"p"})");
  Start();
  const StorageLister& storage = scheduler_->FrameworkFor("default-scheduler")->storage();
  EXPECT_EQ(storage.GetPersistentVolume("bad"), nullptr);
  EXPECT_NE(storage.GetPersistentVolume("good"), nullptr);
  EXPECT_EQ(storage.GetStorageClass("later"), nullptr);
  EXPECT_NE(storage.GetStorageClass("now"), nullptr);
  // Why, for the pods that need them: the field and the problem.
  EXPECT_THAT(storage.Unreadable("persistentVolume", "bad"),
              ::testing::StartsWith("spec.capacity.storage: "));
  EXPECT_THAT(storage.Unreadable("storageClass", "later"),
              ::testing::StartsWith("volumeBindingMode: Unsupported value: \"Later\""));
  EXPECT_EQ(storage.Unreadable("persistentVolume", "good"), "");
}

// The DRA objects kube-scheduler watches reach the scheduler's listers. A cluster that does not
// serve resource.k8s.io/v1 (404), or an identity that may not list them (403), holds nothing
// back; once served and allowed, they arrive. Templates are not watched.
TEST_F(ApiSourceTest, DraObjectsReachTheListersAndAreOptional) {
  server.set_served(FakeApiServer::kDeviceClasses, false);
  server.set_served(FakeApiServer::kResourceSlices, false);
  server.set_forbidden(FakeApiServer::kResourceClaims, true);
  server.set_items(FakeApiServer::kDeviceClasses, R"({"metadata":{"name":"gpu"}})");
  server.set_items(FakeApiServer::kResourceSlices,
                   R"({"metadata":{"name":"n1-gpu"},"spec":{"driver":"gpu.example.com",)"
                   R"("nodeName":"n1","pool":{"name":"n1","generation":1,)"
                   R"("resourceSliceCount":1},"devices":[{"name":"gpu-0"}]}})");
  server.set_items(FakeApiServer::kResourceClaims,
                   R"({"metadata":{"name":"gpu","namespace":"ml"},"spec":{"devices":{)"
                   R"("requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}})");
  Start();  // Asserts the sync.
  Listers& l = scheduler_->listers();
  EXPECT_EQ(l.dra.resource_slices.size(), 0u);
  server.set_served(FakeApiServer::kDeviceClasses, true);
  server.set_served(FakeApiServer::kResourceSlices, true);
  server.set_forbidden(FakeApiServer::kResourceClaims, false);
  // Listed again after a backoff of 0.8 to 1.6 s.
  ASSERT_TRUE(WaitFor([&] {
    return l.dra.resource_slices.size() == 1 && l.dra.device_classes.size() == 1 &&
           l.dra.resource_claims.size() == 1;
  }));
  EXPECT_EQ(l.dra.resource_slices.Get("n1-gpu")->devices[0].name, "gpu-0");
  EXPECT_EQ(l.dra.resource_claims.Get("ml", "gpu")->spec.requests[0].exactly->device_class_name,
            "gpu");
}

// system:kube-scheduler may list PodDisruptionBudgets (and Services, ...), and kube-scheduler waits
// for every informer it started before it schedules: so does ksched's readiness.
TEST_F(ApiSourceTest, DisruptionBudgetsMustSyncBeforeTheSchedulerIsReady) {
  server.set_forbidden(FakeApiServer::kPodDisruptionBudgets, true);
  server.set_items(FakeApiServer::kPodDisruptionBudgets,
                   R"({"metadata":{"name":"web","namespace":"prod"},"spec":{"maxUnavailable":1}})");
  StartUnsynced();
  EXPECT_FALSE(source_->WaitForSync(absl::Milliseconds(300)));
  EXPECT_FALSE(source_->HasSynced());
  server.set_forbidden(FakeApiServer::kPodDisruptionBudgets, false);
  // Listed again after a backoff of 0.8 to 1.6 s.
  ASSERT_TRUE(source_->WaitForSync(absl::Seconds(10)));
  EXPECT_TRUE(source_->HasSynced());
  EXPECT_EQ(scheduler_->FrameworkFor("default-scheduler")->ListPodDisruptionBudgets().size(), 1u);
}

}  // namespace
}  // namespace ksched::client
