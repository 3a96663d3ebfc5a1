#include "src/testing/control_plane.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace ksched::testing {
namespace {

std::string Script(const std::string& name) {
  return std::string(KSCHED_SOURCE_DIR) + "/scripts/" + name;
}

// The shared control plane, or why it is not up. Set and reset by ControlPlaneEnvironment, on the
// main thread, outside any test.
absl::StatusOr<std::unique_ptr<ControlPlane>>& Shared() {
  static auto* shared = new absl::StatusOr<std::unique_ptr<ControlPlane>>(
      absl::FailedPreconditionError("the control plane is started by ControlPlaneEnvironment, "
                                    "which main() of ksched_integration_test() binaries installs"));
  return *shared;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ControlPlane>> ControlPlane::Start(
    const ControlPlaneOptions& options) {
  std::vector<std::string> up = {Script("cluster.sh"), "up"};
  CommandResult r;
  // A port cluster.sh found free may be taken before etcd or kube-apiserver binds it, by another
  // control plane starting at the same moment: then it starts again, on other ports.
  for (int attempt = 0; attempt < 3; ++attempt) {
    r = RunCommand(up, {},
                   {absl::StrCat("KSCHED_CLUSTER_OWNER=", static_cast<int>(getpid())),
                    absl::StrCat("KSCHED_CLUSTER_KWOK=", options.kwok ? 1 : 0),
                    absl::StrCat("KSCHED_CLUSTER_KWOK_STAGES=", options.kwok_stages),
                    absl::StrCat("KSCHED_CLUSTER_AUDIT=", options.audit ? 1 : 0),
                    absl::StrCat("KSCHED_CLUSTER_KCM=", options.controller_manager ? 1 : 0),
                    absl::StrCat("KSCHED_CLUSTER_KCM_FLAGS=", options.controller_manager_flags),
                    absl::StrCat("KSCHED_CLUSTER_APISERVER_FLAGS=", options.apiserver_flags)});
    if (r.exit_code == 0 || r.err.find("address already in use") == std::string::npos) break;
  }
  if (r.exit_code != 0) {
    return absl::UnavailableError(absl::StrCat("the control plane did not come up: `",
                                               ShellQuote(up), "` exited with ", r.exit_code, ":\n",
                                               r.err));
  }
  std::string kubeconfig(absl::StripTrailingAsciiWhitespace(r.out));
  std::string dir = std::filesystem::path(kubeconfig).parent_path();
  auto cluster = std::unique_ptr<ControlPlane>(new ControlPlane(dir));
  // `env` prints the settings as `export NAME=value` lines.
  r = RunCommand({Script("cluster.sh"), "env", dir});
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv =
        absl::StrSplit(absl::StripPrefix(line, "export "), absl::MaxSplits('=', 1));
    if (kv.first == "KUBECONFIG") cluster->kubeconfig_ = kv.second;
    if (kv.first == "KSCHED_K8S_BIN") cluster->kubectl_ = kv.second + "/kubectl";
  }
  if (cluster->kubeconfig_.empty() || cluster->kubectl_.empty()) {
    return absl::InternalError("`cluster.sh env " + dir +
                               "` printed no KUBECONFIG or "
                               "KSCHED_K8S_BIN:\n" +
                               r.out + r.err);
  }
  std::ifstream in(cluster->kubeconfig_);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  constexpr std::string_view kServer = "server: \"https://127.0.0.1:";
  const size_t at = text.find(kServer);
  if (at == std::string::npos ||
      !absl::SimpleAtoi(text.substr(at + kServer.size(),
                                    text.find('"', at + kServer.size()) - at - kServer.size()),
                        &cluster->api_port_)) {
    return absl::InternalError(cluster->kubeconfig_ + ": no server https://127.0.0.1:<port>");
  }
  return cluster;
}

ControlPlane::~ControlPlane() {
  CommandResult r = RunCommand({Script("cluster.sh"), "down", dir_});
  if (r.exit_code != 0) ADD_FAILURE() << "stopping the control plane in " << dir_ << ":\n" << r.err;
}

CommandResult ControlPlane::Kubectl(const std::vector<std::string>& args,
                                    std::string_view input) const {
  std::vector<std::string> argv = {kubectl_, "--kubeconfig", kubeconfig_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, input);
}

absl::Status ControlPlane::CreateNodes(int count, const FakeNodes& nodes) const {
  std::vector<std::string> argv = {Script("fake-nodes.sh"),
                                   "-p",
                                   nodes.prefix,
                                   "-s",
                                   std::to_string(nodes.first),
                                   "-z",
                                   std::to_string(nodes.zones),
                                   std::to_string(count)};
  CommandResult r = RunCommand(argv, {}, {"KUBECONFIG=" + kubeconfig_});
  if (r.exit_code == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("`", ShellQuote(argv), "` exited with ", r.exit_code, ":\n", r.err));
}

absl::Status ControlPlane::RestartApiServer() const { return Restart("restart-apiserver"); }

absl::Status ControlPlane::RestartEtcd() const { return Restart("restart-etcd"); }

absl::Status ControlPlane::Restart(const std::string& command) const {
  std::vector<std::string> argv = {Script("cluster.sh"), command, dir_};
  CommandResult r = RunCommand(argv);
  if (r.exit_code == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("`", ShellQuote(argv), "` exited with ", r.exit_code, ":\n", r.err));
}

namespace {

// A variable of scripts/k8s/paths.sh, as the scripts see it.
std::string PathsVariable(const std::string& name) {
  CommandResult r = RunCommand(
      {"bash", "-c", absl::StrCat("source ", Script("k8s/paths.sh"), " && echo \"$", name, "\"")});
  std::string value = r.out;
  while (!value.empty() && value.back() == '\n') value.pop_back();
  return value;
}

}  // namespace

std::string K8sBinDir() { return PathsVariable("k8s_bin"); }

std::string SchedulerPluginsBinary() { return PathsVariable("sp_bin"); }

ControlPlaneOptions& SharedControlPlaneOptions() {
  static ControlPlaneOptions options;
  return options;
}

void ControlPlaneEnvironment::SetUp() {
  Shared() = ControlPlane::Start(SharedControlPlaneOptions());
}

void ControlPlaneEnvironment::TearDown() {
  if (Shared().ok()) Shared() = absl::CancelledError("the control plane was stopped");
}

void ControlPlaneTest::SetUp() { ASSERT_TRUE(Shared().ok()) << Shared().status().message(); }

const ControlPlane& ControlPlaneTest::cluster() const { return **Shared(); }

}  // namespace ksched::testing
