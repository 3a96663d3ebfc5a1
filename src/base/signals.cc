#include "src/base/signals.h"

#include <unistd.h>

#include "src/base/log.h"
#include "src/base/thread_name.h"

namespace ksched {

ShutdownSignals::ShutdownSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

ShutdownSignals::~ShutdownSignals() {
  if (!waiter_.joinable()) return;
  if (!received_) {
    ending_ = true;
    kill(getpid(), SIGTERM);  // Pending for the process, so sigwait takes it.
  }
  waiter_.join();
}

void ShutdownSignals::Start() {
  waiter_ = std::thread([this] {
    NameThisThread("ksched-signals");
    int sig = 0;
    sigwait(&signals_, &sig);
    if (!ending_) KLOG(0, "Received a signal; shutting down", {"signal", sig});
    received_ = true;
  });
}

}  // namespace ksched
