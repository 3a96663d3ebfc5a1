// The request engine's libcurl transport (request_engine.h): a multi handle driven by the I/O
// thread's poll(), easy handles kept set up for the server, and their answers read back.
#include <algorithm>

#include "fmt/format.h"
#include "src/client/go_errors.h"
#include "src/client/request_engine.h"

namespace ksched::client {
namespace {

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  Curl().easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->response.status);
  t->Received(std::string_view(data, len));
  return len;
}

}  // namespace

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
    // gzip alone, as Go's transport asks: offered brotli too, a cpp-httplib server (a test
    // extender, say) answers at brotli's slowest quality, 40 ms for 60 KB.
    Curl().easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip");
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
      // Go's words where the connect failed (libcurl names no address then: the URL's).
      long os_errno = 0;
      if (result == CURLE_COULDNT_CONNECT &&
          Curl().easy_getinfo(t->easy, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK && os_errno != 0) {
        const bool has_port = host.find(':', host.rfind(']') + 1) != std::string::npos;
        const bool tls = url_prefix.starts_with("https://");
        error = GoDialError(has_port ? host : host + (tls ? ":443" : ":80"),
                            static_cast<int>(os_errno));
      }
    }
    Complete(std::move(t), error);  // A retry keeps the handle.
  }
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

}  // namespace ksched::client
