#include "src/client/cluster_listing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/testing/loopback_server.h"

namespace ksched::client {
namespace {

using ::testing::ElementsAre;

// An API server that serves one node and one pod, the pod with a field of a newer release, and
// no other kind.
TEST(ClusterListingTest, FieldsOfANewerApiServerAreNamedAndTheObjectsKept) {
  testing::LoopbackServer s;
  s.server().Get("/api/v1/nodes", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7"},
        "items":[{"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4"}}}]})",
                    "application/json");
  });
  s.server().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},
        "items":[{"metadata":{"name":"web","namespace":"default"},
                  "spec":{"containers":[{"name":"c"}],"gangOfTheFuture":{"size":3}}}]})",
                    "application/json");
  });
  s.server().Get(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  ASSERT_TRUE(s.Start());
  auto http = HttpClient::Create({.server = s.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  absl::StatusOr<ClusterListing> snapshot = ListCluster(**http);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->objects.size(), 2u);
  EXPECT_THAT(snapshot->unknown_fields,
              ElementsAre("/api/v1/pods default/web: unknown field \"spec.gangOfTheFuture\""));
}

// The custom resources asked for are listed as the kinds of the table are: their objects kept with
// their resource, one the server does not serve (its CRD not installed) left out with a warning.
TEST(ClusterListingTest, CustomResourcesAreListedOrLeftOutWhereNotServed) {
  testing::LoopbackServer s;
  s.server().Get("/api/v1/nodes", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"n1"}}]})",
                    "application/json");
  });
  s.server().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"metadata":{"resourceVersion":"7"},"items":[]})", "application/json");
  });
  s.server().Get("/apis/scheduling.x-k8s.io/v1alpha1/podgroups",
                 [](const httplib::Request&, httplib::Response& res) {
                   res.set_content(R"({"metadata":{"resourceVersion":"8"},"items":[
                     {"metadata":{"name":"train","namespace":"ml"},"spec":{"minMember":3}}]})",
                                   "application/json");
                 });
  s.server().Get(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  ASSERT_TRUE(s.Start());
  auto http = HttpClient::Create({.server = s.url()});
  ASSERT_TRUE(http.ok()) << http.status();
  absl::StatusOr<ClusterListing> listing =
      ListCluster(**http, {{.resource = "podgroups.v1alpha1.scheduling.x-k8s.io"},
                           {.resource = "widgets.v1.example.com"}});
  ASSERT_TRUE(listing.ok()) << listing.status();
  ASSERT_EQ(listing->custom.size(), 1u);
  EXPECT_EQ(listing->custom[0].first, "podgroups.v1alpha1.scheduling.x-k8s.io");
  EXPECT_EQ(listing->custom[0].second->metadata.namespace_, "ml");
  EXPECT_EQ(listing->custom[0].second->object["spec"]["minMember"], 3);
  EXPECT_THAT(listing->warnings,
              ::testing::Contains(::testing::StartsWith("listing /apis/example.com/v1/widgets: ")));
}

}  // namespace
}  // namespace ksched::client
