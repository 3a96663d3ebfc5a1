// main() of the integration test binaries: the control plane comes up once, before the first test.
#include <gtest/gtest.h>

#include "src/testing/control_plane.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new ksched::testing::ControlPlaneEnvironment);
  return RUN_ALL_TESTS();
}
