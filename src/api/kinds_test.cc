#include "src/api/kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "src/api/api_fields.h"

namespace ksched::api {
namespace {

// Every row agrees with the pinned release's OpenAPI (api_fields.json): the group/version that
// serves the kind. A wrong row would send the reflectors to a path the API server does not serve.
TEST(KindsTest, EveryRowHasTheGroupVersionThePinnedReleaseServesItsKindAt) {
  std::set<std::string_view> names;
  ForEachKind([&]<typename T>() {
    EXPECT_EQ(kKind<T>.group_version, ServedApiVersion(kKind<T>.name)) << kKind<T>.name;
    EXPECT_EQ(KindOf(Object(T{})), kKind<T>.name);
    names.insert(kKind<T>.name);
  });
  EXPECT_EQ(names.size(), std::variant_size_v<Object>);  // One row each, no name twice.
}

TEST(KindsTest, CollectionsAndResourcesAreTheApiServersPaths) {
  EXPECT_EQ(CollectionPath<Pod>(), "/api/v1/pods");
  EXPECT_EQ(CollectionPath<Pod>("shop"), "/api/v1/namespaces/shop/pods");
  EXPECT_EQ(CollectionPath<Node>("shop"), "/api/v1/nodes");  // Cluster-scoped: no namespace.
  EXPECT_EQ(CollectionPath<CSIStorageCapacity>("db"),
            "/apis/storage.k8s.io/v1/namespaces/db/csistoragecapacities");
  EXPECT_EQ(CollectionPath<ResourceSlice>(), "/apis/resource.k8s.io/v1/resourceslices");
  EXPECT_EQ(QualifiedResource<Pod>(), "pods");
  EXPECT_EQ(QualifiedResource<PriorityClass>(), "priorityclasses.scheduling.k8s.io");
  EXPECT_EQ(QualifiedResource<ReplicaSet>(), "replicasets.apps");
}

// The informers log a kind, and the listers name an unreadable object's, as they always have.
TEST(KindsTest, LogNamesAreLowerCamelCase) {
  EXPECT_EQ(LowerCamelName(kKind<Namespace>.name), "namespace");
  EXPECT_EQ(LowerCamelName(kKind<PriorityClass>.name), "priorityClass");
  EXPECT_EQ(LowerCamelName(kKind<PersistentVolumeClaim>.name), "persistentVolumeClaim");
  EXPECT_EQ(LowerCamelName(kKind<CSINode>.name), "csiNode");
  EXPECT_EQ(LowerCamelName(kKind<CSIStorageCapacity>.name), "csiStorageCapacity");
}

// Only the kinds a cluster may refuse or not serve are optional for the informers, each with why.
TEST(KindsTest, OptionalKindsSayWhy) {
  std::set<std::string_view> optional;
  ForEachKind([&]<typename T>() {
    if (!kKind<T>.optional_because.empty()) optional.insert(kKind<T>.name);
  });
  EXPECT_EQ(optional, (std::set<std::string_view>{"PriorityClass", "DeviceClass", "ResourceSlice",
                                                  "ResourceClaim", "ResourceClaimTemplate",
                                                  "DeviceTaintRule"}));
}

// A kind that carries changes to the plugins has its own event resource; pods and nodes have
// theirs and their own handlers; templates are read by `ksched simulate` only.
TEST(KindsTest, EventTraitsAreConsistent) {
  std::set<EventResource> resources;
  std::set<std::string_view> on_io_thread, unwatched, gated;
  ForEachKind([&]<typename T>() {
    if constexpr (kKind<T>.change != nullptr) {
      EXPECT_TRUE(kKind<T>.event) << kKind<T>.name;
    }
    if (kKind<T>.event) {
      EXPECT_TRUE(resources.insert(*kKind<T>.event).second) << kKind<T>.name;
    }
    if (kKind<T>.on_io_thread) on_io_thread.insert(kKind<T>.name);
    if (!kKind<T>.watched) unwatched.insert(kKind<T>.name);
    if (!kKind<T>.gate.empty()) gated.insert(kKind<T>.name);
  });
  // Pods, nodes, the ten storage and DRA kinds, and PodGroups.
  EXPECT_EQ(resources.size(), 13u);
  EXPECT_EQ(on_io_thread, (std::set<std::string_view>{"Pod", "ResourceClaim"}));
  EXPECT_EQ(unwatched, (std::set<std::string_view>{"ResourceClaimTemplate"}));
  EXPECT_EQ(gated, (std::set<std::string_view>{"PodGroup"}));  // GenericWorkload's.
}

// The order a source lists and watches in: nodes, then pods, after every other kind.
TEST(KindsTest, PodsComeLast) {
  std::vector<std::string_view> order;
  ForEachKindPodsLast([&]<typename T>() { order.push_back(kKind<T>.name); });
  ASSERT_EQ(order.size(), std::variant_size_v<Object>);
  EXPECT_EQ(order[order.size() - 2], "Node");
  EXPECT_EQ(order.back(), "Pod");
}

// ForEachKind stops at the first kind for which the function returns true.
TEST(KindsTest, ForEachKindStopsWhereAsked) {
  int seen = 0;
  EXPECT_TRUE(ForEachKind([&]<typename T>() {
    ++seen;
    return kKind<T>.name == "Namespace";
  }));
  EXPECT_EQ(seen, 3);  // Pod, Node, Namespace.
  EXPECT_FALSE(ForEachKind([]<typename T>() { return false; }));
}

}  // namespace
}  // namespace ksched::api
