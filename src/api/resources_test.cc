#include "ksched/api/resources.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

ResourceList R(std::initializer_list<std::pair<const char*, const char*>> items) {
  ResourceList out;
  for (auto [name, value] : items) out[name] = *Quantity::Parse(value);
  return out;
}

Container C(ResourceList requests, std::optional<std::string> restart_policy = std::nullopt) {
  Container c;
  c.resources.requests = std::move(requests);
  c.restart_policy = std::move(restart_policy);
  return c;
}

int64_t Milli(const ResourceList& l, const char* name) {
  auto it = l.find(name);
  return it == l.end() ? -1 : it->second.MilliValue();
}

TEST(PodRequestsTest, SumsRegularContainers) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "100m"}, {"memory", "1Gi"}})),
                         C(R({{"cpu", "250m"}, {"example.com/gpu", "1"}}))};
  ResourceList r = PodRequests(pod);
  EXPECT_EQ(Milli(r, "cpu"), 350);
  EXPECT_EQ(r.at("memory").Value(), 1 << 30);
  EXPECT_EQ(r.at("example.com/gpu").Value(), 1);
}

TEST(PodRequestsTest, InitContainerPeakWins) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "100m"}, {"memory", "1Gi"}}))};
  pod.spec.init_containers = {C(R({{"cpu", "2"}})), C(R({{"memory", "512Mi"}}))};
  ResourceList r = PodRequests(pod);
  EXPECT_EQ(Milli(r, "cpu"), 2000);            // init peak > containers
  EXPECT_EQ(r.at("memory").Value(), 1 << 30);  // containers > init peak
}

TEST(PodRequestsTest, SidecarsAddToContainersAndToLaterInitContainers) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "1"}}))};
  pod.spec.init_containers = {
      C(R({{"cpu", "500m"}}), "Always"),  // sidecar: runs alongside everything after it
      C(R({{"cpu", "1200m"}})),           // init phase: 1200m + 500m = 1700m
      C(R({{"cpu", "300m"}}), "Always"),  // second sidecar
  };
  ResourceList r = PodRequests(pod);
  // (a) containers + sidecars = 1000 + 500 + 300 = 1800; (b) peak init = 1700 -> 1800.
  EXPECT_EQ(Milli(r, "cpu"), 1800);

  pod.spec.init_containers[1] = C(R({{"cpu", "2"}}));  // now (b) = 2500 > 1800
  EXPECT_EQ(Milli(PodRequests(pod), "cpu"), 2500);
}

TEST(PodRequestsTest, OverheadIsAdded) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "100m"}}))};
  pod.spec.overhead = R({{"cpu", "10m"}, {"memory", "16Mi"}});
  EXPECT_EQ(Milli(PodRequests(pod), "cpu"), 110);
  EXPECT_EQ(PodRequests(pod).at("memory").Value(), 16 << 20);
  EXPECT_EQ(Milli(PodRequests(pod, {.exclude_overhead = true}), "cpu"), 100);
}

TEST(PodRequestsTest, PodLevelResourcesTakePrecedence) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "100m"}, {"memory", "64Mi"}, {"example.com/gpu", "1"}}))};
  pod.spec.resources = ResourceRequirements{.requests = R({{"cpu", "2"}})};
  pod.spec.overhead = R({{"cpu", "10m"}});
  ResourceList r = PodRequests(pod);
  EXPECT_EQ(Milli(r, "cpu"), 2010);               // pod level, plus overhead
  EXPECT_EQ(r.at("memory").Value(), 64 << 20);    // not set at pod level: containers' sum
  EXPECT_EQ(r.at("example.com/gpu").Value(), 1);  // not a pod-level resource
  EXPECT_EQ(Milli(PodRequests(pod, {.skip_pod_level_resources = true}), "cpu"), 110);
}

TEST(PodRequestsTest, UnsupportedPodLevelResourceIsIgnored) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "100m"}}))};
  pod.spec.resources = ResourceRequirements{.requests = R({{"example.com/gpu", "4"}})};
  EXPECT_FALSE(IsPodLevelRequestsSet(pod));
  EXPECT_EQ(PodRequests(pod).count("example.com/gpu"), 0u);
}

TEST(NonZeroPodRequestsTest, DefaultsPerContainerThatSetsNone) {
  Pod pod;
  pod.spec.containers = {C({}), C(R({{"cpu", "300m"}}))};
  NonZeroRequests nz = NonZeroPodRequests(pod);
  EXPECT_EQ(nz.milli_cpu, 100 + 300);
  EXPECT_EQ(nz.memory, 2 * kDefaultMemoryRequest);
}

TEST(NonZeroPodRequestsTest, ExplicitZeroIsKept) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "0"}, {"memory", "0"}}))};
  NonZeroRequests nz = NonZeroPodRequests(pod);
  EXPECT_EQ(nz.milli_cpu, 0);
  EXPECT_EQ(nz.memory, 0);
}

TEST(NonZeroPodRequestsTest, PodLevelSetSkipsDefaultsForResourcesItSets) {
  Pod pod;
  pod.spec.containers = {C({}), C({})};
  pod.spec.resources = ResourceRequirements{.requests = R({{"cpu", "1"}})};
  NonZeroRequests nz = NonZeroPodRequests(pod);
  EXPECT_EQ(nz.milli_cpu, 1000);                    // the pod-level value
  EXPECT_EQ(nz.memory, 2 * kDefaultMemoryRequest);  // set nowhere: defaulted per container
}

TEST(NonZeroPodRequestsTest, InitContainersAreDefaultedToo) {
  Pod pod;
  pod.spec.containers = {C(R({{"cpu", "50m"}, {"memory", "10Mi"}}))};
  pod.spec.init_containers = {C({})};  // counts as 100m / 200Mi
  NonZeroRequests nz = NonZeroPodRequests(pod);
  EXPECT_EQ(nz.milli_cpu, 100);
  EXPECT_EQ(nz.memory, kDefaultMemoryRequest);
}

}  // namespace
}  // namespace ksched::api
