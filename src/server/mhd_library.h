// libmicrohttpd and GnuTLS, opened with dlopen when a server first starts
// (src/base/lazy_library.h): with --secure-port=0, never.
//
//   if (absl::StatusOr<const MhdFunctions*> mhd = LoadMhd(); !mhd.ok()) return mhd.status();
//   Mhd().stop_daemon(daemon);
//
// Thread safety: LoadMhd may be called from any thread; the functions are the libraries'.
#pragma once

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "absl/status/statusor.h"

namespace ksched::server {

// The libmicrohttpd functions the server calls, and GnuTLS's one (the client's certificates),
// each looked up by name.
// clang-format off
#define KSCHED_MHD_FUNCTIONS(X)                                                                   \
  X(start_daemon) X(stop_daemon)                                                                  \
  X(lookup_connection_value) X(lookup_connection_value_n) X(get_connection_info)                  \
  X(create_response_from_buffer) X(add_response_header) X(queue_response) X(destroy_response)
// clang-format on

struct MhdFunctions {
// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is the declared member.
#define KSCHED_MHD_MEMBER(name) decltype(&::MHD_##name) name = nullptr;
  KSCHED_MHD_FUNCTIONS(KSCHED_MHD_MEMBER)
#undef KSCHED_MHD_MEMBER
  decltype(&::gnutls_certificate_get_peers) gnutls_certificate_get_peers = nullptr;
};

// libmicrohttpd and GnuTLS, opened and their functions looked up, once.
absl::StatusOr<const MhdFunctions*> LoadMhd();

// The functions, where LoadMhd() succeeded before: once a server started.
inline const MhdFunctions& Mhd() { return **LoadMhd(); }

}  // namespace ksched::server
