// ksched loads plugins from shared libraries at start (--plugin-library), with no rebuild: the
// example library's TeamFilter places pods, and every broken library stops the start with exit
// code 1 and a message that names it.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ksched/stable.h"
#include "ksched/version.h"
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
            "belong to team red. preemption: 0/2 nodes are available: 2 "
            "Preemption is not helpful for scheduling.\n");
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
                    ": no ksched_stable_plugins or ksched_plugin_library_v1 entry point: not a "
                    "ksched plugin library (see ksched/stable.h or ksched/plugin_library.h)\n"},
           Case{BAD_OTHER_SDK_VERSION,
                std::string("ksched: --plugin-library ") + BAD_OTHER_SDK_VERSION +
                    ": built against ksched SDK version " +
                    std::to_string(KSCHED_SDK_VERSION + 1000) +
                    ", but this ksched has SDK version " + std::to_string(KSCHED_SDK_VERSION) +
                    "; rebuild the library against this ksched's include/ksched, or write it "
                    "against ksched/stable.h\n"},
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

// --- The stable ABI (ksched/stable.h) --------------------------------------------------------

const std::string kStableExample = std::string(KSCHED_SOURCE_DIR) + "/examples/stable-plugin";

// The example's cluster simulated with a TeamGate library and `config`.
CommandResult SimulateTeamGate(const std::string& library,
                               const std::string& config = kStableExample + "/config.yaml") {
  return RunCommand({KSCHED_BINARY, "simulate", "--plugin-library", library, "--config", config,
                     kStableExample + "/cluster.yaml"});
}

// web goes to the green node with more CPU free, api to the blue one, red nowhere.
const char kTeamGatePlacements[] =
    "NAMESPACE  NAME  STATUS         NODE     MESSAGE\n"
    "default    web   Scheduled      green-2  \n"
    "default    api   Scheduled      blue-1   \n"
    "default    red   Unschedulable  <none>   0/3 nodes are available: 3 node(s) didn't belong to "
    "team red. preemption: 0/3 nodes are available: 3 Preemption is "
    "not helpful for scheduling.\n";

TEST(PluginLibraryTest, TheStableExampleLibrarySchedules) {
  CommandResult r = SimulateTeamGate(TEAM_GATE);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kTeamGatePlacements);
}

// The policy of include/ksched/README.md: a library built for an earlier generation loads into
// today's ksched and decides as it did, down to each verdict and score `--explain` shows.
TEST(PluginLibraryTest, ALibraryOfTheFirstStableGenerationStillDecides) {
  ASSERT_GT(KSCHED_STABLE_ABI, 1) << "no later generation yet to load the first into";
  CommandResult old = SimulateTeamGate(TEAM_GATE_ABI_1);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_EQ(old.out, kTeamGatePlacements);
  auto explain = [](const std::string& library) {
    return RunCommand({KSCHED_BINARY, "simulate", "--explain", "--plugin-library", library,
                       "--config", kStableExample + "/config.yaml",
                       kStableExample + "/cluster.yaml"});
  };
  CommandResult old_explained = explain(TEAM_GATE_ABI_1);
  EXPECT_EQ(old_explained.out, explain(TEAM_GATE).out);
  EXPECT_NE(old_explained.out.find("TeamGate=500"), std::string::npos) << old_explained.out;
}

TEST(PluginLibraryTest, AStablePluginRefusesItsArgsWithItsOwnReason) {
  const std::string config = ::testing::TempDir() + "/team_gate_bad_args.yaml";
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "profiles:\n"
                           "- plugins: {multiPoint: {enabled: [{name: TeamGate}]}}\n"
                           "  pluginConfig: [{name: TeamGate, args: {label: \"\"}}]\n";
  CommandResult r = SimulateTeamGate(TEAM_GATE, config);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("initializing plugin \"TeamGate\": args.label: must be 1 to 63 characters"),
            std::string::npos)
      << r.err;
}

// --- The guides' plugins: loaded from libksched_guides.so by ksched, compiled into ksched-guides
// --

// `simulate --explain` of a guide's example, by `binary` with `extra` flags.
CommandResult SimulateGuide(const std::string& binary, const std::string& guide,
                            const std::vector<std::string>& extra = {}) {
  const std::string dir = std::string(KSCHED_SOURCE_DIR) + "/examples/guides/" + guide;
  std::vector<std::string> argv = {binary, "simulate", "--explain"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(),
              {"--config", dir + "/config.yaml", dir + "/nodes.yaml", dir + "/pods.yaml"});
  return RunCommand(argv);
}

TEST(PluginLibraryTest, TheGuidesDecideAlikeFromTheirLibraryAndCompiledIn) {
  for (const char* guide :
       {"000-app-pinning", "001-node-price", "002-annotation-gate", "003-network-aware"}) {
    CommandResult compiled = SimulateGuide(GUIDES_BINARY, guide);
    ASSERT_EQ(compiled.exit_code, 0) << guide << ": " << compiled.err;
    CommandResult loaded =
        SimulateGuide(KSCHED_BINARY, guide, {"--plugin-library", GUIDES_LIBRARY});
    ASSERT_EQ(loaded.exit_code, 0) << guide << ": " << loaded.err;
    // Every placement, message, filter verdict and score, word for word.
    EXPECT_EQ(loaded.out, compiled.out) << guide;
  }
  // What the guides' plugins decide shows in the explanations: a node without the label, a
  // refused annotation.
  EXPECT_NE(SimulateGuide(KSCHED_BINARY, "003-network-aware", {"--plugin-library", GUIDES_LIBRARY})
                .out.find("NetworkAware"),
            std::string::npos);
  EXPECT_NE(
      SimulateGuide(KSCHED_BINARY, "002-annotation-gate", {"--plugin-library", GUIDES_LIBRARY})
          .out.find("pod has annotation mycompany.com/environment"),
      std::string::npos);
}

TEST(PluginLibraryTest, WithoutTheGuidesLibraryTheirPluginsDoNotExist) {
  CommandResult r = SimulateGuide(KSCHED_BINARY, "003-network-aware");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("\"NetworkAware\" does not exist"), std::string::npos) << r.err;
}

TEST(PluginLibraryTest, TheGuidesLibraryIsRefusedByKschedGuidesWhichHasThemCompiledIn) {
  CommandResult r =
      RunCommand({GUIDES_BINARY, "config", "print", "--plugin-library", GUIDES_LIBRARY});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, std::string("ksched: --plugin-library ") + GUIDES_LIBRARY +
                       ": a plugin named AnnotationGate already exists\n");
}

// A demangled name without the versioned inline namespaces of Abseil ("absl::debian3::") and
// nlohmann::json ("nlohmann::json_abi_v3_11_2::"), which change with the Debian packages.
std::string WithoutLibraryVersions(const std::string& name) {
  static const std::regex kInline(
      R"((absl|nlohmann)::(lts_[0-9]+|debian[0-9]+|json_abi_v[0-9_]+)::)");
  return std::regex_replace(name, kInline, "$1::");
}

// ksched exports the SDK's symbols to the libraries it loads, and nothing else of its own: each
// one in the version node of its SDK version, and the functions and data it defines (type T, D,
// B or R) exactly those that sdk_symbols.txt lists under that version.
TEST(SdkSymbolsTest, KschedExportsExactlyTheListedSdkSymbolsInItsVersionNode) {
  const std::string node = "KSCHED_SDK_" + std::to_string(KSCHED_SDK_VERSION);
  std::ifstream listed_file(std::string(KSCHED_SOURCE_DIR) +
                            "/test/plugin_library/sdk_symbols.txt");
  std::set<std::string> listed;
  std::string line;
  while (std::getline(listed_file, line)) {
    if (line.starts_with("# KSCHED_SDK_VERSION ")) {
      EXPECT_EQ(line, "# KSCHED_SDK_VERSION " + std::to_string(KSCHED_SDK_VERSION))
          << "sdk_symbols.txt lists another SDK version's symbols";
    } else if (!line.empty() && !line.starts_with("#")) {
      listed.insert(line);
    }
  }
  ASSERT_GT(listed.size(), 50u);

  CommandResult r = RunCommand(
      {"nm", "--dynamic", "--defined-only", "--demangle", "--with-symbol-versions", KSCHED_BINARY});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> exported;
  std::istringstream in(r.out);
  while (std::getline(in, line)) {
    // "<address> <type> <name>@@<version>", or without a version for the libraries' data that
    // the binary holds copies of (std::cout, absl's constants).
    const size_t type_at = line.find(' ') + 1;
    const char type = line[type_at];
    std::string name = line.substr(type_at + 2);
    if (type == 'A' || std::islower(static_cast<unsigned char>(type))) continue;
    const size_t at = name.rfind("@@");
    const std::string version = at == std::string::npos ? "" : name.substr(at + 2);
    if (at != std::string::npos) name.resize(at);
    if (name.find("ksched") == std::string::npos) continue;
    EXPECT_EQ(version, node) << name;
    if (std::string_view("TDBR").find(type) != std::string_view::npos) {
      exported.insert(WithoutLibraryVersions(name));
    }
  }
  for (const std::string& name : exported) {
    EXPECT_TRUE(listed.contains(name)) << "exported but not in sdk_symbols.txt: " << name;
  }
  for (const std::string& name : listed) {
    EXPECT_TRUE(exported.contains(name)) << "in sdk_symbols.txt but not exported: " << name;
  }
}

}  // namespace
}  // namespace ksched::testing
