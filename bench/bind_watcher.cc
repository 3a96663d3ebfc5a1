#include "bench/bind_watcher.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "simdjson.h"
#include "src/client/list.h"

namespace ksched::bench {

namespace {
constexpr char kBound[] = "spec.nodeName!=";
}  // namespace

BindWatcher::BindWatcher(client::HttpClient& http, std::string ns, BindWatcherOptions options)
    : http_(http), ns_(std::move(ns)), options_(options) {
  reflector_ = std::make_unique<client::Reflector<api::Pod>>(
      http_,
      client::ReflectorOptions{.path = fmt::format("/api/v1/namespaces/{}/pods", ns_),
                               .field_selector = kBound,
                               .min_watch_timeout = options_.min_watch_timeout,
                               .handle_on_io_thread = true},
      client::ReflectorHandlers<api::Pod>{
          .on_add = [this](std::shared_ptr<const api::Pod> p) { Note(p->metadata.name); },
          // Only bound pods match the selector: one the decoder refused was bound all the same.
          .on_decode_error = [this](const api::Pod& p,
                                    const absl::Status&) { Note(p.metadata.name); }});
  reflector_->Start();
}

BindWatcher::~BindWatcher() { reflector_->Stop(); }

void BindWatcher::Note(const std::string& name) {
  absl::MutexLock lock(&mu_);
  if (name.empty() || !bound_.insert(name).second) return;
  last_ = std::chrono::steady_clock::now();
  seen_seconds_.push_back(absl::ToUnixSeconds(absl::Now()));
}

std::vector<std::string> BindWatcher::NotSeen(std::vector<std::string> names) {
  std::erase_if(names, [this](const std::string& n) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return bound_.contains(n);  // NotSeen holds mu_.
  });
  return names;
}

absl::StatusOr<std::vector<std::string>> BindWatcher::Unseen() {
  // A consistent read (no resourceVersion): from etcd, as it is now, not from the watch cache.
  client::HttpResponse r =
      http_.Call({.path = fmt::format("/api/v1/namespaces/{}/pods?fieldSelector={}", ns_,
                                      client::Escape(kBound)),
                  .timeout = absl::Minutes(2),
                  .retries = 2,
                  .retry_delay = absl::Seconds(1)});
  if (!r.ok()) return r.ToStatus();
  std::vector<std::string> names;
  simdjson::dom::parser parser;
  absl::StatusOr<std::string> version =
      client::ForEachListItem(r.body, parser, [&](simdjson::dom::element e) {
        std::string_view name;
        if (e.at_pointer("/metadata/name").get_string().get(name) == simdjson::SUCCESS) {
          names.emplace_back(name);
        }
      });
  if (!version.ok()) return version.status();
  absl::MutexLock lock(&mu_);
  return NotSeen(std::move(names));
}

absl::Status BindWatcher::WaitFor(size_t pods, absl::Duration timeout,
                                  const std::function<bool()>& alive) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Time stalled = absl::Now() + options_.stall;  // When a count standing still is a stall.
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      const size_t before = bound_.size();
      auto moved = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return bound_.size() >= pods || bound_.size() != before;
      };
      absl::Time wake = std::min(deadline, stalled);
      if (alive) wake = std::min(wake, absl::Now() + absl::Seconds(1));
      mu_.AwaitWithDeadline(absl::Condition(&moved), wake);
      if (bound_.size() >= pods) return absl::OkStatus();
      if (absl::Now() >= deadline) {
        return absl::DeadlineExceededError(
            fmt::format("{} of {} pods bound in {}", bound_.size(), pods, ns_));
      }
      if (bound_.size() != before) {
        stalled = absl::Now() + options_.stall;
        continue;
      }
      if (alive && !alive()) {
        return absl::AbortedError(fmt::format("the scheduler exited: {} of {} pods bound in {}",
                                              bound_.size(), pods, ns_));
      }
      if (absl::Now() < stalled) continue;
      stalled = absl::Now() + options_.stall;
    }
    // The count stood still: is the scheduler slow, or did the watch lose a bind?
    absl::StatusOr<std::vector<std::string>> unseen = Unseen();
    if (!unseen.ok() || unseen->empty()) continue;
    std::vector<std::string> missing = *std::move(unseen);
    {
      absl::MutexLock lock(&mu_);
      auto arrived = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return NotSeen(missing).empty(); };
      if (mu_.AwaitWithDeadline(absl::Condition(&arrived),
                                std::min(deadline, absl::Now() + options_.grace))) {
        continue;
      }
      missing = NotSeen(std::move(missing));
    }
    const size_t shown = std::min<size_t>(missing.size(), 10);
    return absl::DataLossError(fmt::format(
        "the watch of {} lost {} bind(s): bound in the API server, not on the watch {} later: {}{}",
        ns_, missing.size(), absl::FormatDuration(options_.stall + options_.grace),
        absl::StrJoin(missing.begin(), missing.begin() + static_cast<ptrdiff_t>(shown), ", "),
        missing.size() > shown ? ", ..." : ""));
  }
}

size_t BindWatcher::Count() {
  absl::MutexLock lock(&mu_);
  return bound_.size();
}

bool BindWatcher::Seen(const std::string& name) {
  absl::MutexLock lock(&mu_);
  return bound_.contains(name);
}

BindWatcher::SteadyTime BindWatcher::last() {
  absl::MutexLock lock(&mu_);
  return last_;
}

std::vector<int64_t> BindWatcher::seen_seconds() {
  absl::MutexLock lock(&mu_);
  return seen_seconds_;
}

}  // namespace ksched::bench
