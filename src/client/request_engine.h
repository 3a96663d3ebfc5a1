// The request engine behind HttpClient (src/client/http.h), for the client's own files only: the
// I/O thread that takes submitted requests, holds them to the rate limit and to their retry
// times, starts them on a transport, and finishes them with their answer.
//
// - request_engine.cc: the I/O loop, and the retry rules: Retry-After answers (429, 5xx), sent
//   again up to client-go's 10 times; transport errors and, where the request asks, 5xx answers,
//   sent again as the request allows; the rest_client_* metrics of each attempt.
// - h2_transport.cc: requests on ksched's own HTTP/2 connections (src/client/h2.h).
// - curl_transport.cc: requests on libcurl (src/client/curl_library.h).
// - rate_limiter.h, token_source.h: the rate limit, and the bearer token.
//
// Thread safety: Loop's members marked ABSL_GUARDED_BY(mu) are shared with the threads that submit
// and cancel; every other member belongs to the I/O thread.
#pragma once

#include <curl/curl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "src/client/curl_library.h"
#include "src/client/h2.h"
#include "src/client/http.h"
#include "src/client/rate_limiter.h"
#include "src/client/token_source.h"

namespace ksched::client {

// One request, from Submit to its callback, across its retries.
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
  // How often the I/O thread was held for kHeldLimit or more between two polls: by a handler
  // that blocked (HttpClient::io_thread_held).
  static constexpr absl::Duration kHeldLimit = absl::Seconds(1);
  std::atomic<int> held{0};
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
  // Checks what ran on the I/O thread since its last poll (`awake` long): past kHeldLimit, what
  // waited for it (every request's answer, every watch) waited as long, so it is logged.
  void CheckHeld(absl::Duration awake);
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

}  // namespace ksched::client
