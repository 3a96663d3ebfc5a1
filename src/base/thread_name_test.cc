#include "src/base/thread_name.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <string>
#include <thread>

namespace ksched {
namespace {

std::string NameOf(std::thread& t) {
  char buf[32] = {};
  pthread_getname_np(t.native_handle(), buf, sizeof buf);
  return buf;
}

TEST(ThreadNameTest, AThreadIsShownByItsNameCutToFifteenCharacters) {
  std::atomic<int> named = 0;
  std::atomic<bool> done = false;
  std::thread short_name([&] {
    NameThisThread("ksched-bind");
    ++named;
    while (!done) std::this_thread::yield();
  });
  std::thread long_name([&] {
    NameThisThread("watch-persistentvolumeclaims");
    ++named;
    while (!done) std::this_thread::yield();
  });
  while (named < 2) std::this_thread::yield();
  EXPECT_EQ(NameOf(short_name), "ksched-bind");
  EXPECT_EQ(NameOf(long_name), "watch-persisten");
  done = true;
  short_name.join();
  long_name.join();
}

}  // namespace
}  // namespace ksched
