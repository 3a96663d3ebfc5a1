#include "src/client/curl_library.h"

#include <type_traits>

#include "src/base/lazy_library.h"

namespace ksched::client {

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

std::string CurlHeader(CURL* easy, const char* name) {
  curl_header* h = nullptr;
  return Curl().easy_header(easy, name, 0, CURLH_HEADER, -1, &h) == CURLHE_OK ? h->value : "";
}

}  // namespace ksched::client
