// GET on the HTTPS port a ksched process serves (/metrics, /healthz, /configz), as a scraper or a
// probe would, trusting its self-signed certificate.
//
//   httplib::Result r = ServeHttps(secure_port_, "/metrics");
//   double n = Sample(r->body, R"(scheduler_pending_pods{queue="active"})");
#pragma once

#include <httplib.h>

#include <string>

namespace ksched::testing {

// `token`, if not empty, goes as a bearer token.
inline httplib::Result ServeHttps(int port, const std::string& path,
                                  const std::string& token = "") {
  httplib::SSLClient client("127.0.0.1", port);
  client.enable_server_certificate_verification(false);  // ksched's self-signed certificate.
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return client.Get(path, headers);
}

}  // namespace ksched::testing
