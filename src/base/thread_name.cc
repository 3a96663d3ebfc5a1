#include "src/base/thread_name.h"

#include <pthread.h>

#include <string>

namespace ksched {

void NameThisThread(std::string_view name) {
  constexpr size_t kMax = 15;  // The kernel's TASK_COMM_LEN, less the NUL.
  const std::string cut(name.substr(0, kMax));
  pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace ksched
