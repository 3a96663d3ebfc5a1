// Names the calling thread, as `top -H`, `perf report --sort comm` and /proc/<pid>/task/*/comm
// show it. Linux keeps 15 characters; a longer name is cut.
//
//   std::thread([] { NameThisThread("ksched-bind"); ... });
#pragma once

#include <string_view>

namespace ksched {

void NameThisThread(std::string_view name);

}  // namespace ksched
