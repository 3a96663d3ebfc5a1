// `make image` on this machine class, with no registry: scripts/image.sh gathers the built binary
// and its Debian libraries and podman builds Containerfile. The image must run `ksched version`, a
// DRA simulation (which loads the CEL library) and a Coscheduling one (with the plugin library the
// image carries, as the Helm chart loads it) inside it, as user 65532, with no shell or
// package manager in it. Its size is reported. Commands inside the image run as RUN steps of a
// build (chroot isolation), which needs no privileged engine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "absl/cleanup/cleanup.h"
#include "nlohmann/json.hpp"
#include "src/testing/command.h"

namespace ksched {
namespace {

using testing::CommandResult;
using testing::RunCommand;

const std::string kImage = "localhost/ksched:image-test";
const std::string kSource = KSCHED_SOURCE_DIR;

TEST(ImageTest, TheImageRunsKschedAsANonRootUserWithNothingElseInIt) {
  CommandResult made = RunCommand({kSource + "/scripts/image.sh", KSCHED_BUILD_DIR, kImage});
  ASSERT_EQ(made.exit_code, 0) << made.out << made.err;

  // ksched inside it says what the binary outside says, and simulates the README's DRA example.
  const std::string check = ::testing::TempDir() + "/image-check";
  std::filesystem::create_directories(check);
  std::filesystem::copy_file(kSource + "/examples/demo/nodes.yaml", check + "/nodes.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(kSource + "/examples/dra/gpus.yaml", check + "/gpus.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  for (const char* f : {"config.yaml", "cluster.yaml"}) {
    std::filesystem::copy_file(kSource + "/examples/coscheduling/" + f,
                               check + "/coscheduling-" + f,
                               std::filesystem::copy_options::overwrite_existing);
  }
  std::ofstream(check + "/Containerfile")
      << "FROM " << kImage << "\n"
      << "COPY nodes.yaml gpus.yaml coscheduling-config.yaml coscheduling-cluster.yaml /examples/\n"
      << "RUN [\"/usr/local/bin/ksched\", \"version\", \"-o\", \"json\"]\n"
      << "RUN [\"/usr/local/bin/ksched\", \"simulate\", \"/examples/nodes.yaml\", "
         "\"/examples/gpus.yaml\"]\n"
      << "RUN [\"/usr/local/bin/ksched\", \"simulate\", \"--plugin-library\", "
         "\"/usr/local/lib/ksched/plugins/libksched_coscheduling.so\", \"--config\", "
         "\"/examples/coscheduling-config.yaml\", \"/examples/coscheduling-cluster.yaml\"]\n";
  // The check's own image is removed afterwards, so that runs do not pile images up.
  const std::string iid = check + "/iid";
  std::filesystem::remove(iid);
  absl::Cleanup remove_check = [&iid] {
    std::ifstream in(iid);
    std::string id;
    if (in >> id) RunCommand({"podman", "rmi", "--force", id});
  };
  CommandResult ran = RunCommand({"podman", "build", "--isolation=chroot", "--no-cache",
                                  "--iidfile", iid, "-f", check + "/Containerfile", check});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  const std::string log = ran.out + ran.err;
  const size_t open = log.find("{\n"), close = log.find("\n}");
  ASSERT_NE(open, std::string::npos) << log;
  CommandResult outside = RunCommand({KSCHED_BUILD_DIR "/ksched", "version", "-o", "json"});
  EXPECT_EQ(nlohmann::json::parse(log.substr(open, close + 2 - open), nullptr, false),
            nlohmann::json::parse(outside.out));
  EXPECT_NE(log.find("default    trainer-0  Scheduled      node-gpu"), std::string::npos) << log;
  EXPECT_NE(log.find("default    train-0  Scheduled      a"), std::string::npos) << log;
  EXPECT_EQ(log.find("cannot be loaded"), std::string::npos) << log;

  CommandResult user =
      RunCommand({"podman", "image", "inspect", kImage, "--format", "{{.Config.User}} {{.Size}}"});
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_TRUE(user.out.starts_with("65532:65532 ")) << user.out;
  const double mib = std::stod(user.out.substr(12)) / (1 << 20);
  std::printf("image %s: %.1f MiB\n", kImage.c_str(), mib);
  RecordProperty("image_mib", static_cast<int>(mib));

  // What is in it: ksched and libraries, no shell, no package manager.
  CommandResult created = RunCommand({"podman", "create", "--name", "ksched-image-test", kImage});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  CommandResult files = RunCommand(
      {"bash", "-c", "podman export ksched-image-test | tar -t; podman rm ksched-image-test"});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_NE(files.out.find("usr/local/bin/ksched\n"), std::string::npos) << files.out;
  for (const char* absent : {"bin/sh\n", "bin/bash\n", "bin/dash\n", "usr/bin/dpkg\n",
                             "usr/bin/apt\n", "usr/bin/apt-get\n"}) {
    EXPECT_EQ(files.out.find(absent), std::string::npos) << absent << " is in the image";
  }
}

}  // namespace
}  // namespace ksched
