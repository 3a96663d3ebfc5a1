#include "src/cli/version.h"

#include <gtest/gtest.h>

#include "ksched/version.h"
#include "nlohmann/json.hpp"
#include "src/api/api_fields.h"

namespace ksched::cli {
namespace {

TEST(VersionTest, SaysTheReleaseTheCommitTheKubernetesVersionAndTheSdk) {
  const VersionInfo v{.version = "v0.1.0",
                      .commit = "319aab4c1e2f",
                      .kubernetes = "v1.36.3",
                      .sdk = 21,
                      .plugin_abi = "v1",
                      .stable_abi = 3};
  EXPECT_EQ(VersionText(v),
            "ksched v0.1.0\n"
            "commit:      319aab4c1e2f\n"
            "decides as:  kube-scheduler v1.36.3\n"
            "plugin SDK:  21 (plugin ABI v1: a plugin library must be built against SDK 21)\n"
            "stable ABI:  3 (a library built against ksched/stable.h of ABI 3 or earlier loads)\n");
  nlohmann::json j = nlohmann::json::parse(VersionJson(v));
  EXPECT_EQ(j, (nlohmann::json{{"gitVersion", "v0.1.0"},
                               {"gitCommit", "319aab4c1e2f"},
                               {"kubernetesVersion", "v1.36.3"},
                               {"sdkVersion", 21},
                               {"pluginAbi", "v1"},
                               {"stableAbi", 3}}));
}

// This build's figures come from the build: the Kubernetes version from scripts/k8s/go.mod's pin,
// the SDK's from its header.
TEST(VersionTest, ThisBuildsVersionIsFilledIn) {
  const VersionInfo v = ThisVersion();
  EXPECT_TRUE(v.version.starts_with("v0.")) << v.version;
  EXPECT_TRUE(v.kubernetes.starts_with("v1.")) << v.kubernetes;
  EXPECT_FALSE(v.commit.empty());
  EXPECT_EQ(v.sdk, KSCHED_SDK_VERSION);
}

// Strict field validation knows the types of the release ksched decides as: when the pin moves,
// `make api-fields` writes src/api/api_fields.json again.
TEST(VersionTest, TheApiFieldsAreThoseOfThePinnedRelease) {
  EXPECT_EQ(api::ApiFieldsRelease(), ThisVersion().kubernetes) << "run `make api-fields`";
}

}  // namespace
}  // namespace ksched::cli
