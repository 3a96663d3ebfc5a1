#include "src/client/http.h"

#include <curl/curl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/lazy_library.h"
#include "src/base/log.h"
#include "src/base/strings.h"
#include "src/base/thread_name.h"
#include "src/client/h2.h"

namespace ksched::client {

absl::Status HttpResponse::ToStatus() const {
  if (ok()) return absl::OkStatus();
  if (status == 0) return absl::UnavailableError(transport_error);
  std::string message = fmt::format("the server answered {}", status);
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.value("kind", "") == "Status" && j.contains("message") &&
      j["message"].is_string()) {
    message = j["message"].get<std::string>();
  } else if (!body.empty() && body.size() < 512) {
    message = fmt::format("{}: {}", message, body);
  }
  switch (status) {
    case 400:
    case 422:
      return absl::InvalidArgumentError(message);
    case 401:
      return absl::UnauthenticatedError(message);
    case 403:
      return absl::PermissionDeniedError(message);
    case 404:
      return absl::NotFoundError(message);
    case 409:
      return absl::AlreadyExistsError(message);
    case 410:
      return absl::OutOfRangeError(message);
    case 429:
      return absl::ResourceExhaustedError(message);
    default:
      return status >= 500 ? absl::UnavailableError(message) : absl::UnknownError(message);
  }
}

RestClientMetrics::RestClientMetrics(metrics::Registry& registry)
    : rate_limiter_duration(registry.AddHistogram(
          "rest_client_rate_limiter_duration_seconds",
          "Client side rate limiter latency in seconds. Broken down by verb, and host.",
          metrics::Stability::kAlpha,
          {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0}, {"verb", "host"})),
      request_duration(registry.AddHistogram(
          "rest_client_request_duration_seconds",
          "Request latency in seconds. Broken down by verb, and host.", metrics::Stability::kAlpha,
          {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0}, {"verb", "host"})),
      requests(registry.AddCounter(
          "rest_client_requests_total",
          "Number of HTTP requests, partitioned by status code, method, and host.",
          metrics::Stability::kAlpha, {"code", "method", "host"})),
      retries(registry.AddCounter(
          "rest_client_request_retries_total",
          "Number of request retries, partitioned by status code, verb, and host.",
          metrics::Stability::kAlpha, {"code", "verb", "host"})) {}

namespace {

// The libcurl functions the curl transport calls. libcurl is opened when the first client that
// needs that transport is made (src/base/lazy_library.h): most never do.
// clang-format off
#define KSCHED_CURL_FUNCTIONS(X)                                                                  \
  X(global_init)                                                                                  \
  X(easy_init) X(easy_setopt) X(easy_getinfo) X(easy_header) X(easy_strerror) X(easy_cleanup)     \
  X(slist_append) X(slist_free_all)                                                               \
  X(multi_init) X(multi_setopt) X(multi_add_handle) X(multi_remove_handle)                        \
  X(multi_socket_action) X(multi_info_read) X(multi_cleanup)
// clang-format on

struct CurlFunctions {
// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is the declared member.
#define KSCHED_CURL_MEMBER(name) decltype(&::curl_##name) name = nullptr;
  KSCHED_CURL_FUNCTIONS(KSCHED_CURL_MEMBER)
#undef KSCHED_CURL_MEMBER
};

// libcurl, opened, initialized (curl_global_init) and its functions looked up, once.
absl::StatusOr<const CurlFunctions*> LoadCurl() {
  static const absl::StatusOr<const CurlFunctions*> loaded =
      []() -> absl::StatusOr<const CurlFunctions*> {
    static LazyLibrary library("libcurl.so.4",
                               "the HTTP transport to a server behind a proxy, over plain HTTP, "
                               "or with KSCHED_HTTP_TRANSPORT=curl");
    if (absl::Status st = library.Open(); !st.ok()) return st;
    static CurlFunctions f;
#define KSCHED_CURL_LOOKUP(name)                                                     \
  f.name = library.Function<std::remove_pointer_t<decltype(f.name)>>("curl_" #name); \
  if (f.name == nullptr) return absl::FailedPreconditionError("libcurl.so.4 has no curl_" #name);
    KSCHED_CURL_FUNCTIONS(KSCHED_CURL_LOOKUP)
#undef KSCHED_CURL_LOOKUP
    if (f.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      return absl::InternalError("libcurl failed to initialize");
    }
    return &f;
  }();
  return loaded;
}

// The functions, where LoadCurl() succeeded before: on the curl transport's paths only.
const CurlFunctions& Curl() { return **LoadCurl(); }

// client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter), as reservations: each request
// is given the time at which it may go. No Debian library offers one.
class TokenBucket {
 public:
  TokenBucket(float qps, int burst) : qps_(qps), burst_(std::max(burst, 1)), tokens_(burst_) {}

  absl::Time Reserve(absl::Time now) {
    if (qps_ <= 0) return now;  // A negative qps turns the limit off, as in client-go.
    absl::MutexLock lock(&mu_);
    tokens_ = std::min<double>(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
    last_ = now;
    tokens_ -= 1;
    if (tokens_ >= 0) return now;
    return now + absl::Seconds(-tokens_ / qps_);
  }

 private:
  const double qps_;
  const int burst_;
  absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::Now();
};

// The bearer token: fixed, or read from a file and re-read once a minute, as client-go's
// cachingTokenSource does, so a rotated service-account token is picked up.
class TokenSource {
 public:
  TokenSource(std::string token, std::string file)
      : token_(std::move(token)), file_(std::move(file)) {}

  std::string Get() {
    absl::MutexLock lock(&mu_);
    if (file_.empty()) return token_;
    absl::Time now = absl::Now();
    if (now - read_at_ >= absl::Minutes(1)) {
      std::ifstream in(file_);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string t = ss.str();
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
      if (in || !t.empty()) token_ = t;  // Keep the old token when the file can't be read.
      read_at_ = now;
    }
    return token_;
  }

 private:
  absl::Mutex mu_;
  std::string token_ ABSL_GUARDED_BY(mu_);
  const std::string file_;
  absl::Time read_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

struct Transfer {
  uint64_t id = 0;
  HttpRequest request;
  std::function<void(std::string_view)> on_data;  // Set for streams.
  std::function<void(HttpResponse)> done;
  absl::Time not_before;
  absl::Time submitted;    // When Submit took it: its duration, waits and retries included.
  bool sent_once = false;  // Whether it went out before (this is a retry).
  // The request's header fields (lower-case names, as HTTP/2 requires), made once at Submit.
  std::vector<std::pair<std::string, std::string>> fields;
  CURL* easy = nullptr;           // From the I/O thread's pool, once the transfer starts.
  curl_slist* headers = nullptr;  // `fields` for libcurl, which keeps a pointer to the list.
  // On the HTTP/2 transport instead: the connection and stream, while the stream is open.
  H2Connection* conn = nullptr;
  int32_t stream = 0;
  std::optional<std::multimap<absl::Time, uint64_t>::iterator> deadline;  // In h2_deadlines.
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {};
  std::string retry_after, flow_schema;  // The answer's headers the client acts on.
  int server_retries = 0;                // Answers that asked for a retry (Retry-After), so far.

  // A piece of the body: to the stream's handler while the answer is a success; an error body
  // is kept whole.
  void Received(std::string_view data) {
    if (on_data && response.status >= 200 && response.status < 300) {
      on_data(data);
    } else {
      response.body.append(data);
    }
  }
};

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  Curl().easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->response.status);
  t->Received(std::string_view(data, len));
  return len;
}

// A response header of a libcurl transfer, or "".
std::string CurlHeader(CURL* easy, const char* name) {
  curl_header* h = nullptr;
  return Curl().easy_header(easy, name, 0, CURLH_HEADER, -1, &h) == CURLHE_OK ? h->value : "";
}

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

struct HttpClient::Loop {
  CURLM* multi = nullptr;
  std::thread thread;
  TokenBucket bucket;
  TokenSource token;
  const RestConfig& config;          // The client's, which outlives its loop.
  std::string url_prefix;            // scheme://host:port, with tls_server_name as the host.
  std::string connect_to_spec;       // With tls_server_name: "name:port:host:port".
  curl_slist* connect_to = nullptr;  // CURLOPT_CONNECT_TO for tls_server_name.
  // Easy handles of finished transfers, set up for this server, for the next ones: setting up a
  // handle (TLS blobs, options) costs more than the request itself. Owned by the I/O thread.
  std::vector<CURL*> idle_handles;
  absl::Mutex mu;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  int requests ABSL_GUARDED_BY(mu) = 0;  // Submitted and not finished, watches aside.
  std::deque<std::unique_ptr<Transfer>> submitted ABSL_GUARDED_BY(mu);
  std::vector<uint64_t> cancelled ABSL_GUARDED_BY(mu);
  // Wakes the I/O thread from its poll(): an eventfd that Wake() makes readable.
  const int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  // HttpClientOptions::coalesce; while the I/O thread sleeps to a tick, when that ends
  // (InfiniteFuture otherwise).
  absl::Duration coalesce;
  absl::Time sleeps_until ABSL_GUARDED_BY(mu) = absl::InfiniteFuture();
  bool took_requests = false;  // The last TakeSubmitted took some; I/O thread only.
  // Owned by the I/O thread.
  std::multimap<absl::Time, std::unique_ptr<Transfer>> delayed;
  std::map<uint64_t, std::unique_ptr<Transfer>> running;
  absl::BitGen rng;  // For retries' jitter.
  // What libcurl asks the loop to watch (CURLMOPT_SOCKETFUNCTION): a socket and its poll events,
  // one per connection, so that poll() looks at one socket however many transfers are in flight
  // (curl_multi_poll() hands the kernel the socket once per transfer).
  std::map<curl_socket_t, short> sockets;
  absl::Time curl_due = absl::InfiniteFuture();  // CURLMOPT_TIMERFUNCTION's deadline.
  // The own HTTP/2 transport (https:// servers that speak HTTP/2, unless KSCHED_HTTP_TRANSPORT
  // is "curl"): the connection new requests go on, last, and those still draining after a GOAWAY.
  bool use_h2 = false;
  std::vector<std::unique_ptr<H2Connection>> conns;
  struct Closed {
    uint64_t id;
    std::string error;
    bool refused;
  };
  std::vector<Closed> closed;                        // Streams ended, to be reaped.
  std::multimap<absl::Time, uint64_t> h2_deadlines;  // Requests' timeouts, by transfer id.
  // The rest_client_* metrics, if kept: their host label (the server's host:port), and their
  // series, each looked up once (by the I/O thread, which alone uses these maps).
  RestClientMetrics* metrics = nullptr;
  std::string host;
  std::map<std::string, std::pair<metrics::Histogram*, metrics::Histogram*>, std::less<>>
      duration_series;  // By verb: {rate limiter, request}.
  std::map<std::pair<std::string, std::string>, metrics::Counter*> result_series, retry_series;
  absl::Time throttle_logged_v0 = absl::InfinitePast(), throttle_logged_v2 = absl::InfinitePast();

  explicit Loop(const RestConfig& c)
      : bucket(c.qps, c.burst), token(c.token, c.token_file), config(c) {}
  ~Loop() {
    if (multi != nullptr) {  // Else libcurl was never needed, and may not be loaded.
      for (CURL* e : idle_handles) Curl().easy_cleanup(e);
      Curl().slist_free_all(connect_to);
    }
    close(wake_fd);
  }

  void Wake() {
    const uint64_t one = 1;
    (void)!write(wake_fd, &one, sizeof one);
  }

  // With `coalesce`, while requests come or are on the way: sleeps on the wake-up alone to the
  // next tick, at most `coalesce` away, and returns 0, so that the sockets are then looked at once
  // for every answer that came meanwhile; requests submitted meanwhile do not wake it. Otherwise
  // returns `wait_ms`, for the usual poll.
  int64_t Tick(int64_t wait_ms) {
    {
      absl::MutexLock lock(&mu);
      if (!took_requests && requests == 0) return wait_ms;
      wait_ms = std::min(wait_ms, absl::ToInt64Milliseconds(coalesce));
      sleeps_until = absl::Now() + absl::Milliseconds(wait_ms);
    }
    pollfd wake{.fd = wake_fd, .events = POLLIN, .revents = 0};
    if (poll(&wake, 1, static_cast<int>(wait_ms)) > 0) {
      uint64_t count = 0;
      (void)!read(wake_fd, &count, sizeof count);
    }
    absl::MutexLock lock(&mu);
    sleeps_until = absl::InfiniteFuture();
    return 0;
  }

  // Sends requests on libcurl from now on, opening libcurl if no client did yet: from Create, or
  // on the I/O thread once the server refused HTTP/2. An error leaves the transport as it was.
  absl::Status UseCurl();
  // The I/O thread: until stopped, starts the transfers whose time has come, ends the cancelled
  // ones, drives libcurl and reports the finished ones; then ends all that remain.
  void Run();
  // Moves newly submitted transfers to `delayed`; returns false once stopping.
  bool TakeSubmitted(std::vector<uint64_t>* cancels);
  void StartDue();
  void EndCancelled(const std::vector<uint64_t>& cancels);
  void ReapFinished();
  // Sends `t` again after the delay its 429 or 5xx answer asked for, up to client-go's 10 times;
  // returns false (and leaves `t`) when the answer is final.
  bool RetryLater(std::unique_ptr<Transfer>& t);
  // Queues `t`, with its handle, to go again at `at`, its answer and error forgotten.
  void SendAgainAt(absl::Time at, std::unique_ptr<Transfer> t);
  void EndAll();
  // A handle set up for the server (from the pool, or new), then set up for `t`'s request.
  void Prepare(Transfer* t);
  // Gives the transfer's handle back to the pool and runs its callback.
  void Finish(std::unique_ptr<Transfer> t);
  void FinishWithError(std::unique_ptr<Transfer> t, std::string why);
  // Starts `t` on the HTTP/2 connection, opening one if none takes requests.
  void StartH2(std::unique_ptr<Transfer> t);
  // Ends the transfers whose streams closed, and the requests past their timeout; drops the
  // connections that are done.
  void ReapH2();
  // What a transfer whose answer came (`error` empty) or did not ends as: sent again (a
  // Retry-After, a retry) or finished.
  void Complete(std::unique_ptr<Transfer> t, const std::string& error);
  // A request about to go out for the first time: its wait in the rate limit, observed and,
  // when over 1 s, logged (client-go's throttled logger: once a second at -v=2, else once in 10 s).
  void Throttled(const Transfer& t, absl::Time now);
  // The rest_client_* series of a verb: {rate limiter, request} durations.
  std::pair<metrics::Histogram*, metrics::Histogram*> DurationSeries(const std::string& verb);
  // Counts an attempt's answer ("<error>" for none): a retry, or the request's final result.
  void CountAnswer(const Transfer& t, const std::string& code, bool retry);
  void ForgetDeadline(Transfer& t) {
    if (t.deadline) h2_deadlines.erase(*std::exchange(t.deadline, std::nullopt));
  }
  // Stops a running transfer on whichever transport carries it; its callback is not run.
  void Abandon(Transfer& t) {
    ForgetDeadline(t);
    if (t.conn != nullptr) {
      t.conn->Reset(t.stream);
    } else if (t.easy != nullptr) {
      Curl().multi_remove_handle(multi, t.easy);
    }
  }
  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* loop, void* socket_data);
  static int OnTimer(CURLM* multi, long timeout_ms, void* loop);
};

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

void HttpClient::Loop::Prepare(Transfer* t) {
  CURL* e = nullptr;
  if (!idle_handles.empty()) {
    e = idle_handles.back();
    idle_handles.pop_back();
  } else {
    e = Curl().easy_init();
    // What every request to this server shares; libcurl copies the strings and blobs it is given.
    Curl().easy_setopt(e, CURLOPT_WRITEFUNCTION, OnWrite);
    Curl().easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    Curl().easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    Curl().easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    Curl().easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    Curl().easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    Curl().easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if (connect_to != nullptr) Curl().easy_setopt(e, CURLOPT_CONNECT_TO, connect_to);
    if (config.insecure_skip_tls_verify) {
      Curl().easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      Curl().easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    // A PEM from the kubeconfig's data (copied into the handle), else from its file, if any.
    auto pem = [e](const std::string& data, CURLoption blob_option, const std::string& file,
                   CURLoption file_option) {
      if (!data.empty()) {
        curl_blob blob{const_cast<char*>(data.data()), data.size(), CURL_BLOB_COPY};
        Curl().easy_setopt(e, blob_option, &blob);
      } else if (!file.empty()) {
        Curl().easy_setopt(e, file_option, file.c_str());
      }
    };
    pem(config.ca_data, CURLOPT_CAINFO_BLOB, config.ca_file, CURLOPT_CAINFO);
    pem(config.cert_data, CURLOPT_SSLCERT_BLOB, config.cert_file, CURLOPT_SSLCERT);
    pem(config.key_data, CURLOPT_SSLKEY_BLOB, config.key_file, CURLOPT_SSLKEY);
    Curl().easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");  // PEM is libcurl's default for files too.
    Curl().easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
  }
  t->easy = e;
  // What this request sets; each option a request may set is set, to its value or back.
  const HttpRequest& r = t->request;
  std::string url = url_prefix + r.path;
  Curl().easy_setopt(e, CURLOPT_URL, url.c_str());
  Curl().easy_setopt(e, CURLOPT_PRIVATE, t);
  Curl().easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
  Curl().easy_setopt(e, CURLOPT_WRITEDATA, t);
  Curl().easy_setopt(e, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max<int64_t>(absl::ToInt64Milliseconds(r.timeout), 0)));
  if (r.method == "GET") {
    Curl().easy_setopt(e, CURLOPT_CUSTOMREQUEST, nullptr);
    Curl().easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    Curl().easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    // Not copied: the body lives in the transfer as long as the handle sends it.
    Curl().easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(r.body.size()));
    Curl().easy_setopt(e, CURLOPT_POSTFIELDS, r.body.c_str());
  }
  for (const auto& [name, value] : t->fields) {
    t->headers = Curl().slist_append(t->headers, fmt::format("{}: {}", name, value).c_str());
  }
  Curl().easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
}

// libcurl's socket callback: which sockets the I/O thread polls, and for what.
int HttpClient::Loop::OnSocket(CURL*, curl_socket_t s, int what, void* loop, void*) {
  auto* l = static_cast<Loop*>(loop);
  if (what == CURL_POLL_REMOVE) {
    l->sockets.erase(s);
  } else {
    l->sockets[s] = static_cast<short>(((what & CURL_POLL_IN) != 0 ? POLLIN : 0) |
                                       ((what & CURL_POLL_OUT) != 0 ? POLLOUT : 0));
  }
  return 0;
}

// libcurl's timer callback: when it wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT); -1: never.
int HttpClient::Loop::OnTimer(CURLM*, long timeout_ms, void* loop) {
  static_cast<Loop*>(loop)->curl_due =
      timeout_ms < 0 ? absl::InfiniteFuture() : absl::Now() + absl::Milliseconds(timeout_ms);
  return 0;
}

void HttpClient::Loop::Run() {
  std::vector<uint64_t> cancels;
  std::vector<pollfd> fds;
  int still_running = 0;
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
    if (coalesce > absl::ZeroDuration()) wait_ms = Tick(wait_ms);
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
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

void HttpClient::Loop::StartH2(std::unique_ptr<Transfer> t) {
  const HttpRequest& r = t->request;
  const H2Request req{.method = r.method, .path = r.path, .headers = t->fields, .body = r.body};
  for (int attempt = 0; attempt < 2 && t->stream == 0; ++attempt) {
    if (conns.empty() || !conns.back()->Usable()) {
      absl::StatusOr<std::unique_ptr<H2Connection>> c = H2Connection::Open(
          config,
          {.on_header =
               [](void* user, std::string_view name, std::string_view value) {
                 auto* x = static_cast<Transfer*>(user);
                 if (name == ":status") {
                   (void)std::from_chars(value.data(), value.data() + value.size(),
                                         x->response.status);
                 } else if (name == "retry-after") {
                   x->retry_after = value;
                 } else if (name == "x-kubernetes-pf-flowschema-uid") {
                   x->flow_schema = value;
                 }
               },
           .on_data = [](void* user,
                         std::string_view data) { static_cast<Transfer*>(user)->Received(data); },
           .on_close =
               [this](void* user, const std::string& error, bool refused) {
                 closed.push_back({static_cast<Transfer*>(user)->id, error, refused});
               }});
      if (!c.ok()) {
        const uint64_t id = t->id;
        running.emplace(id, std::move(t));
        closed.push_back({id, std::string(c.status().message()), false});
        return;
      }
      conns.push_back(std::move(*c));
    }
    t->conn = conns.back().get();
    t->stream = t->conn->Submit(req, t.get());
  }
  if (r.timeout > absl::ZeroDuration()) {
    t->deadline = h2_deadlines.emplace(absl::Now() + r.timeout, t->id);
  }
  const uint64_t id = t->id;
  const bool started = t->stream != 0;
  running.emplace(id, std::move(t));
  if (!started) {
    closed.push_back(
        {id, conns.back()->Dead() ? conns.back()->error() : "no HTTP/2 connection takes requests",
         false});
  }
}

void HttpClient::Loop::ReapH2() {
  const absl::Time now = absl::Now();
  for (auto& c : conns) c->Tick(now);
  while (!h2_deadlines.empty() && h2_deadlines.begin()->first <= now) {
    const uint64_t id = h2_deadlines.begin()->second;
    Transfer& t = *running.at(id);  // A transfer leaves `running` with its deadline.
    ForgetDeadline(t);
    t.conn->Reset(t.stream);
    closed.push_back({id,
                      fmt::format("Operation timed out after {} milliseconds",
                                  absl::ToInt64Milliseconds(t.request.timeout)),
                      false});
  }
  std::vector<Closed> ended;
  ended.swap(closed);
  for (Closed& c : ended) {
    auto it = running.find(c.id);
    if (it == running.end()) continue;
    std::unique_ptr<Transfer> t = std::move(running.extract(it).mapped());
    ForgetDeadline(*t);
    const bool refused_h2 = t->conn != nullptr && t->conn->refused_h2();
    t->conn = nullptr;
    t->stream = 0;
    if (refused_h2 && use_h2) {  // The server speaks HTTP/1.1 only: libcurl from now on.
      if (absl::Status st = UseCurl(); !st.ok()) {
        Complete(std::move(t), std::string(st.message()));
        continue;
      }
    }
    if (c.refused) {  // Never processed by the server: send it again at once.
      SendAgainAt(absl::Now(), std::move(t));
      continue;
    }
    Complete(std::move(t), c.error);
  }
  std::erase_if(conns, [&](const std::unique_ptr<H2Connection>& c) {
    return c->open_streams() == 0 && (c->Dead() || (!c->Usable() && c != conns.back()));
  });
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
        fmt::format("{} {}: {}", t->request.method, url_prefix + t->request.path, error);
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

void HttpClient::Loop::ReapFinished() {
  if (multi == nullptr) return;  // On the HTTP/2 transport.
  int queued = 0;
  while (CURLMsg* msg = Curl().multi_info_read(multi, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* raw = nullptr;
    Curl().easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &raw);
    CURLcode result = msg->data.result;
    Curl().multi_remove_handle(multi, msg->easy_handle);
    std::unique_ptr<Transfer> t = std::move(running.extract(raw->id).mapped());
    std::string error;
    if (result == CURLE_OK) {
      Curl().easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->response.status);
      t->retry_after = CurlHeader(t->easy, "Retry-After");
      t->flow_schema = CurlHeader(t->easy, "X-Kubernetes-PF-FlowSchema-UID");
    } else {
      error = t->error[0] != '\0' ? t->error : Curl().easy_strerror(result);
    }
    Complete(std::move(t), error);  // A retry keeps the handle.
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

absl::Status HttpClient::Loop::UseCurl() {
  if (multi == nullptr) {
    if (absl::StatusOr<const CurlFunctions*> curl = LoadCurl(); !curl.ok()) return curl.status();
    multi = Curl().multi_init();
    if (!connect_to_spec.empty())
      connect_to = Curl().slist_append(nullptr, connect_to_spec.c_str());
    Curl().multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    Curl().multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, Loop::OnSocket);
    Curl().multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
    Curl().multi_setopt(multi, CURLMOPT_TIMERFUNCTION, Loop::OnTimer);
    Curl().multi_setopt(multi, CURLMOPT_TIMERDATA, this);
  }
  use_h2 = false;
  return absl::OkStatus();
}

HttpClient::HttpClient(RestConfig config) : config_(std::move(config)) {}

absl::StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(const RestConfig& config,
                                                               HttpClientOptions options) {
  if (!config.server.starts_with("https://") && !config.server.starts_with("http://")) {
    return absl::InvalidArgumentError(
        fmt::format("server \"{}\": the URL must start with https://", config.server));
  }
  for (const std::string* f : {&config.ca_file, &config.cert_file, &config.key_file}) {
    if (!f->empty() && !std::ifstream(*f)) {
      return absl::NotFoundError(fmt::format("open {}: no such file or not readable", *f));
    }
  }
  auto client = std::unique_ptr<HttpClient>(new HttpClient(config));
  auto loop = std::make_unique<Loop>(client->config_);
  loop->url_prefix = config.server;
  loop->metrics = options.metrics;
  loop->coalesce = options.coalesce;
  loop->host = config.server.substr(config.server.find("://") + 3);
  loop->host = loop->host.substr(0, loop->host.find('/'));
  if (loop->wake_fd < 0)
    return absl::InternalError("eventfd: cannot make the I/O thread's wake-up");
  // ksched's own HTTP/2 transport for https:// servers, unless a proxy is configured (libcurl
  // follows the *_proxy variables, as client-go does; the transport does not) or
  // KSCHED_HTTP_TRANSPORT=curl asks for libcurl. It spends a quarter less CPU per pod than
  // libcurl (docs/performance.md).
  const char* transport = std::getenv("KSCHED_HTTP_TRANSPORT");
  bool proxy = false;
  for (const char* var : {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}) {
    const char* v = std::getenv(var);
    proxy = proxy || (v != nullptr && *v != '\0');
  }
  loop->use_h2 = config.server.starts_with("https://") && !proxy &&
                 (transport == nullptr || std::string_view(transport) != "curl");
  if (!config.tls_server_name.empty()) {
    // Ask for the server by the certificate's name, and connect to the configured address.
    const std::string& hostport = loop->host;
    size_t colon = hostport.rfind(':');
    std::string port = colon == std::string::npos ? "443" : hostport.substr(colon + 1);
    std::string host = hostport.substr(0, colon);
    loop->url_prefix = fmt::format("https://{}:{}", config.tls_server_name, port);
    loop->connect_to_spec = fmt::format("{}:{}:{}:{}", config.tls_server_name, port, host, port);
  }
  if (!loop->use_h2) {
    if (absl::Status st = loop->UseCurl(); !st.ok()) return st;
  }
  Loop* l = loop.get();
  loop->thread = std::thread([l, name = std::move(options.thread_name)] {
    NameThisThread(name);
    l->Run();
  });
  client->loop_ = std::move(loop);
  return client;
}

HttpClient::~HttpClient() {
  {
    absl::MutexLock lock(&loop_->mu);
    loop_->stopping = true;
  }
  loop_->Wake();
  loop_->thread.join();
  if (loop_->multi != nullptr) Curl().multi_cleanup(loop_->multi);
}

void HttpClient::Submit(HttpRequest request, std::function<void(std::string_view)> on_data,
                        std::function<void(HttpResponse)> done, bool rate_limited, uint64_t id) {
  auto t = std::make_unique<Transfer>();
  t->id = id;
  t->request = std::move(request);
  t->on_data = std::move(on_data);
  t->done = std::move(done);
  if (!t->on_data) {
    Loop* l = loop_.get();
    t->done = [l, done = std::move(t->done)](HttpResponse r) {
      if (done) done(std::move(r));
      absl::MutexLock lock(&l->mu);
      --l->requests;
    };
  }
  t->submitted = absl::Now();
  t->not_before = rate_limited ? loop_->bucket.Reserve(t->submitted) : absl::InfinitePast();

  const HttpRequest& r = t->request;
  t->fields = {{"accept", r.accept}, {"user-agent", config_.user_agent}};
  if (r.method != "GET") t->fields.emplace_back("content-type", r.content_type);
  if (std::string token = loop_->token.Get(); !token.empty()) {
    t->fields.emplace_back("authorization", "Bearer " + token);
  }

  // The I/O thread takes every request submitted when it wakes: only the first since then wakes
  // it, unless it wakes soon enough by itself (HttpClientOptions::coalesce).
  bool wake = true;
  {
    absl::MutexLock lock(&loop_->mu);
    if (!loop_->stopping) {
      if (!t->on_data) ++loop_->requests;
      wake = loop_->submitted.empty() && loop_->sleeps_until > t->submitted + loop_->coalesce;
      loop_->submitted.push_back(std::move(t));
      t = nullptr;
    }
  }
  if (t != nullptr) {
    if (!t->on_data) {
      absl::MutexLock lock(&loop_->mu);
      ++loop_->requests;  // Finish counts it out again.
    }
    loop_->FinishWithError(std::move(t), "client closed");
    return;
  }
  if (wake) loop_->Wake();
}

bool HttpClient::WaitIdle(absl::Duration timeout) {
  absl::MutexLock lock(&loop_->mu);
  return loop_->mu.AwaitWithTimeout(
      absl::Condition(
          +[](Loop* l) ABSL_NO_THREAD_SAFETY_ANALYSIS { return l->requests == 0; }, loop_.get()),
      timeout);
}

HttpResponse HttpClient::Call(HttpRequest request) {
  std::promise<HttpResponse> promise;
  std::future<HttpResponse> future = promise.get_future();
  Send(std::move(request), [&promise](HttpResponse r) { promise.set_value(std::move(r)); });
  return future.get();
}

void HttpClient::Send(HttpRequest request, std::function<void(HttpResponse)> done) {
  Submit(std::move(request), nullptr, std::move(done), /*rate_limited=*/true,
         next_id_.fetch_add(1));
}

std::shared_ptr<HttpClient::Stream> HttpClient::Watch(HttpRequest request,
                                                      std::function<void(std::string_view)> on_data,
                                                      std::function<void(HttpResponse)> done) {
  auto stream = std::make_shared<Stream>();
  stream->client_ = this;
  stream->id_ = next_id_.fetch_add(1);
  Submit(std::move(request), std::move(on_data), std::move(done), /*rate_limited=*/false,
         stream->id_);
  return stream;
}

void HttpClient::Stream::Cancel() {
  {
    absl::MutexLock lock(&client_->loop_->mu);
    client_->loop_->cancelled.push_back(id_);
  }
  client_->loop_->Wake();
}

}  // namespace ksched::client
