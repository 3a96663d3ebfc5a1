#include "src/client/token_source.h"

#include <fstream>
#include <sstream>

#include "absl/time/clock.h"

namespace ksched::client {

std::string TokenSource::Get() {
  absl::MutexLock lock(&mu_);
  if (file_.empty()) return token_;
  absl::Time now = absl::Now();
  if (now - read_at_ >= absl::Minutes(1)) {
    std::ifstream in(file_);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string t = ss.str();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (in || !t.empty()) token_ = t;  // Keep the old token when the file can't be read.
    read_at_ = now;
  }
  return token_;
}

}  // namespace ksched::client
