// The request engine's HTTP/2 transport (request_engine.h): requests as streams of ksched's own
// connections (src/client/h2.h), a new connection once the last stops taking streams, and the
// requests' timeouts.
#include <charconv>

#include "fmt/format.h"
#include "src/client/request_engine.h"

namespace ksched::client {

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

}  // namespace ksched::client
