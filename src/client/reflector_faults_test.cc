// The reflector against a fake API server that replays a seeded history of 3000 changes to 300
// pods and breaks every watch somewhere: its answer stops at a random byte (mid-line, mid-event),
// ends cleanly, carries bookmarks, or refuses an expired resourceVersion with 410 Gone. Whatever
// the seed, the reflector's copy ends equal to the last state of the history, and every
// resourceVersion it watched from was one the server had sent it. (The same faults on a real
// API server, through a fault proxy: test/integration/watch_faults_test.cc.)
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "fmt/format.h"
#include "src/client/reflector.h"
#include "src/testing/loopback_server.h"

namespace ksched::client {
namespace {

std::string PodJson(const std::string& name, int64_t rv, int generation) {
  return fmt::format(
      R"({{"metadata":{{"name":"{}","namespace":"default","uid":"uid-{}","resourceVersion":"{}",)"
      R"("labels":{{"g":"{}"}}}},"spec":{{"containers":[{{"name":"c"}}]}},"status":{{}}}})",
      name, name, rv, generation);
}

struct Change {
  std::string type;  // ADDED, MODIFIED, DELETED
  std::string name;
  std::string object;  // At this change's resourceVersion (index + 1).
};

// A history of `n` changes to up to `names` pods: resourceVersion i + 1 is changes[i].
std::vector<Change> MakeHistory(std::mt19937& rng, int n, int names) {
  std::vector<Change> out;
  std::map<std::string, int> alive;  // name -> generation
  for (int i = 0; i < n; ++i) {
    const std::string name = fmt::format("p-{}", std::uniform_int_distribution<int>(0, names)(rng));
    auto it = alive.find(name);
    Change c{.name = name};
    if (it == alive.end()) {
      c.type = "ADDED";
      alive[name] = 0;
    } else if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
      c.type = "DELETED";
    } else {
      c.type = "MODIFIED";
      ++it->second;
    }
    c.object = PodJson(name, i + 1, alive[name]);
    if (c.type == "DELETED") alive.erase(name);
    out.push_back(std::move(c));
  }
  return out;
}

// Serves /api/v1/pods from a history whose present moves on by 1 to 60 changes at each request
// (and by 250 at every 15th watch); changes older than 200 before the present have expired. A watch
// from resourceVersion r sends the changes after r up to the present (and bookmarks), then ends: at
// a random byte of its answer, or cleanly. Once the history is over, a watch stays open without
// events.
class HistoryServer {
 public:
  HistoryServer(std::vector<Change> history, uint32_t seed)
      : history_(std::move(history)), rng_(seed) {
    server_.server().Get("/api/v1/pods", [this](const httplib::Request& req,
                                                httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      // At every 15th watch the present leaps past what a watch may resume from.
      const bool leap = req.has_param("watch") && ++watches_ % 15 == 0;
      const int step = leap ? 250 : std::uniform_int_distribution<int>(1, 60)(rng_);
      now_ = std::min<int64_t>(static_cast<int64_t>(history_.size()), now_ + step);
      if (!req.has_param("watch")) {
        res.set_content(ListAt(now_), "application/json");
        return;
      }
      const int64_t from = std::stoll(req.get_param_value("resourceVersion"));
      watched_from_.push_back(from);
      if (from > now_ || (from != 0 && !sent_.contains(from))) bad_versions_.push_back(from);
      if (from < now_ - 200) {
        res.set_content(
            R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})"
            "\n",
            "application/json");
        ++gone_;
        return;
      }
      if (from == static_cast<int64_t>(history_.size())) {
        res.set_chunked_content_provider("text/event-stream", [this](size_t, httplib::DataSink&) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          return !stopping_.load();
        });
        return;
      }
      std::string body;
      std::vector<std::pair<size_t, int64_t>> ends;  // Where each line ends, and its version.
      for (int64_t rv = from + 1; rv <= now_; ++rv) {
        const Change& c = history_[rv - 1];
        body += fmt::format(R"({{"type":"{}","object":{}}})", c.type, c.object) + "\n";
        ends.emplace_back(body.size(), rv);
        if (std::uniform_int_distribution<int>(0, 9)(rng_) == 0) {
          body += fmt::format(R"({{"type":"BOOKMARK","object":{{"metadata":)"
                              R"({{"resourceVersion":"{}"}}}}}})",
                              rv) +
                  "\n";
          ends.emplace_back(body.size(), rv);
          ++bookmarks_;
        }
      }
      // Half the answers stop at a random byte: what was cut is sent again from the last
      // resourceVersion the reflector saw whole.
      if (!body.empty() && std::uniform_int_distribution<int>(0, 1)(rng_) == 0) {
        body.resize(std::uniform_int_distribution<size_t>(0, body.size() - 1)(rng_));
        ++cut_;
      }
      for (const auto& [end, rv] : ends) {
        if (end <= body.size()) sent_.insert(rv);
      }
      res.set_content(body, "application/json");
    });
    EXPECT_TRUE(server_.Start());
  }
  ~HistoryServer() { stopping_ = true; }

  std::string url() const { return server_.url(); }
  bool Over() {
    std::lock_guard<std::mutex> lock(mu_);
    return now_ == static_cast<int64_t>(history_.size());
  }
  // The names and resourceVersions of the pods at the end of the history.
  std::map<std::string, std::string> Final() const {
    std::map<std::string, std::string> out;
    for (const auto& [name, i] : StateAt(static_cast<int64_t>(history_.size()))) {
      out[name] = std::to_string(i + 1);
    }
    return out;
  }
  std::vector<int64_t> bad_versions() {
    std::lock_guard<std::mutex> lock(mu_);
    return bad_versions_;
  }
  std::string Counts() {
    std::lock_guard<std::mutex> lock(mu_);
    return fmt::format("{} watches, {} cut mid-stream, {} answered 410, {} bookmarks",
                       watched_from_.size(), cut_, gone_, bookmarks_);
  }
  int cut() {
    std::lock_guard<std::mutex> lock(mu_);
    return cut_;
  }
  int gone() {
    std::lock_guard<std::mutex> lock(mu_);
    return gone_;
  }

 private:
  // The pods there are at resourceVersion `rv`: name -> the index of their last change.
  std::map<std::string, size_t> StateAt(int64_t rv) const {
    std::map<std::string, size_t> state;
    for (size_t i = 0; i < static_cast<size_t>(rv); ++i) {
      if (history_[i].type == "DELETED") {
        state.erase(history_[i].name);
      } else {
        state[history_[i].name] = i;
      }
    }
    return state;
  }

  // A PodList of the state at resourceVersion `rv`.
  std::string ListAt(int64_t rv) {
    std::string items;
    for (const auto& [name, i] : StateAt(rv)) {
      items += (items.empty() ? "" : ",") + history_[i].object;
    }
    sent_.insert(rv);
    return fmt::format(R"({{"kind":"PodList","metadata":{{"resourceVersion":"{}"}},"items":[{}]}})",
                       rv, items);
  }

  const std::vector<Change> history_;
  std::mutex mu_;
  std::mt19937 rng_;
  int64_t now_ = 0;
  std::set<int64_t> sent_ = {
      0};  // resourceVersions sent whole: a list's, an event's, a bookmark's.
  std::vector<int64_t> watched_from_, bad_versions_;
  int watches_ = 0, cut_ = 0, gone_ = 0, bookmarks_ = 0;
  std::atomic<bool> stopping_{false};
  testing::LoopbackServer server_;
};

class ReflectorFaultsTest : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Threads, ReflectorFaultsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "OnTheIoThread" : "OnTheReflectorsThread";
                         });

TEST_P(ReflectorFaultsTest, TheCopyEndsAsTheHistoryWhereverItsWatchesBreak) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937 rng(seed);
    HistoryServer server(MakeHistory(rng, 3000, 300), seed);
    auto http = HttpClient::Create({.server = server.url()});
    ASSERT_TRUE(http.ok()) << http.status();
    ObjectStore<api::Pod> store;
    Reflector<api::Pod> reflector(
        **http,
        {.path = "/api/v1/pods",
         .handle_on_io_thread = GetParam(),
         .backoff = {.initial = absl::Milliseconds(1), .max = absl::Milliseconds(5)}},
        {}, &store);
    reflector.Start();
    const std::map<std::string, std::string> want = server.Final();
    auto copy = [&] {
      std::map<std::string, std::string> out;
      for (const auto& p : store.ListAll()) out[p->metadata.name] = p->metadata.resource_version;
      return out;
    };
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (!(server.Over() && copy() == want) && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    reflector.Stop();
    EXPECT_EQ(copy(), want) << server.Counts();
    EXPECT_EQ(server.bad_versions(), std::vector<int64_t>{}) << "watched from versions never sent";
    EXPECT_GT(server.cut(), 10) << server.Counts();
    EXPECT_GT(server.gone(), 0) << server.Counts();
    EXPECT_EQ(reflector.lists(), 1 + server.gone()) << server.Counts();
  }
}

}  // namespace
}  // namespace ksched::client
