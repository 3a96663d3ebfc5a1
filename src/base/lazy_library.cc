#include "src/base/lazy_library.h"

#include <dlfcn.h>

#include "fmt/format.h"

namespace ksched {

absl::Status LazyLibrary::Open() {
  absl::call_once(once_, [this] {
    // RTLD_LOCAL: its names serve only the functions looked up here. Never closed.
    handle_ = dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = fmt::format("{} cannot be loaded ({}), and ksched needs it for {}", soname_,
                           why != nullptr ? why : "no reason given", needed_for_);
    }
  });
  return handle_ != nullptr ? absl::OkStatus() : absl::FailedPreconditionError(error_);
}

void* LazyLibrary::Symbol(const char* name) const {
  return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
}

bool LazyLibrary::IsLoaded(const std::string& soname) {
  void* handle = dlopen(soname.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);  // Drops the reference RTLD_NOLOAD took.
  return true;
}

}  // namespace ksched
