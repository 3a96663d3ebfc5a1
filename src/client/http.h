// HttpClient: the transport to kube-apiserver. One I/O thread drives every transfer, so that many
// requests (binds, events, status patches) and the watch streams share one HTTP/2 connection, as
// client-go shares one. To an https:// server that speaks HTTP/2 they go on ksched's own transport
// (src/client/h2.h: nghttp2 and OpenSSL, with client-go's PING health check); to others, behind an
// https_proxy/all_proxy variable, or with KSCHED_HTTP_TRANSPORT=curl, on libcurl's multi
// interface, which spends more CPU (see Create).
//
//   auto http = HttpClient::Create(rest_config);
//   HttpResponse r = (*http)->Call({.method = "GET", .path = "/api/v1/nodes"});
//   if (!r.ok()) return r.ToStatus();   // the API's message: pods "x" not found
//
// Requests other than watches pass a client-side rate limit (qps, burst), as client-go's token
// bucket; a request waits for its turn, and never fails for it. A wait over 1 s is logged, as
// client-go logs it ("Waited before sending request"): once a second at -v=2, else once in 10 s.
//
// Thread safety: every method may be called from any thread. Callbacks run on the I/O thread and
// must not block; Call() from the I/O thread (a callback, a watch handler run there, and so the
// PreEnqueue plugins and queueing hints the pod and claim handlers run) would wait for an answer
// only that thread can bring: it fails at once instead, and the error is logged.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/client/rest_config.h"
#include "src/metrics/metrics.h"

namespace ksched::client {

// client-go's rest_client_* metrics (k8s.io/component-base/metrics/prometheus/restclient), kept
// by every HttpClient given them: a request's wait in the client-side rate limit, its whole
// duration (waits and retries included) and final answer, and each retry.
//
//   client::RestClientMetrics rest_metrics(registry);
//   auto http = client::HttpClient::Create(rest_config, &rest_metrics);
class RestClientMetrics {
 public:
  explicit RestClientMetrics(metrics::Registry& registry);

 private:
  friend class HttpClient;
  metrics::HistogramFamily& rate_limiter_duration;  // {verb, host}
  metrics::HistogramFamily& request_duration;       // {verb, host}
  metrics::CounterFamily& requests;                 // {code, method, host}
  metrics::CounterFamily& retries;                  // {code, verb, host}
};

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // From the server's root, query included: "/api/v1/pods?limit=500".
  std::string body;
  std::string content_type = "application/json";
  // The media type asked for (kube-scheduler's own client asks for
  // "application/vnd.kubernetes.protobuf"); ksched decodes only JSON.
  std::string accept = "application/json";
  // Total time allowed; zero means none (watches end by the server's timeoutSeconds).
  absl::Duration timeout = absl::Seconds(30);
  // How long after Send the request is due (then it passes the rate limit): a retry's pause that
  // holds no thread.
  absl::Duration delay = absl::ZeroDuration();
  // How many times to send the request again when no answer came (a transport error), each after
  // retry_delay to 1.25 times it, as client-go's event sink retries. An answer is final, and so is
  // the client's close; whatever `retries` says, a 429 or 5xx answer with a Retry-After header
  // (API Priority and Fairness sheds load so) is sent again after the seconds it names, up to 10
  // times, as client-go does.
  int retries = 0;
  absl::Duration retry_delay = absl::Seconds(10);
  // Whether `retries` also covers answers of 500 and more without Retry-After: the server could
  // not do it just then (its etcd was down). Only for writes that may safely go twice.
  bool retry_server_errors = false;
  // Checked on the I/O thread right before the request goes out, after any wait for the rate
  // limit or a retry: a failure ends the request unsent (status 0, the guard's message as
  // transport_error). Must not block. The leader's fence for binds and evictions.
  std::function<absl::Status()> guard;
};

struct HttpResponse {
  long status = 0;  // The HTTP status; 0 when no answer came (transport_error says why).
  std::string body;
  std::string transport_error;

  bool ok() const { return status >= 200 && status < 300; }
  // OK for 2xx. Otherwise the API's metav1.Status message when the body holds one, or the
  // transport's error, with a code that matches the HTTP status (404 NotFound, 409 AlreadyExists,
  // 410 OutOfRange for an expired resourceVersion, 5xx and no answer Unavailable, ...).
  absl::Status ToStatus() const;
};

struct HttpClientOptions {
  // The rest_client_* metrics are kept here when given; it must outlive the client.
  RestClientMetrics* metrics = nullptr;
  // The I/O thread's name.
  std::string thread_name = "ksched-http";
  // How long a request or an answer may wait so that the I/O thread wakes once for several:
  // while requests are on the way it wakes on a tick this far apart, and a new request does not
  // wake it sooner. For clients that carry hundreds of requests a second (ksched's API and events
  // clients): each wake-up is two context switches. Zero: it is woken at once.
  absl::Duration coalesce = absl::ZeroDuration();
};

class HttpClient {
 public:
  // Checks the configuration (the files it names must be readable) and starts the I/O thread.
  static absl::StatusOr<std::unique_ptr<HttpClient>> Create(const RestConfig& config,
                                                            HttpClientOptions options = {});
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  // Ends every transfer in flight (their callbacks run with transport_error "client closed") and
  // joins the I/O thread.
  ~HttpClient();

  // Sends the request and waits for the whole response. On the I/O thread: no request is sent, and
  // the response has transport_error "HttpClient::Call on the client's I/O thread ...".
  HttpResponse Call(HttpRequest request);
  // Sends the request; `done` runs on the I/O thread once the response is complete.
  void Send(HttpRequest request, std::function<void(HttpResponse)> done);

  // A streamed response (a watch). Cancel() ends it early; `done` still runs, once. Cancel() does
  // not wait: `on_data` and `done` may run on the I/O thread after it returns, so what they use
  // must live until `done` has run (a shared state, or an owner that waits for `done`).
  class Stream {
   public:
    void Cancel();

   private:
    friend class HttpClient;
    HttpClient* client_ = nullptr;
    uint64_t id_ = 0;
  };
  // Sends a request whose body is handed to `on_data` in chunks as they arrive; `done` gets the
  // status (and the body, when the answer was not 2xx) at the end. Not rate limited.
  std::shared_ptr<Stream> Watch(HttpRequest request, std::function<void(std::string_view)> on_data,
                                std::function<void(HttpResponse)> done);

  // Waits until no request is pending or in flight (watches aside), up to `timeout`. Returns
  // whether that happened.
  bool WaitIdle(absl::Duration timeout) { return WaitForFewer(1, timeout); }
  // Waits until fewer than `n` requests are pending or in flight (watches aside), up to
  // `timeout`. Returns whether that happened.
  bool WaitForFewer(int n, absl::Duration timeout);

  const RestConfig& config() const { return config_; }
  // Whether the caller runs on this client's I/O thread (a callback, or a handler run there).
  bool OnIoThread() const;
  // How often something that ran on the I/O thread held it for a second or more (each is logged
  // as an error): a handler that blocked, which stalls every request and watch of the client.
  int io_thread_held() const;

 private:
  struct Loop;
  explicit HttpClient(RestConfig config);
  void Submit(HttpRequest request, std::function<void(std::string_view)> on_data,
              std::function<void(HttpResponse)> done, bool rate_limited, uint64_t id);

  RestConfig config_;
  std::unique_ptr<Loop> loop_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace ksched::client
