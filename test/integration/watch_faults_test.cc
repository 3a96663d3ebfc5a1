// ksched's watches against a real kube-apiserver whose connection breaks at random points while
// thousands of pods change: the reflector (on both transports, its events handled on its own
// thread and on the HTTP client's) and the bench's BindWatcher must end equal to a fresh list of
// etcd, every time.
//
// The faults, through the fault proxy (toxiproxy) between the watches and the API server:
// - limit_data: the connection is closed after a random number of bytes from the server, so a
//   watch ends mid-TLS-record, mid-HTTP/2-frame, mid-line and mid-event;
// - reset_peer: the connection is reset (TCP RST);
// - a cut: the proxy refuses connections for a while;
// - a restart of kube-apiserver while the watches are cut off and pods change: its new watch cache
//   starts after every resourceVersion the watches hold, so a watch it serves is refused with
//   410 Gone and lists again.
// Besides, every watch asks the API server to end it after 3 to 6 s, and it sends a bookmark 2 s
// before it does; the watches go on from the bookmark's resourceVersion.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "bench/bind_watcher.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/client/http.h"
#include "src/client/reflector.h"
#include "src/client/rest_config.h"
#include "src/testing/control_plane.h"
#include "src/testing/toxiproxy.h"

namespace ksched::testing {
namespace {

using client::HttpClient;
using client::HttpRequest;
using client::HttpResponse;
using nlohmann::json;

constexpr char kNamespace[] = "wf";

// Sends every request, up to 32 at once, and waits for the answers; returns those that failed
// other than as an apply-twice may (409 Conflict or AlreadyExists, 404 for a pod gone already).
std::vector<std::string> SendMany(HttpClient& http, std::vector<HttpRequest> requests) {
  absl::Mutex mu;
  int pending = 0;
  std::vector<std::string> failed;
  for (HttpRequest& r : requests) {
    {
      absl::MutexLock lock(&mu);
      mu.Await(absl::Condition(
          +[](int* p) { return *p < 32; }, &pending));
      ++pending;
    }
    // Sent again through a restart of the API server.
    r.retries = 60;
    r.retry_delay = absl::Milliseconds(250);
    r.retry_server_errors = true;
    const std::string what = r.method + " " + r.path;
    http.Send(std::move(r), [&, what](const HttpResponse& a) {
      absl::MutexLock lock(&mu);
      --pending;
      if (!a.ok() && a.status != 409 && a.status != 404) {
        failed.push_back(fmt::format("{}: {} {}", what, a.status, a.transport_error));
      }
    });
  }
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(
      +[](int* p) { return *p == 0; }, &pending));
  return failed;
}

std::string PodPath(int i) { return fmt::format("/api/v1/namespaces/{}/pods/p-{}", kNamespace, i); }

// One round of changes to pods [first, first + n): made, bound, a third relabelled, a quarter
// deleted.
std::vector<std::string> ChangePods(HttpClient& http, int first, int n) {
  std::vector<std::string> failed;
  auto add = [&](std::vector<HttpRequest> batch) {
    std::vector<std::string> f = SendMany(http, std::move(batch));
    failed.insert(failed.end(), f.begin(), f.end());
  };
  std::vector<HttpRequest> made, bound, relabelled, deleted;
  for (int i = first; i < first + n; ++i) {
    made.push_back({.method = "POST",
                    .path = fmt::format("/api/v1/namespaces/{}/pods", kNamespace),
                    .body = json{{"apiVersion", "v1"},
                                 {"kind", "Pod"},
                                 {"metadata", {{"name", fmt::format("p-{}", i)}}},
                                 {"spec", {{"containers", {{{"name", "c"}, {"image", "pause"}}}}}}}
                                .dump()});
    bound.push_back(
        {.method = "POST",
         .path = PodPath(i) + "/binding",
         .body = json{{"apiVersion", "v1"},
                      {"kind", "Binding"},
                      {"metadata", {{"name", fmt::format("p-{}", i)}}},
                      {"target", {{"kind", "Node"}, {"name", fmt::format("node-{}", i % 7)}}}}
                     .dump()});
    if (i % 3 == 0) {
      relabelled.push_back({.method = "PATCH",
                            .path = PodPath(i),
                            .body = R"({"metadata":{"labels":{"relabelled":"yes"}}})",
                            .content_type = "application/merge-patch+json"});
    }
    if (i % 4 == 1) {
      deleted.push_back(
          {.method = "DELETE", .path = PodPath(i), .body = R"({"gracePeriodSeconds":0})"});
    }
  }
  add(std::move(made));
  add(std::move(bound));
  add(std::move(relabelled));
  add(std::move(deleted));
  return failed;
}

// name -> resourceVersion of the namespace's pods, listed from etcd; `bound` gets those bound.
absl::StatusOr<std::map<std::string, std::string>> FreshList(HttpClient& http,
                                                             std::vector<std::string>* bound) {
  HttpResponse r = http.Call(
      {.path = fmt::format("/api/v1/namespaces/{}/pods", kNamespace), .timeout = absl::Minutes(1)});
  if (!r.ok()) return r.ToStatus();
  json list = json::parse(r.body, nullptr, false);
  if (!list.is_object()) return absl::InternalError("the list is not JSON");
  std::map<std::string, std::string> out;
  for (const json& pod : list["items"]) {
    const std::string name = pod["metadata"]["name"];
    out[name] = pod["metadata"]["resourceVersion"];
    if (!pod["spec"].value("nodeName", "").empty()) bound->push_back(name);
  }
  return out;
}

// What differs between a reflector's copy and the list: "missing p-1", "extra p-2", "p-3 at 7
// (listed 9)"; the first few.
std::string Differences(const ObjectStore<api::Pod>& store,
                        const std::map<std::string, std::string>& listed) {
  std::map<std::string, std::string> copy;
  for (const auto& pod : store.ListAll()) copy[pod->metadata.name] = pod->metadata.resource_version;
  std::vector<std::string> out;
  for (const auto& [name, rv] : listed) {
    auto it = copy.find(name);
    if (it == copy.end()) {
      out.push_back("missing " + name);
    } else if (it->second != rv) {
      out.push_back(fmt::format("{} at {} (listed {})", name, it->second, rv));
    }
  }
  for (const auto& [name, rv] : copy) {
    if (!listed.contains(name)) out.push_back("extra " + name);
  }
  if (out.size() > 10) out.resize(10);
  std::string joined;
  for (const std::string& d : out) joined += (joined.empty() ? "" : ", ") + d;
  return joined;
}

class WatchFaultsTest : public ControlPlaneTest {
 protected:
  // A client of the API server (`server` empty) or of the proxy; `qps` -1 for no rate limit.
  std::unique_ptr<HttpClient> Client(const std::string& server, const char* transport,
                                     float qps = -1) {
    setenv("KSCHED_HTTP_TRANSPORT", transport, 1);
    auto config = client::LoadKubeconfig(cluster().kubeconfig(), "");
    EXPECT_TRUE(config.ok()) << config.status();
    config->qps = qps;
    config->burst = 50;
    if (!server.empty()) config->server = server;
    auto http = HttpClient::Create(*config);
    EXPECT_TRUE(http.ok()) << http.status();
    unsetenv("KSCHED_HTTP_TRANSPORT");
    return std::move(*http);
  }
};

struct Watched {
  std::string name;
  std::unique_ptr<ObjectStore<api::Pod>> store = std::make_unique<ObjectStore<api::Pod>>();
  std::unique_ptr<client::Reflector<api::Pod>> reflector;
};

TEST_F(WatchFaultsTest, WatchesEndEqualToAFreshListWhateverBreaksThem) {
  auto proxy = Toxiproxy::Start(cluster().api_port(), cluster().dir() + "/toxiproxy.log");
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  const std::string through_proxy = fmt::format("https://127.0.0.1:{}", (*proxy)->port());
  // About 40 s of changes, at 200 a second.
  std::unique_ptr<HttpClient> direct = Client("", "h2", 200);
  ASSERT_EQ(direct
                ->Call({.method = "POST",
                        .path = "/api/v1/namespaces",
                        .body = R"({"metadata":{"name":"wf"}})"})
                .status,
            201);

  std::unique_ptr<HttpClient> h2 = Client(through_proxy, "h2");
  std::unique_ptr<HttpClient> curl = Client(through_proxy, "curl");
  std::vector<Watched> watched;
  for (auto [transport, http] : {std::pair{"h2", h2.get()}, std::pair{"curl", curl.get()}}) {
    for (bool on_io_thread : {false, true}) {
      Watched& w = watched.emplace_back();
      w.name = fmt::format("{}, {}", transport, on_io_thread ? "on the I/O thread" : "own thread");
      w.reflector = std::make_unique<client::Reflector<api::Pod>>(
          *http,
          client::ReflectorOptions{
              .path = fmt::format("/api/v1/namespaces/{}/pods", kNamespace),
              .min_watch_timeout = absl::Seconds(3),
              .handle_on_io_thread = on_io_thread,
              .backoff = {.initial = absl::Milliseconds(50), .max = absl::Seconds(1)}},
          client::ReflectorHandlers<api::Pod>{}, w.store.get());
      w.reflector->Start();
    }
  }
  bench::BindWatcher binds(*h2, kNamespace, {.min_watch_timeout = absl::Seconds(3)});
  for (Watched& w : watched) ASSERT_TRUE(w.reflector->WaitForSync(absl::Seconds(30))) << w.name;

  // Faults, one after another, until the changes are done.
  std::atomic<bool> changing{true};
  std::map<std::string, int> faults;
  absl::Mutex breaking;  // Held by the breaker for each fault, and by the restart.
  std::thread breaker([&] {
    std::mt19937 rng(::testing::UnitTest::GetInstance()->random_seed());
    auto pause = [&](int from_ms, int to_ms) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(from_ms, to_ms)(rng)));
    };
    // A toxic of `type` on what the server sends, for a while, counted under its type.
    auto toxic = [&](const std::string& type, const std::string& attribute, int value) {
      (*proxy)->Call("POST", "/proxies/apiserver/toxics",
                     {{"name", type},
                      {"type", type},
                      {"stream", "downstream"},
                      {"attributes", {{attribute, value}}}});
      pause(200, 1200);
      (*proxy)->Call("DELETE", "/proxies/apiserver/toxics/" + type, nullptr);
      ++faults[type];
    };
    while (changing) {
      breaking.Lock();
      switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
        case 0:
        case 1:  // The connection closed after a random number of bytes.
          toxic("limit_data", "bytes", std::uniform_int_distribution<int>(1, 400000)(rng));
          break;
        case 2:
          toxic("reset_peer", "timeout", std::uniform_int_distribution<int>(0, 300)(rng));
          break;
        default:
          (*proxy)->Call("POST", "/proxies/apiserver", {{"enabled", false}});
          pause(100, 1000);
          (*proxy)->Call("POST", "/proxies/apiserver", {{"enabled", true}});
          ++faults["cut"];
      }
      breaking.Unlock();  // Not held over the pause, so that the restart gets its turn.
      pause(300, 2500);
    }
  });

  // 12 rounds of 250 pods: 3000 made and bound, 1000 relabelled, 750 deleted; the API server
  // restarts in the middle, while the watches are cut off and the pods change.
  std::vector<std::string> failed;
  for (int round = 0; round < 12; ++round) {
    std::vector<std::string> f = ChangePods(*direct, round * 250, 250);
    failed.insert(failed.end(), f.begin(), f.end());
    if (round == 6) {
      absl::MutexLock lock(&breaking);
      (*proxy)->Call("POST", "/proxies/apiserver", {{"enabled", false}});
      f = ChangePods(*direct, 100000, 50);
      failed.insert(failed.end(), f.begin(), f.end());
      // Not ASSERT: the breaker thread must still be joined.
      const absl::Status restarted = cluster().RestartApiServer();
      EXPECT_TRUE(restarted.ok()) << restarted;
      (*proxy)->Call("POST", "/proxies/apiserver", {{"enabled", true}});
    }
  }
  changing = false;
  breaker.join();
  // A quiet while: each watch runs to the end the API server gives it (3 to 6 s), after a
  // bookmark.
  std::this_thread::sleep_for(std::chrono::seconds(14));
  EXPECT_TRUE(failed.empty()) << failed.size() << " changes failed, the first: " << failed[0];
  (*proxy)->Call("POST", "/proxies/apiserver", {{"enabled", true}});

  std::vector<std::string> bound;
  absl::StatusOr<std::map<std::string, std::string>> listed = FreshList(*direct, &bound);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_GT(listed->size(), 2000u);
  // That the faults reached the watches: each watch was opened many times; the restart's 410
  // made them list again (unless the new API server served a watch from etcd while its watch
  // cache filled, which it may); the server ended watches after their bookmark.
  int relists = 0, bookmarks = 0;
  for (Watched& w : watched) {
    std::string diff = Differences(*w.store, *listed);
    for (int i = 0; i < 600 && !diff.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      diff = Differences(*w.store, *listed);
    }
    EXPECT_EQ(diff, "") << w.name << ": the copy differs from the list after 60 s";
    EXPECT_GE(w.reflector->watches(), 10) << w.name;
    relists += w.reflector->lists() - 1;
    bookmarks += w.reflector->bookmarks();
    std::printf("%s: %d watches, %d lists, %d bookmarks\n", w.name.c_str(), w.reflector->watches(),
                w.reflector->lists(), w.reflector->bookmarks());
  }
  EXPECT_GE(relists, 1);
  EXPECT_GE(bookmarks, 1);
  // The bench's watcher saw every pod that is bound now (and those deleted since, if in time).
  std::vector<std::string> unseen;
  for (int i = 0; i < 600; ++i) {
    unseen.clear();
    for (const std::string& name : bound) {
      if (!binds.Seen(name)) unseen.push_back(name);
    }
    if (unseen.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(unseen.empty()) << unseen.size() << " bound pods never seen, the first " << unseen[0];
  std::printf("BindWatcher: %d watches, %d lists; faults:", binds.watches(), binds.lists());
  for (const auto& [kind, n] : faults) std::printf(" %s %d", kind.c_str(), n);
  std::printf("\n");
  for (Watched& w : watched) w.reflector->Stop();
}

// Issue 58's lost binds. A watch opened without a resourceVersion starts with the pods there now,
// as ADDED events in the order of their names, each with its own resourceVersion; when the
// API server ends it part way (it ends a watcher it finds slow), the last resourceVersion seen
// is not the highest sent, and a watch opened again from it never brings the pods after it by
// name that were bound before it. The bench's old watcher did exactly that when its first watch
// ended before its first event. Here the pods are bound in the reverse order of their names
// before the watcher starts, and its connections are cut at random bytes: it must still see
// every one (the Reflector lists first, and watches only from a list's or an event's version).
TEST_F(WatchFaultsTest, AWatcherStartedAfterTheBindsSeesThemAllWhereverItsStreamsBreak) {
  constexpr char kLate[] = "late";
  constexpr int kPods = 300;
  auto proxy = Toxiproxy::Start(cluster().api_port(), cluster().dir() + "/toxiproxy-late.log");
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  std::unique_ptr<HttpClient> direct = Client("", "h2");
  ASSERT_EQ(direct
                ->Call({.method = "POST",
                        .path = "/api/v1/namespaces",
                        .body = fmt::format(R"({{"metadata":{{"name":"{}"}}}})", kLate)})
                .status,
            201);
  std::vector<HttpRequest> made;
  std::vector<std::string> names;
  for (int i = 0; i < kPods; ++i) {
    names.push_back(fmt::format("p-{}", i));
    made.push_back({.method = "POST",
                    .path = fmt::format("/api/v1/namespaces/{}/pods", kLate),
                    .body = json{{"apiVersion", "v1"},
                                 {"kind", "Pod"},
                                 {"metadata", {{"name", names.back()}}},
                                 {"spec", {{"containers", {{{"name", "c"}, {"image", "pause"}}}}}}}
                                .dump()});
  }
  std::vector<std::string> failed = SendMany(*direct, std::move(made));
  ASSERT_TRUE(failed.empty()) << failed[0];
  std::sort(names.rbegin(), names.rend());  // Bound one by one, the last name first.
  for (const std::string& name : names) {
    HttpResponse r =
        direct->Call({.method = "POST",
                      .path = fmt::format("/api/v1/namespaces/{}/pods/{}/binding", kLate, name),
                      .body = json{{"apiVersion", "v1"},
                                   {"kind", "Binding"},
                                   {"metadata", {{"name", name}}},
                                   {"target", {{"kind", "Node"}, {"name", "node-0"}}}}
                                  .dump()});
    ASSERT_EQ(r.status, 201) << name << ": " << r.body;
  }

  // For 10 s, every connection through the proxy closes after a random number of bytes, at first
  // fewer than the list of the pods takes, so that the watcher's first list breaks at least.
  HttpResponse list = direct->Call({.path = fmt::format("/api/v1/namespaces/{}/pods", kLate)});
  ASSERT_GT(list.body.size(), 60000u);
  std::unique_ptr<HttpClient> h2 =
      Client(fmt::format("https://127.0.0.1:{}", (*proxy)->port()), "h2");
  std::mt19937 rng(::testing::UnitTest::GetInstance()->random_seed());
  auto cut_after = [&](int from, int to) {
    return json{{"name", "limit_data"},
                {"type", "limit_data"},
                {"stream", "downstream"},
                {"attributes", {{"bytes", std::uniform_int_distribution<int>(from, to)(rng)}}}};
  };
  std::string error;
  (*proxy)->Call("POST", "/proxies/apiserver/toxics", cut_after(4000, 60000), &error);
  ASSERT_EQ(error, "");
  bench::BindWatcher binds(*h2, kLate, {.min_watch_timeout = absl::Seconds(3)});
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    (*proxy)->Call("POST", "/proxies/apiserver/toxics/limit_data", cut_after(4000, 600000));
  }
  (*proxy)->Call("DELETE", "/proxies/apiserver/toxics/limit_data", nullptr);

  const absl::Status all = binds.WaitFor(kPods, absl::Seconds(60));
  EXPECT_TRUE(all.ok()) << all;
  EXPECT_EQ(binds.Count(), static_cast<size_t>(kPods));
}

}  // namespace
}  // namespace ksched::testing
