// Reading a whole file, with one wording for a file that cannot be read: Go's os.ReadFile, which
// kube-scheduler and kubectl print, "open <path>: <the system's reason>":
//
//   absl::StatusOr<std::string> text = ReadFile("pods.yaml");
//   // NotFound "open pods.yaml: no such file or directory"
//   // PermissionDenied "open /etc/shadow: permission denied"
//   // FailedPrecondition "read /tmp: is a directory"
//
// Thread safety: reentrant.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ksched {

// The whole of the file at `path`. A missing file is NotFound, one the process may not read
// PermissionDenied, a directory FailedPrecondition; the message is as above.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// OK when ReadFile(path) could open the file, else the error it would give.
absl::Status CheckReadable(const std::string& path);

}  // namespace ksched
