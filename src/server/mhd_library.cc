#include "src/server/mhd_library.h"

#include <type_traits>

#include "src/base/lazy_library.h"

namespace ksched::server {

absl::StatusOr<const MhdFunctions*> LoadMhd() {
  static const absl::StatusOr<const MhdFunctions*> loaded =
      []() -> absl::StatusOr<const MhdFunctions*> {
    static LazyLibrary mhd("libmicrohttpd.so.12", "the secure port (--secure-port)");
    static LazyLibrary gnutls("libgnutls.so.30", "the secure port's client certificates");
    for (LazyLibrary* library : {&mhd, &gnutls}) {
      if (absl::Status st = library->Open(); !st.ok()) return st;
    }
    static MhdFunctions f;
#define KSCHED_MHD_LOOKUP(name)                                                    \
  f.name = mhd.Function<std::remove_pointer_t<decltype(f.name)>>("MHD_" #name);    \
  if (f.name == nullptr) {                                                         \
    return absl::FailedPreconditionError("libmicrohttpd.so.12 has no MHD_" #name); \
  }
    KSCHED_MHD_FUNCTIONS(KSCHED_MHD_LOOKUP)
#undef KSCHED_MHD_LOOKUP
    f.gnutls_certificate_get_peers =
        gnutls.Function<decltype(::gnutls_certificate_get_peers)>("gnutls_certificate_get_peers");
    if (f.gnutls_certificate_get_peers == nullptr) {
      return absl::FailedPreconditionError("libgnutls.so.30 has no gnutls_certificate_get_peers");
    }
    return &f;
  }();
  return loaded;
}

}  // namespace ksched::server
