// What the Coscheduling tests share: scheduler-plugins' PodGroup CRD applied before each test, and
// the profile's scheduler name (examples/coscheduling/config.yaml's).
#pragma once

#include <string>

#include "test/integration/ksched_process_test.h"

namespace ksched::testing {

inline constexpr char kCoschedulingScheduler[] = "scheduler-plugins-scheduler";

class CoschedulingFixture : public KschedProcessTest {
 protected:
  void SetUp() override {
    CommandResult r = cluster().Kubectl(
        {"apply", "-f", std::string(KSCHED_SOURCE_DIR) + "/contrib/coscheduling/crd.yaml"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cluster().Kubectl({"wait", "--for=condition=Established", "--timeout=60s",
                           "crd/podgroups.scheduling.x-k8s.io"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

}  // namespace ksched::testing
