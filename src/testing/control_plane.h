// A real control plane for integration tests: etcd and kube-apiserver on loopback, started by
// scripts/cluster.sh from the binaries scripts/k8s/build.sh built (`make k8s`), and kubectl as the
// independent client that creates objects and reads results.
//
// An integration test binary (registered with ksched_integration_test() in CMake) gets one
// control plane for all its tests: it comes up before the first test and goes down after the
// last. If it cannot come up (Go missing, binaries not built, not ready in time) every
// ControlPlaneTest fails with the reason; none is skipped.
//
//   TEST_F(ControlPlaneTest, NodesComeFromTheTemplate) {
//     ASSERT_TRUE(cluster().CreateNodes(3, {.prefix = "fit-"}).ok());
//     CommandResult r = cluster().Kubectl({"get", "node", "fit-0", "-o", "json"});
//     ASSERT_EQ(r.exit_code, 0) << r.err;
//   }
//
// Tests of one binary share the cluster, so each uses its own object names or namespace.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/testing/command.h"

namespace ksched::testing {

// How scripts/fake-nodes.sh names and spreads the nodes it creates.
struct FakeNodes {
  std::string prefix = "node-";  // nodes are <prefix><first>, <prefix><first + 1>, ...
  int first = 0;
  int zones = 3;  // topology.kubernetes.io/zone is zone-<i % zones>
};

struct ControlPlaneOptions {
  // Also run kwok, a fake kubelet for the nodes of CreateNodes(): a pod bound to one becomes
  // Running, and a deleted one goes away.
  bool kwok = false;
  // kwok's stages, if not those scripts/k8s/build.sh wrote (a pod bound to a node becomes Running,
  // a deleted one goes away).
  std::string kwok_stages;
  // Also write an audit log, dir()/audit.log: the writes of bindings and Leases
  // (scripts/cluster.sh).
  bool audit = false;
  // Also run kube-controller-manager (its PV binder, namespace, garbage-collector, ...
  // controllers), with these flags besides the rig's ("--kube-api-qps=1000").
  bool controller_manager = false;
  std::string controller_manager_flags;
  // kube-apiserver's flags besides the rig's (--feature-gates=... for the fields a gate keeps).
  std::string apiserver_flags;
};

// The options of the shared control plane of this test binary. A binary whose tests need more than
// the default sets them before main() runs, in a namespace-scope initializer:
//   const bool kWithControllers = (SharedControlPlaneOptions().controller_manager = true);
ControlPlaneOptions& SharedControlPlaneOptions();

// One running etcd + kube-apiserver (and kwok, if asked). Not copyable; the destructor stops both
// processes and removes the cluster's temporary directory. The const methods are safe to call from
// several threads.
class ControlPlane {
 public:
  // Runs `scripts/cluster.sh up` and waits until the API server is ready. The error carries the
  // script's message, e.g. that the binaries are not built and how to build them. The processes
  // are also stopped if this test process dies without running the destructor.
  static absl::StatusOr<std::unique_ptr<ControlPlane>> Start(
      const ControlPlaneOptions& options = {});

  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;
  ~ControlPlane();  // runs `scripts/cluster.sh down`

  // The admin kubeconfig (a system:masters token over TLS), and the directory holding it, the
  // certificates, the logs (etcd.log, kube-apiserver.log) and the pid files.
  const std::string& kubeconfig() const { return kubeconfig_; }
  const std::string& dir() const { return dir_; }
  // The API server's port on 127.0.0.1, as the kubeconfig names it.
  int api_port() const { return api_port_; }

  // Runs `kubectl --kubeconfig <kubeconfig()> <args...>` with `input` on its standard input. The
  // kubectl is the one built with the control plane, of the same release.
  CommandResult Kubectl(const std::vector<std::string>& args, std::string_view input = {}) const;

  // Stops kube-apiserver and starts it again with the same flags (`cluster.sh restart-apiserver`);
  // returns once it is ready again. etcd, and so every object, stays.
  absl::Status RestartApiServer() const;
  // Kills etcd (-9) and starts it again on its data (`cluster.sh restart-etcd`); returns once the
  // API server is ready again.
  absl::Status RestartEtcd() const;

  // Creates `count` Ready nodes with scheduler_perf's capacity (cpu 4, memory 32Gi, pods 110).
  absl::Status CreateNodes(int count, const FakeNodes& nodes = {}) const;

 private:
  explicit ControlPlane(std::string dir) : dir_(std::move(dir)) {}
  absl::Status Restart(const std::string& command) const;  // A `cluster.sh restart-*` command.

  std::string dir_;
  std::string kubeconfig_;
  std::string kubectl_;
  int api_port_ = 0;
};

// Where `make k8s` put the control plane's binaries (kube-scheduler among them), as
// scripts/k8s/paths.sh says.
std::string K8sBinDir();
// scheduler-plugins' kube-scheduler, where `make k8s` builds it (scripts/scheduler-plugins/); the
// path whether or not the build succeeded.
std::string SchedulerPluginsBinary();

// The gtest Environment that brings the shared control plane up before the first test and down
// after the last. The main() of ksched_integration_test() binaries installs it. A failure to
// start is kept for ControlPlaneTest to report in every test.
class ControlPlaneEnvironment : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;
};

// The base of tests that use the shared control plane.
class ControlPlaneTest : public ::testing::Test {
 protected:
  // Fails the test, with the reason, if the control plane is not up.
  void SetUp() override;
  // The control plane of this test binary. Valid once SetUp() passed.
  const ControlPlane& cluster() const;
};

}  // namespace ksched::testing
