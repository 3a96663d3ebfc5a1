// ShutdownSignals: SIGTERM and SIGINT, taken by one thread of their own, as the signal that a
// server must stop (kube-scheduler's SetupSignalHandler).
//
//   ShutdownSignals signals;   // first thing in main: blocks them in every thread started later
//   ...
//   signals.Start();
//   while (!signals.received()) ScheduleOne();
//
// Thread safety: received() from any thread; construct, Start and destroy on one thread.
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

namespace ksched {

class ShutdownSignals {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread; threads it starts later inherit the mask.
  ShutdownSignals();
  // Ends the waiting thread (by raising SIGTERM if none came) and joins it.
  ~ShutdownSignals();
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // Starts the thread that waits for a signal; on one, it logs it and received() turns true.
  void Start();
  const std::atomic<bool>& received() const { return received_; }

 private:
  sigset_t signals_;
  std::atomic<bool> received_{false};
  std::atomic<bool> ending_{false};  // The destructor raised the signal itself.
  std::thread waiter_;
};

}  // namespace ksched
