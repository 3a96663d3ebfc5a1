// libcurl, opened with dlopen when the first client that needs it is made
// (src/base/lazy_library.h): the transport for servers behind a proxy, over plain HTTP, or with
// KSCHED_HTTP_TRANSPORT=curl. Most processes never open it.
//
//   if (absl::StatusOr<const CurlFunctions*> curl = LoadCurl(); !curl.ok()) return curl.status();
//   CURL* e = Curl().easy_init();
//
// Thread safety: LoadCurl may be called from any thread; the functions are libcurl's.
#pragma once

#include <curl/curl.h>

#include <string>

#include "absl/status/statusor.h"

namespace ksched::client {

// The libcurl functions the curl transport calls, each looked up by name when libcurl opens.
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
absl::StatusOr<const CurlFunctions*> LoadCurl();

// The functions, where LoadCurl() succeeded before: on the curl transport's paths only.
inline const CurlFunctions& Curl() { return **LoadCurl(); }

// A response header of a libcurl transfer, or "".
std::string CurlHeader(CURL* easy, const char* name);

}  // namespace ksched::client
