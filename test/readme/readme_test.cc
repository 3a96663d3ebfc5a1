// Runs the simulate examples of the README and of docs/*.md as a user copies them, after the build
// `make demo` makes: every ```sh block that runs `ksched simulate` on the files of this repository
// (not a live cluster, not make or kubectl) runs in bash -e from the repository's root, with build/
// this build; each must succeed, and every pod row the block shows in its comments
// ("# default  web-1  Scheduled  node-a") must be in its output (namespace, name, status, node).
// A block that shows an error ("# ksched simulate: ...") must fail with exit 2 and that error.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "src/testing/command.h"

namespace ksched {
namespace {

using testing::CommandResult;
using testing::RunCommand;

struct Block {
  std::string file;  // README.md, docs/simulate.md, ...
  int line = 0;      // Of the opening ```sh, 1-based.
  std::string text;
};

void PrintTo(const Block& b, std::ostream* os) { *os << b.file << ":" << b.line; }

// Blocks that need something this test does not give them.
constexpr const char* kNeedsMore[] = {"--kubeconfig", "KUBECONFIG",      "kubectl",
                                      "make ",        "cmake",           "xdg-open",
                                      "chromium",     "explain default", " &\n"};

// The pages: the README, then docs/ in name order.
std::vector<std::string> Pages() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(KSCHED_SOURCE_DIR "/docs")) {
    if (e.path().extension() == ".md") out.push_back("docs/" + e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  out.insert(out.begin(), "README.md");
  return out;
}

std::vector<Block> SimulateBlocks() {
  std::vector<Block> out;
  for (const std::string& page : Pages()) {
    std::ifstream in(KSCHED_SOURCE_DIR "/" + page);
    std::string line;
    Block* open = nullptr;
    for (int n = 1; std::getline(in, line); ++n) {
      if (open == nullptr && line == "```sh") {
        out.push_back({.file = page, .line = n});
        open = &out.back();
      } else if (open != nullptr && line == "```") {
        open = nullptr;
      } else if (open != nullptr) {
        open->text += line + "\n";
      }
    }
  }
  std::erase_if(out, [](const Block& b) {
    return b.text.find(" simulate ") == std::string::npos ||
           std::any_of(std::begin(kNeedsMore), std::end(kNeedsMore),
                       [&](const char* w) { return b.text.find(w) != std::string::npos; });
  });
  return out;
}

// "build/" at the start of a word is this build.
std::string ThisBuild(const std::string& text) {
  return std::regex_replace(text, std::regex("(^|[ \\n])build/"), "$1" KSCHED_BUILD_DIR "/");
}

// The words of a pod row: namespace, name, status, node.
std::vector<std::string> RowKey(const std::string& row) {
  std::istringstream in(row);
  std::vector<std::string> words;
  for (std::string w; words.size() < 4 && in >> w;) words.push_back(w);
  return words;
}

class ReadmeTest : public ::testing::TestWithParam<Block> {};

TEST_P(ReadmeTest, SimulateExampleRunsAndShowsWhatTheReadmeShows) {
  const Block& b = GetParam();
  CommandResult r = RunCommand(
      {"bash", "-c", "set -euo pipefail\ncd " KSCHED_SOURCE_DIR "\n" + ThisBuild(b.text)});
  const size_t error = b.text.find("# ksched simulate: ");
  if (error != std::string::npos) {
    const std::string want = b.text.substr(error + 2, b.text.find('\n', error) - error - 2);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << b.file << ":" << b.line << " shows\n"
                                                   << want << "\nbut ksched said\n"
                                                   << r.err;
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << b.file << ":" << b.line << "\n" << b.text << r.err;
  EXPECT_EQ(r.out.find("cannot be loaded"), std::string::npos) << r.out;
  std::vector<std::vector<std::string>> printed;
  std::istringstream out(r.out);
  for (std::string line; std::getline(out, line);) printed.push_back(RowKey(line));
  const std::regex row(
      "^# +[a-z0-9-]+ +[a-z0-9.-]+ +(Scheduled|Unschedulable|Preempted|NotOurs|SchedulingGated|"
      "SchedulerError) +\\S+.*");
  std::istringstream text(b.text);
  int rows = 0;
  for (std::string line; std::getline(text, line);) {
    if (!std::regex_match(line, row)) continue;
    ++rows;
    EXPECT_NE(std::find(printed.begin(), printed.end(), RowKey(line.substr(1))), printed.end())
        << b.file << ":" << b.line << " shows\n"
        << line << "\nbut the command printed\n"
        << r.out;
  }
  RecordProperty("rows", rows);
}

INSTANTIATE_TEST_SUITE_P(Readme, ReadmeTest, ::testing::ValuesIn(SimulateBlocks()),
                         [](const auto& info) {
                           std::string name =
                               info.param.file + "_" + std::to_string(info.param.line);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(ReadmeBlocksTest, TheExamplesWithOutputAreAmongThoseRun) {
  int with_rows = 0;
  for (const Block& b : SimulateBlocks())
    with_rows += b.text.find("# default ") != std::string::npos;
  EXPECT_GE(with_rows, 5);  // The plugin library, affinity, preemption, volumes and DRA examples.
}

}  // namespace
}  // namespace ksched
