#include "src/client/http.h"

#include <cstdlib>
#include <future>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "nlohmann/json.hpp"
#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/thread_name.h"
#include "src/client/request_engine.h"

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

HttpClient::HttpClient(RestConfig config) : config_(std::move(config)) {}

absl::StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(const RestConfig& config,
                                                               HttpClientOptions options) {
  if (!config.server.starts_with("https://") && !config.server.starts_with("http://")) {
    return absl::InvalidArgumentError(
        fmt::format("server \"{}\": the URL must start with https://", config.server));
  }
  for (const std::string* f : {&config.ca_file, &config.cert_file, &config.key_file}) {
    if (!f->empty()) KSCHED_RETURN_IF_ERROR(CheckReadable(*f));
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
  t->submitted = absl::Now() + t->request.delay;
  t->not_before = rate_limited ? loop_->bucket.Reserve(t->submitted) : absl::InfinitePast();
  if (t->request.delay > absl::ZeroDuration())
    t->not_before = std::max(t->not_before, t->submitted);

  const HttpRequest& r = t->request;
  t->fields = {{"accept", r.accept}, {"user-agent", config_.user_agent}};
  if (r.method != "GET") t->fields.emplace_back("content-type", r.content_type);
  if (std::string token = loop_->token.Get(); !token.empty()) {
    t->fields.emplace_back("authorization", "Bearer " + token);
  }

  // The I/O thread takes every request submitted when it wakes: only the first since then wakes
  // it, unless it wakes soon enough by itself (HttpClientOptions::coalesce). A request that the
  // I/O thread submits itself, from an answer's callback, wakes nothing: the thread takes it as
  // soon as the callbacks are done, before it sleeps again.
  bool wake = std::this_thread::get_id() != loop_->thread.get_id();
  {
    absl::MutexLock lock(&loop_->mu);
    if (!loop_->stopping) {
      if (!t->on_data) ++loop_->requests;
      wake =
          wake && loop_->submitted.empty() && loop_->sleeps_until > t->submitted + loop_->coalesce;
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

bool HttpClient::WaitForFewer(int n, absl::Duration timeout) {
  struct Below {
    Loop* loop;
    int n;
  } below{loop_.get(), n};
  absl::MutexLock lock(&loop_->mu);
  return loop_->mu.AwaitWithTimeout(
      absl::Condition(
          +[](Below* b) ABSL_NO_THREAD_SAFETY_ANALYSIS { return b->loop->requests < b->n; },
          &below),
      timeout);
}

bool HttpClient::OnIoThread() const { return std::this_thread::get_id() == loop_->thread.get_id(); }

int HttpClient::io_thread_held() const { return loop_->held.load(std::memory_order_relaxed); }

HttpResponse HttpClient::Call(HttpRequest request) {
  if (OnIoThread()) {
    // The answer would come through this very thread, which would be waiting for it: a deadlock
    // of every request and watch, which would leave the scheduler alive and deaf.
    HttpResponse r{.transport_error = fmt::format(
                       "HttpClient::Call on the client's I/O thread, which would wait for itself "
                       "({} {}): code run there (a callback, a watch handler, a PreEnqueue "
                       "plugin, a queueing hint) must not block",
                       request.method, request.path)};
    KLOG_ERROR("Blocking call on the HTTP client's I/O thread refused", {"err", r.transport_error});
    return r;
  }
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
