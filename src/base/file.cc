#include "src/base/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "fmt/format.h"

namespace ksched {
namespace {

// The system's reason in Go's words, which are strerror's in lower case.
std::string Reason(int err) {
  std::string reason = std::strerror(err);
  if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(reason[0]));
  return reason;
}

absl::Status Failed(const char* op, const std::string& path, int err) {
  std::string message = fmt::format("{} {}: {}", op, path, Reason(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case EISDIR:
      return absl::FailedPreconditionError(message);
    default:
      return absl::UnavailableError(message);
  }
}

// A descriptor closed when it goes out of scope.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return Failed("open", path, errno);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failed("read", path, errno);
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

absl::Status CheckReadable(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return Failed("open", path, errno);
  return absl::OkStatus();
}

}  // namespace ksched
