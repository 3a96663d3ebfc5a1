// TokenSource: the bearer token of a kubeconfig or a service account, fixed or read from its
// file and read again once a minute, as client-go's cachingTokenSource, so that a rotated
// service-account token is picked up.
//
// Thread safety: Get may be called from any thread.
#pragma once

#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace ksched::client {

class TokenSource {
 public:
  TokenSource(std::string token, std::string file)
      : token_(std::move(token)), file_(std::move(file)) {}

  // The token to send now.
  std::string Get();

 private:
  absl::Mutex mu_;
  std::string token_ ABSL_GUARDED_BY(mu_);
  const std::string file_;
  absl::Time read_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace ksched::client
