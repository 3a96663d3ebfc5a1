// A user's own scheduler against the installed SDK: `cmake --install` into a temporary prefix,
// examples/out-of-tree built with find_package(ksched), and the binary run: the whole ksched
// command line, with the example's OnlyLabeled plugin and its typed args.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

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
  EXPECT_NE(bad.err.find("profiles[0].pluginConfig[0].args.label: expected a string"),
            std::string::npos)
      << bad.err;
  CommandResult version = RunCommand({binary_, "version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("ksched v", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("\ndecides as:  kube-scheduler v1."), std::string::npos)
      << version.out;
}

// The one door: every in-tree plugin, the guides' included, needs nothing of ksched but the SDK
// headers as installed, and its fellow plugin folders. Each source of src/plugins (tests aside) is
// preprocessed with only the installed include directory and a tree holding src/plugins alone on
// the include path; a header of src/base, src/api or any other room would not be found.
TEST_F(InstallTest, EveryPluginFolderNeedsOnlyTheInstalledSdkHeaders) {
  namespace fs = std::filesystem;
  const fs::path plugins = fs::path(KSCHED_SOURCE_DIR) / "src/plugins";
  const fs::path tree = fs::path(dir_) / "plugins-only";
  fs::create_directories(tree / "src");
  fs::create_directory_symlink(plugins, tree / "src/plugins");
  std::vector<std::string> argv = {CMAKE_CXX_COMPILER, "-std=c++20", "-MM",
                                   "-I" + dir_ + "/prefix/include", "-I" + tree.string()};
  size_t sources = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(plugins)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".cc" || name.ends_with("_test.cc")) continue;
    argv.push_back((tree / fs::relative(e.path(), plugins.parent_path().parent_path())).string());
    ++sources;
  }
  ASSERT_GT(sources, 40u);
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every header found is the installed SDK's or a plugin folder's.
  std::istringstream deps(r.out);
  std::string dep;
  size_t sdk_headers = 0;
  while (deps >> dep) {
    if (dep.ends_with(":") || dep == "\\" || dep.ends_with(".cc")) continue;
    const bool installed = dep.starts_with(dir_ + "/prefix/include/ksched/");
    sdk_headers += installed ? 1 : 0;
    EXPECT_TRUE(installed || dep.starts_with((tree / "src/plugins/").string())) << dep;
  }
  EXPECT_GT(sdk_headers, 0u);
}

}  // namespace
}  // namespace ksched::testing
