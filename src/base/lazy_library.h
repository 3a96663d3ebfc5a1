// LazyLibrary: a shared library that ksched opens when it first needs it, rather than at start-up.
//
// A library linked the usual way (DT_NEEDED) is mapped at start-up with every library it needs,
// and its pages become resident whether or not it is ever called. libcurl (the HTTP transport for
// proxies and plain-HTTP servers) and libmicrohttpd with GnuTLS (the serving port) bring about 4
// MiB of resident libraries that a scheduler with neither never runs. GNU ld has no lazy loading
// (Solaris' -z lazyload) and Debian ships no stubs for these libraries, so this is hand-written: a
// dlopen by soname on first use, and the functions looked up by name, typed from the library's
// own header.
//
//   LazyLibrary curl("libcurl.so.4", "the HTTP transport for proxies");
//   absl::Status st = curl.Open();        // the first call opens it; later calls return the same
//   auto* init = curl.Function<decltype(curl_easy_init)>("curl_easy_init");  // after Open()
//
// Thread safety: Open() may be called from any thread; Function() after Open() returned OK.
#pragma once

#include <string>
#include <utility>

#include "absl/base/call_once.h"
#include "absl/status/status.h"

namespace ksched {

class LazyLibrary {
 public:
  // `soname` as dlopen takes it ("libcurl.so.4"); `needed_for` says what ksched needs it for, in
  // the error when it cannot be opened.
  LazyLibrary(std::string soname, std::string needed_for)
      : soname_(std::move(soname)), needed_for_(std::move(needed_for)) {}
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  // Opens the library, once; it stays open for the life of the process. The error names the
  // library, what it is needed for, and dlerror()'s reason.
  absl::Status Open();

  // The function `name` of the opened library, as type F (a function type, from the library's
  // header); nullptr when the library has no such function.
  template <typename F>
  F* Function(const char* name) const {
    return reinterpret_cast<F*>(Symbol(name));
  }

  // Whether the library is mapped into the process, by this class or anyone else.
  static bool IsLoaded(const std::string& soname);

 private:
  void* Symbol(const char* name) const;

  const std::string soname_;
  const std::string needed_for_;
  absl::once_flag once_;
  void* handle_ = nullptr;  // Set once by Open().
  std::string error_;       // Open()'s failure, once.
};

}  // namespace ksched
