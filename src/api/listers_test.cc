#include "src/api/listers.h"

#include <gtest/gtest.h>

namespace ksched {
namespace {

std::shared_ptr<const api::Service> Svc(std::string ns, std::string name, std::string rv = "1") {
  return std::make_shared<const api::Service>(api::Service{
      .metadata = {.name = std::move(name), .namespace_ = std::move(ns), .resource_version = rv}});
}

std::vector<std::string> Names(const std::vector<std::shared_ptr<const api::Service>>& v) {
  std::vector<std::string> out;
  for (const auto& s : v) out.push_back(s->metadata.namespace_ + "/" + s->metadata.name);
  return out;
}

// A reflector and the event handlers rely on what Set and Remove return: the object before.
TEST(ObjectStoreTest, SetAndRemoveReturnTheObjectBefore) {
  ObjectStore<api::Service> store;
  EXPECT_EQ(store.Set(Svc("prod", "web")), nullptr);
  std::shared_ptr<const api::Service> old = store.Set(Svc("prod", "web", "2"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->metadata.resource_version, "1");
  EXPECT_EQ(store.Get("prod", "web")->metadata.resource_version, "2");
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.Remove("prod", "web")->metadata.resource_version, "2");
  EXPECT_EQ(store.Remove("prod", "web"), nullptr);
  EXPECT_EQ(store.Get("prod", "web"), nullptr);
  EXPECT_EQ(store.changes(), 4u);
}

// List gives one namespace, by name, and no namespace whose name merely starts the same; ListAll
// gives every namespace's, by namespace and name.
TEST(ObjectStoreTest, ListsOneNamespaceOrAll) {
  ObjectStore<api::Service> store;
  for (auto [ns, name] : {std::pair{"prod", "b"}, {"prod", "a"}, {"prod-2", "a"}, {"dev", "z"}}) {
    store.Set(Svc(ns, name));
  }
  EXPECT_EQ(Names(store.List("prod")), (std::vector<std::string>{"prod/a", "prod/b"}));
  EXPECT_TRUE(store.List("pro").empty());
  EXPECT_EQ(Names(store.ListAll()),
            (std::vector<std::string>{"dev/z", "prod/a", "prod/b", "prod-2/a"}));
}

// A cluster-scoped object is found by its name alone.
TEST(ObjectStoreTest, ClusterScopedObjectsByName) {
  ObjectStore<api::Namespace> store;
  store.Set(std::make_shared<const api::Namespace>(api::Namespace{.metadata = {.name = "team-a"}}));
  ASSERT_NE(store.Get("team-a"), nullptr);
  EXPECT_EQ(store.Get("team-b"), nullptr);
  EXPECT_EQ(store.List("").size(), 1u);
}

// The volume plugins list a class's PVs, and learn why an object they need could not be read;
// either change moves the lister's generation.
TEST(StorageObjectsTest, ListsAClassAndSaysWhatWasUnreadable) {
  StorageObjects storage;
  auto pv = [](std::string name, std::string cls) {
    api::PersistentVolume v;
    v.metadata.name = std::move(name);
    v.storage_class_name = std::move(cls);
    return std::make_shared<const api::PersistentVolume>(std::move(v));
  };
  storage.pvs.Set(pv("a", "fast"));
  storage.pvs.Set(pv("b", "slow"));
  storage.pvs.Set(pv("c", "fast"));
  std::vector<std::string> fast;
  for (const auto& v : storage.ListPersistentVolumes("fast")) fast.push_back(v->metadata.name);
  EXPECT_EQ(fast, (std::vector<std::string>{"a", "c"}));

  uint64_t before = storage.Generation();
  storage.SetUnreadable("persistentVolumeClaim", "default/data", "spec.resources: bad");
  EXPECT_EQ(storage.Unreadable("persistentVolumeClaim", "default/data"), "spec.resources: bad");
  EXPECT_EQ(storage.Unreadable("persistentVolume", "default/data"), "");
  EXPECT_GT(storage.Generation(), before);
  storage.SetUnreadable("persistentVolumeClaim", "default/data", "");
  EXPECT_EQ(storage.Unreadable("persistentVolumeClaim", "default/data"), "");
}

// A device is allocated while some claim's allocation holds it: two claims may (one of them with
// admin access, which holds nothing), and a snapshot taken before a change stays as it was.
TEST(DraObjectsTest, APoolsAllocatedDevicesFollowTheClaims) {
  auto claim = [](std::string name, std::vector<std::string> devices, bool admin = false) {
    api::ResourceClaim c{.metadata = {.name = std::move(name), .namespace_ = "default"}};
    c.allocation.emplace();
    for (std::string& d : devices) {
      c.allocation->results.push_back({.request = "gpu",
                                       .driver = "gpu.example.com",
                                       .pool = "node-1",
                                       .device = std::move(d),
                                       .admin_access = admin});
    }
    return std::make_shared<const api::ResourceClaim>(std::move(c));
  };
  DraObjects dra;
  EXPECT_EQ(dra.AllocatedInPool("gpu.example.com", "node-1"), nullptr);
  dra.resource_claims.Set(claim("a", {"gpu-0", "gpu-1"}));
  dra.resource_claims.Set(claim("admin", {"gpu-2"}, /*admin=*/true));
  std::shared_ptr<const HeldDevices::Pool> before =
      dra.AllocatedInPool("gpu.example.com", "node-1");
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->names, (HeldDevices::Names{"gpu-0", "gpu-1"}));
  EXPECT_EQ(dra.AllocatedInPool("gpu.example.com", "node-2"), nullptr);
  EXPECT_EQ(dra.AllocatedInPool("other.example.com", "node-1"), nullptr);

  // Every pool at once: the same names, one view until a claim changes.
  std::shared_ptr<const HeldDevices::View> view = dra.Allocated();
  EXPECT_EQ(view->InPool("gpu.example.com", "node-1"), before);
  EXPECT_EQ(view->InPool("gpu.example.com", "node-2"), nullptr);
  EXPECT_EQ(dra.Allocated(), view);

  dra.resource_claims.Set(claim("a", {"gpu-1"}));  // Reallocated: gpu-0 is free.
  dra.resource_claims.Set(claim("b", {"gpu-1"}));  // Two claims on one device (admin-like).
  EXPECT_EQ(dra.AllocatedInPool("gpu.example.com", "node-1")->names, (HeldDevices::Names{"gpu-1"}));
  EXPECT_EQ(before->names, (HeldDevices::Names{"gpu-0", "gpu-1"}));
  EXPECT_EQ(dra.Allocated()->InPool("gpu.example.com", "node-1")->names,
            (HeldDevices::Names{"gpu-1"}));
  EXPECT_EQ(view->InPool("gpu.example.com", "node-1"), before);  // An old view stays as it was.
  dra.resource_claims.Remove("default", "a");
  EXPECT_EQ(dra.AllocatedInPool("gpu.example.com", "node-1")->names, (HeldDevices::Names{"gpu-1"}));
  dra.resource_claims.Remove("default", "b");
  EXPECT_EQ(dra.AllocatedInPool("gpu.example.com", "node-1"), nullptr);
}

// Consumable capacity: a result with a share ID holds a share of its device, not the device; the
// shares' consumption adds up, and goes with them.
TEST(DraObjectsTest, SharesOfADeviceAddUpWhatTheyConsume) {
  auto claim = [](std::string name, std::string share, std::string memory) {
    api::ResourceClaim c{.metadata = {.name = std::move(name), .namespace_ = "default"}};
    c.allocation.emplace().results.push_back(
        {.request = "nic",
         .driver = "nic.example.com",
         .pool = "node-1",
         .device = "eth0",
         .share_id = std::move(share),
         .consumed_capacity = {{"bandwidth", *api::Quantity::Parse(memory)}}});
    return std::make_shared<const api::ResourceClaim>(std::move(c));
  };
  DraObjects dra;
  dra.resource_claims.Set(claim("a", "1f0a7ab6-0d44-4a3e-9a59-3a3f2b1c0e01", "2G"));
  dra.resource_claims.Set(claim("b", "1f0a7ab6-0d44-4a3e-9a59-3a3f2b1c0e02", "3G"));
  std::shared_ptr<const HeldDevices::Pool> held = dra.AllocatedInPool("nic.example.com", "node-1");
  ASSERT_NE(held, nullptr);
  EXPECT_TRUE(held->names.empty());  // Not held whole.
  ASSERT_TRUE(held->shares.contains("eth0"));
  EXPECT_EQ(held->shares.at("eth0").count, 2);
  EXPECT_EQ(held->shares.at("eth0").consumed.at("bandwidth").String(), "5G");
  dra.resource_claims.Remove("default", "a");
  held = dra.AllocatedInPool("nic.example.com", "node-1");
  EXPECT_EQ(held->shares.at("eth0").consumed.at("bandwidth").String(), "3G");
  dra.resource_claims.Remove("default", "b");
  EXPECT_EQ(dra.AllocatedInPool("nic.example.com", "node-1"), nullptr);
}

}  // namespace
}  // namespace ksched
