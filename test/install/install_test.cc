// A user's own scheduler against the installed SDK: `cmake --install` into a temporary prefix,
// examples/out-of-tree built with find_package(ksched), and the binary run: the whole ksched
// command line, with the example's OnlyLabeled plugin and its typed args.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "src/testing/command.h"

namespace ksched::testing {
namespace {

const std::string kExample = std::string(KSCHED_SOURCE_DIR) + "/examples/out-of-tree";

class InstallTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/ksched-install-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const std::string prefix = dir_ + "/prefix", build = dir_ + "/build";
    for (const auto& argv : std::vector<std::vector<std::string>>{
             {CMAKE_COMMAND, "--install", KSCHED_BUILD_DIR, "--prefix", prefix},
             {CMAKE_COMMAND, "-S", kExample, "-B", build, "-G", "Ninja",
              "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"},
             {CMAKE_COMMAND, "--build", build}}) {
      CommandResult r = RunCommand(argv);
      if (r.exit_code != 0) {
        setup_error_ = argv[1] + " failed:\n" + r.out + r.err;
        return;
      }
    }
    binary_ = build + "/my-scheduler";
  }
  static void TearDownTestSuite() { (void)RunCommand({"rm", "-rf", dir_}); }

  void SetUp() override { ASSERT_EQ(setup_error_, ""); }

  static inline std::string dir_, binary_, setup_error_;
};

TEST_F(InstallTest, TheOwnSchedulerPlacesPodsWithItsCompiledInPlugin) {
  CommandResult r = RunCommand(
      {binary_, "simulate", "--config", kExample + "/config.yaml", kExample + "/cluster.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "NAMESPACE  NAME   STATUS     NODE   MESSAGE\n"
            "default    train  Scheduled  gpu-1  \n");
}

TEST_F(InstallTest, ItIsTheWholeKschedCommandLineWithThePluginsArgsTyped) {
  CommandResult printed =
      RunCommand({binary_, "config", "print", "--config", kExample + "/config.yaml"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find("      - args:\n          label: gpu\n        name: OnlyLabeled\n"),
            std::string::npos)
      << printed.out;
  CommandResult bad = RunCommand({binary_, "config", "print", "--config", "/dev/stdin"},
                                 "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                 "kind: KubeSchedulerConfiguration\n"
                                 "profiles:\n- pluginConfig:\n  - name: OnlyLabeled\n"
                                 "    args: {label: 7}\n"
                                 "  plugins: {multiPoint: {enabled: [{name: OnlyLabeled}]}}\n");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("profiles[0].pluginConfig[0].args.label: expected a non-empty label "
                         "name"),
            std::string::npos)
      << bad.err;
  CommandResult version = RunCommand({binary_, "version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("ksched version v", 0), 0u) << version.out;
}

}  // namespace
}  // namespace ksched::testing
