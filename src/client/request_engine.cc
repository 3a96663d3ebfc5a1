#include "src/client/request_engine.h"

#include <algorithm>
#include <atomic>
#include <charconv>

#include "fmt/format.h"
#include "src/base/log.h"
#include "src/client/go_errors.h"

namespace ksched::client {
namespace {

// The seconds a 429 or 5xx answer asks the client to wait before sending the request again (its
// Retry-After header, in seconds), as client-go's checkWait reads it; nothing for other answers.
std::optional<int> RetryAfter(Transfer& t) {
  if (t.response.status != 429 && t.response.status < 500) return std::nullopt;
  if (t.retry_after.empty()) return std::nullopt;
  int seconds = 0;
  const std::string_view v = t.retry_after;
  if (std::from_chars(v.data(), v.data() + v.size(), seconds).ec != std::errc()) {
    return std::nullopt;
  }
  return std::clamp(seconds, 0, 3600);
}

}  // namespace

void HttpClient::Loop::Finish(std::unique_ptr<Transfer> t) {
  constexpr size_t kMaxIdleHandles = 64;
  if (t->easy != nullptr) {
    if (idle_handles.size() < kMaxIdleHandles) {
      idle_handles.push_back(t->easy);
    } else {
      Curl().easy_cleanup(t->easy);
    }
  }
  if (t->headers != nullptr) Curl().slist_free_all(t->headers);
  if (t->done) t->done(std::move(t->response));
}

void HttpClient::Loop::FinishWithError(std::unique_ptr<Transfer> t, std::string why) {
  t->response.status = 0;
  t->response.transport_error = std::move(why);
  Finish(std::move(t));
}

void HttpClient::Loop::Run() {
  std::vector<uint64_t> cancels;
  std::vector<pollfd> fds;
  int still_running = 0;
  absl::Time woke = absl::Now();  // When the last poll returned.
  while (TakeSubmitted(&cancels)) {
    StartDue();
    EndCancelled(cancels);
    cancels.clear();
    if (absl::Now() >= curl_due) {
      curl_due = absl::InfiniteFuture();
      Curl().multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &still_running);
      ReapFinished();
    }
    absl::Time until = std::min(curl_due, absl::Now() + absl::Seconds(1));
    if (!delayed.empty()) until = std::min(until, delayed.begin()->first);
    if (!h2_deadlines.empty()) until = std::min(until, h2_deadlines.begin()->first);
    fds.assign(1, {.fd = wake_fd, .events = POLLIN, .revents = 0});
    for (const auto& c : conns) fds.push_back({.fd = c->fd(), .events = c->events(), .revents = 0});
    const size_t first_curl = fds.size();
    for (const auto& [fd, events] : sockets)
      fds.push_back({.fd = fd, .events = events, .revents = 0});
    int64_t wait_ms = std::clamp<int64_t>(
        absl::ToInt64Milliseconds(absl::Ceil(until - absl::Now(), absl::Milliseconds(1))), 0, 1000);
    CheckHeld(absl::Now() - woke);  // Before Tick, which sleeps on purpose.
    if (coalesce > absl::ZeroDuration()) wait_ms = Tick(wait_ms);
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
    woke = absl::Now();
    if (ready > 0 && fds[0].revents != 0) {
      uint64_t count = 0;
      (void)!read(wake_fd, &count, sizeof count);
    }
    for (size_t i = 1; ready > 0 && i < first_curl; ++i) {
      if (fds[i].revents != 0) conns[i - 1]->Process(fds[i].revents);
    }
    ReapH2();
    if (ready <= 0) continue;
    for (size_t i = first_curl; i < fds.size(); ++i) {
      const short r = fds[i].revents;
      if (r == 0) continue;
      const int mask = ((r & POLLIN) != 0 ? CURL_CSELECT_IN : 0) |
                       ((r & POLLOUT) != 0 ? CURL_CSELECT_OUT : 0) |
                       ((r & (POLLERR | POLLHUP | POLLNVAL)) != 0 ? CURL_CSELECT_ERR : 0);
      Curl().multi_socket_action(multi, fds[i].fd, mask, &still_running);
    }
    ReapFinished();
  }
  EndAll();
}

void HttpClient::Loop::CheckHeld(absl::Duration awake) {
  if (awake < kHeldLimit) return;
  held.fetch_add(1, std::memory_order_relaxed);
  KLOG_ERROR(
      "The HTTP client's I/O thread was held: no answer or watch event was read meanwhile; the "
      "handlers run on it (request callbacks, the pod and claim watches' handlers, and the "
      "PreEnqueue plugins and queueing hints they run) must not block",
      {"duration", absl::FormatDuration(awake)});
}

bool HttpClient::Loop::TakeSubmitted(std::vector<uint64_t>* cancels) {
  std::deque<std::unique_ptr<Transfer>> fresh;
  {
    absl::MutexLock lock(&mu);
    if (stopping) return false;
    fresh.swap(submitted);
    cancels->swap(cancelled);
  }
  took_requests = !fresh.empty();
  for (auto& t : fresh) delayed.emplace(t->not_before, std::move(t));
  return true;
}

void HttpClient::Loop::StartDue() {
  absl::Time now = absl::Now();
  while (!delayed.empty() && delayed.begin()->first <= now) {
    std::unique_ptr<Transfer> t = std::move(delayed.extract(delayed.begin()).mapped());
    if (!std::exchange(t->sent_once, true) && t->not_before != absl::InfinitePast()) {
      Throttled(*t, now);
    }
    if (t->request.guard) {
      if (absl::Status g = t->request.guard(); !g.ok()) {
        FinishWithError(std::move(t), std::string(g.message()));
        continue;
      }
    }
    if (use_h2) {
      StartH2(std::move(t));
      continue;
    }
    if (t->easy == nullptr) Prepare(t.get());  // A retry keeps its handle.
    Curl().multi_add_handle(multi, t->easy);
    running.emplace(t->id, std::move(t));
  }
}

std::pair<metrics::Histogram*, metrics::Histogram*> HttpClient::Loop::DurationSeries(
    const std::string& verb) {
  auto it = duration_series.find(verb);
  if (it == duration_series.end()) {
    it = duration_series
             .emplace(verb, std::pair{metrics->rate_limiter_duration.With({verb, host}),
                                      metrics->request_duration.With({verb, host})})
             .first;
  }
  return it->second;
}

void HttpClient::Loop::Throttled(const Transfer& t, absl::Time now) {
  const absl::Duration waited = std::max(t.not_before - t.submitted, absl::ZeroDuration());
  if (metrics != nullptr) {
    DurationSeries(t.request.method).first->Observe(absl::ToDoubleSeconds(waited));
  }
  if (waited <= absl::Milliseconds(50)) return;
  int level = 3;
  if (waited > absl::Seconds(1)) {
    const bool v2 = log::Enabled(2);
    absl::Time& last = v2 ? throttle_logged_v2 : throttle_logged_v0;
    if (now - last >= (v2 ? absl::Seconds(1) : absl::Seconds(10))) {
      last = now;
      level = v2 ? 2 : 0;
    }
  }
  KLOG(level, "Waited before sending request", {"delay", absl::FormatDuration(waited)},
       {"reason", "client-side throttling, not priority and fairness"}, {"verb", t.request.method},
       {"URL", url_prefix + t.request.path});
}

void HttpClient::Loop::CountAnswer(const Transfer& t, const std::string& code, bool retry) {
  if (metrics == nullptr) return;
  auto& series = retry ? retry_series : result_series;
  auto key = std::pair{code, t.request.method};
  auto it = series.find(key);
  if (it == series.end()) {
    metrics::CounterFamily& family = retry ? metrics->retries : metrics->requests;
    it = series.emplace(key, family.With({code, t.request.method, host})).first;
  }
  it->second->Inc();
  if (!retry && !t.on_data) {  // Watches stream: client-go times only the other requests.
    DurationSeries(t.request.method)
        .second->Observe(absl::ToDoubleSeconds(absl::Now() - t.submitted));
  }
}

void HttpClient::Loop::Complete(std::unique_ptr<Transfer> t, const std::string& error) {
  if (error.empty() && RetryLater(t)) return;
  const std::string code = error.empty() ? std::to_string(t->response.status) : "<error>";
  const bool failed =
      !error.empty() || (t->request.retry_server_errors && t->response.status >= 500);
  if (failed && t->request.retries > 0) {  // Sent again, later.
    CountAnswer(*t, code, /*retry=*/true);
    --t->request.retries;
    const absl::Time at = absl::Now() + t->request.retry_delay * absl::Uniform(rng, 1.0, 1.25);
    SendAgainAt(at, std::move(t));  // `at` first: the move may come before the arguments.
    return;
  }
  if (!error.empty()) {
    t->response.status = 0;
    t->response.transport_error =
        GoUrlError(t->request.method, url_prefix + t->request.path, error);
  }
  CountAnswer(*t, code, /*retry=*/false);
  Finish(std::move(t));
}

void HttpClient::Loop::EndCancelled(const std::vector<uint64_t>& cancels) {
  for (uint64_t id : cancels) {
    if (auto it = running.find(id); it != running.end()) {
      Abandon(*it->second);
      FinishWithError(std::move(running.extract(it).mapped()), "cancelled");
      continue;
    }
    auto d = std::find_if(delayed.begin(), delayed.end(),
                          [id](const auto& kv) { return kv.second->id == id; });
    if (d != delayed.end()) FinishWithError(std::move(delayed.extract(d).mapped()), "cancelled");
  }
}

bool HttpClient::Loop::RetryLater(std::unique_ptr<Transfer>& t) {
  constexpr int kMaxServerRetries = 10;  // client-go's default (rest.Request's maxRetries).
  const std::optional<int> seconds = RetryAfter(*t);
  if (!seconds || t->server_retries >= kMaxServerRetries) return false;
  ++t->server_retries;
  CountAnswer(*t, std::to_string(t->response.status), /*retry=*/true);
  // One warning a minute, from all the process's clients: an API server that sheds load answers
  // many requests so at once.
  static std::atomic<int64_t> warned_unix_seconds{0};
  const absl::Time now = absl::Now();
  int64_t last = warned_unix_seconds.load();
  const bool warn = absl::ToUnixSeconds(now) - last >= 60 &&
                    warned_unix_seconds.compare_exchange_strong(last, absl::ToUnixSeconds(now));
  if (warn || log::Enabled(4)) {
    log::Write(warn ? 'W' : 'I', warn ? 0 : 4, __FILE__, __LINE__,
               "The API server asked to send the request again later",
               {{"verb", t->request.method},
                {"path", t->request.path},
                {"code", static_cast<int64_t>(t->response.status)},
                {"retries", t->server_retries},
                {"retryAfterSeconds", *seconds},
                {"flowSchemaUID", t->response.status == 429 ? t->flow_schema : ""}});
  }
  SendAgainAt(now + absl::Seconds(*seconds), std::move(t));
  return true;
}

void HttpClient::Loop::SendAgainAt(absl::Time at, std::unique_ptr<Transfer> t) {
  t->response = {};
  t->error[0] = '\0';
  t->retry_after.clear();
  t->flow_schema.clear();
  delayed.emplace(at, std::move(t));
}

void HttpClient::Loop::EndAll() {
  std::vector<std::unique_ptr<Transfer>> rest;
  for (auto& [id, t] : running) {
    Abandon(*t);
    rest.push_back(std::move(t));
  }
  for (auto& [at, t] : delayed) rest.push_back(std::move(t));
  {
    absl::MutexLock lock(&mu);
    for (auto& t : submitted) rest.push_back(std::move(t));
    submitted.clear();
  }
  running.clear();
  delayed.clear();
  for (auto& t : rest) FinishWithError(std::move(t), "client closed");
}

}  // namespace ksched::client
