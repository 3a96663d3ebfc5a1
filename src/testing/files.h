// Test-only access to files in the source tree (fixtures, examples, scenarios).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace ksched::testing {

// The absolute path of `relative`, a path from the repository root.
inline std::string SourcePath(const std::string& relative) {
  return std::string(KSCHED_SOURCE_DIR) + "/" + relative;
}

// The whole content of a file from the repository root, or "" if it can't be read.
inline std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(SourcePath(relative), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ksched::testing
