// The base of tests that run ksched as a process against the real control plane, as a user runs
// it, with kubectl creating the objects and reading back what ksched wrote (bindings, events,
// conditions); and builders of the objects they create.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/testing/control_plane.h"
#include "src/testing/ports.h"

namespace ksched::testing {

using nlohmann::json;

class KschedProcessTest : public ControlPlaneTest {
 protected:
  // Starts a ksched replica against the cluster, as the admin unless `extra` names --kubeconfig,
  // serving on a free port (secure_port_) unless it names --secure-port; TearDown stops those still
  // running with SIGTERM and expects a clean exit.
  Process* StartKsched(std::vector<std::string> extra = {}) {
    auto given = [&](std::string_view flag) {
      return std::any_of(extra.begin(), extra.end(),
                         [&](const std::string& a) { return a.starts_with(flag); });
    };
    std::vector<std::string> argv = {binary_, "run"};
    if (!given("--v")) argv.insert(argv.end(), {"-v", "2"});
    if (!given("--kubeconfig")) argv.insert(argv.end(), {"--kubeconfig", cluster().kubeconfig()});
    if (!given("--secure-port")) {
      secure_port_ = FreePort();
      argv.push_back(fmt::format("--secure-port={}", secure_port_));
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '-');  // A parameterized test's name has one.
    std::string log = fmt::format("{}/ksched-{}-{}.log", cluster().dir(), test, replicas_.size());
    replicas_.push_back(std::make_unique<Process>(argv, log));
    EXPECT_GT(replicas_.back()->pid(), 0) << replicas_.back()->Log();
    return replicas_.back().get();
  }

  void TearDown() override {
    for (auto& r : replicas_) {
      if (r->Running()) {
        EXPECT_EQ(r->Stop(SIGTERM), 0) << r->Log();
      }
      if (HasFailure()) std::cerr << "ksched's log:\n" << r->Log();
    }
  }

  json Get(const std::vector<std::string>& args) {
    std::vector<std::string> a = {"get"};
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), {"-o", "json"});
    CommandResult r = cluster().Kubectl(a);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  }

  void Create(const json& object) {
    CommandResult r = cluster().Kubectl({"create", "-f", "-"}, object.dump());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // Polls `done` every 200 ms for up to a minute.
  bool Eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 300; ++i) {
      if (done()) return true;
      bool any_running = replicas_.empty();
      for (auto& r : replicas_) any_running = any_running || r->Running();
      if (!any_running) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

  // The events.k8s.io events of a namespace.
  std::vector<json> Events(const std::string& ns) {
    json list = Get({"events.v1.events.k8s.io", "-n", ns});
    return list.is_object() ? list["items"].get<std::vector<json>>() : std::vector<json>{};
  }

  // The note of the latest FailedScheduling event in `ns`, once there is one; "" if none came.
  std::string FailedSchedulingNote(const std::string& ns) {
    std::string note;
    Eventually([&] {
      for (const json& e : Events(ns)) {
        if (e["reason"] == "FailedScheduling") note = e["note"];
      }
      return !note.empty();
    });
    return note;
  }

  // The pod's PodScheduled condition, once it has one; null if none came.
  // The node the pod is bound to, waited for as Eventually waits; "" if it is not bound by then.
  std::string BoundNodeOf(const std::string& ns, const std::string& pod) {
    std::string node;
    Eventually([&] {
      node = Get({"pod", pod, "-n", ns})["spec"].value("nodeName", "");
      return !node.empty();
    });
    return node;
  }
  json PodScheduledCondition(const std::string& ns, const std::string& pod) {
    json cond;
    Eventually([&] {
      for (const json& c :
           Get({"pod", pod, "-n", ns})["status"].value("conditions", json::array())) {
        if (c["type"] == "PodScheduled") cond = c;
      }
      return cond.is_object();
    });
    return cond;
  }

  std::vector<std::unique_ptr<Process>> replicas_;
  int secure_port_ = 0;
  std::string binary_ = KSCHED_BINARY;  // The scheduler binary StartKsched runs.
};

inline json Pod(const std::string& ns, const std::string& name, const std::string& cpu,
                const std::string& scheduler = "default-scheduler") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"schedulerName", scheduler},
            {"containers",
             {{{"name", "c"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources", {{"requests", {{"cpu", cpu}, {"memory", "100Mi"}}}}}}}}}}};
}

inline json Node(const std::string& name, const std::string& cpu,
                 const json& taints = json::array()) {
  json resources = {{"cpu", cpu}, {"memory", "64Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"spec", {{"taints", taints}}},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

}  // namespace ksched::testing
