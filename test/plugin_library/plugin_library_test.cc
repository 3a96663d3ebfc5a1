// ksched loads plugins from shared libraries at start (--plugin-library), with no rebuild: the
// example library's TeamFilter places pods, and every broken library stops the start with exit
// code 1 and a message that names it.
#include <gtest/gtest.h>

#include <string>

#include "src/testing/command.h"

namespace ksched::testing {
namespace {

const std::string kExample = std::string(KSCHED_SOURCE_DIR) + "/examples/plugin-library";

CommandResult Simulate(const std::string& library) {
  return RunCommand({KSCHED_BINARY, "simulate", "--plugin-library", library, "--config",
                     kExample + "/config.yaml", kExample + "/cluster.yaml"});
}

TEST(PluginLibraryTest, TheExampleLibrarysPluginSchedules) {
  CommandResult r = Simulate(TEAM_FILTER);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "NAMESPACE  NAME  STATUS         NODE     MESSAGE\n"
            "default    web   Scheduled      green-1  \n"
            "default    api   Scheduled      blue-1   \n"
            "default    red   Unschedulable  <none>   0/2 nodes are available: 2 node(s) didn't "
            "belong to team red.\n");
}

TEST(PluginLibraryTest, WithoutTheLibraryTheConfigNamesAPluginThatDoesNotExist) {
  CommandResult r =
      RunCommand({KSCHED_BINARY, "config", "print", "--config", kExample + "/config.yaml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("PreFilterPlugin \"TeamFilter\" does not exist"), std::string::npos)
      << r.err;
}

TEST(PluginLibraryTest, BrokenLibrariesStopTheStartWithTheirError) {
  struct Case {
    std::string library, want;
  };
  const std::string missing = kExample + "/no-such-library.so";
  const std::string missing_error =
      "ksched: --plugin-library " + missing + ": " + missing;  // dlerror names the file too.
  for (const Case& c : {
           Case{missing,
                missing_error + ": cannot open shared object file: No such file or directory\n"},
           Case{BAD_NO_ENTRY_POINT,
                std::string("ksched: --plugin-library ") + BAD_NO_ENTRY_POINT +
                    ": no ksched_plugin_library_v1 entry point: not a ksched plugin library (see "
                    "KSCHED_PLUGIN_LIBRARY)\n"},
           Case{BAD_OTHER_SDK_VERSION,
                std::string("ksched: --plugin-library ") + BAD_OTHER_SDK_VERSION +
                    ": built against ksched SDK version 1001, but this ksched has SDK version 1; "
                    "rebuild the library against this ksched's include/ksched\n"},
           Case{BAD_TAKEN_NAME, std::string("ksched: --plugin-library ") + BAD_TAKEN_NAME +
                                    ": a plugin named NodeAffinity already exists\n"},
       }) {
    CommandResult r = Simulate(c.library);
    EXPECT_EQ(r.exit_code, 1) << c.library;
    EXPECT_EQ(r.err, c.want);
    EXPECT_EQ(r.out, "");
  }
  // The same library twice registers its plugin twice.
  CommandResult twice = RunCommand({KSCHED_BINARY, "config", "print", "--plugin-library",
                                    TEAM_FILTER, "--plugin-library", TEAM_FILTER});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_EQ(twice.err, std::string("ksched: --plugin-library ") + TEAM_FILTER +
                           ": a plugin named TeamFilter already exists\n");
}

}  // namespace
}  // namespace ksched::testing
