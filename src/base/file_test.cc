#include "src/base/file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace ksched {
namespace {

TEST(ReadFileTest, ReadsTheWholeFileAndSaysWhyItCannot) {
  const std::string dir = ::testing::TempDir() + "/read_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/pods.yaml";
  std::string big(200000, 'x');
  std::ofstream(path) << big;
  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, big);

  absl::StatusOr<std::string> missing = ReadFile(dir + "/none.yaml");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "open " + dir + "/none.yaml: no such file or directory");
  EXPECT_EQ(CheckReadable(dir + "/none.yaml"), missing.status());

  absl::StatusOr<std::string> folder = ReadFile(dir);
  EXPECT_EQ(folder.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(folder.status().message(), "read " + dir + ": is a directory");

  if (::geteuid() != 0) {  // root reads any file.
    ::chmod(path.c_str(), 0);
    EXPECT_EQ(ReadFile(path).status().message(), "open " + path + ": permission denied");
  }
}

}  // namespace
}  // namespace ksched
