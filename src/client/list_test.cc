#include "src/client/list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::client {
namespace {

// The items' names, in order, and the list's resourceVersion; or the error.
std::string Walk(std::string_view text) {
  simdjson::dom::parser parser;
  std::vector<std::string> names;
  absl::StatusOr<std::string> version =
      ForEachListItem(text, parser, [&](simdjson::dom::element e) {
        std::string_view name;
        if (e["metadata"]["name"].get_string().get(name) == simdjson::SUCCESS) {
          names.emplace_back(name);
        }
      });
  if (!version.ok()) return "error: " + std::string(version.status().message());
  std::string out = "rv " + *version + ":";
  for (const std::string& n : names) out += " " + n;
  return out;
}

TEST(ForEachListItemTest, HandsOnEachItemInOrderAndTheListsVersion) {
  EXPECT_EQ(Walk(R"({"kind": "PodList", "apiVersion": "v1",
                     "metadata": {"resourceVersion": "42", "continue": ""},
                     "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]})"),
            "rv 42: a b");
  // The metadata after the items; strings with braces, brackets, commas and escaped quotes;
  // scalars and nested arrays in the items; blanks of every kind.
  EXPECT_EQ(Walk("{\"items\":[{\"metadata\":{\"name\":\"x{[,\\\"]}\"},\"spec\":{\"n\":-1.5e3,"
                 "\"t\":true,\"z\":null,\"l\":[[1,{}],[]]}}\t,\r\n{\"metadata\":{\"name\":\"y\"}}],"
                 "\"metadata\":{\"resourceVersion\":\"7\"}}"),
            "rv 7: x{[,\"]} y");
  EXPECT_EQ(Walk(R"({"metadata": {"resourceVersion": "3"}, "items": []})"), "rv 3:");
  // Keys as JSON reads them, escapes and all.
  EXPECT_EQ(
      Walk(
          R"({"it\u0065ms": [{"metadata": {"name": "e"}}], "metadat\u0061": {"resourceVersion": "9"}})"),
      "rv 9: e");
}

TEST(ForEachListItemTest, AMalformedListIsAnError) {
  EXPECT_EQ(Walk(R"({"metadata": {"resourceVersion": "3"}})"), "error: the list has no items");
  EXPECT_THAT(Walk("[]"), ::testing::StartsWith("error: the list is no JSON object of items"));
  EXPECT_THAT(Walk(R"({"items": {"a": 1}})"),
              ::testing::StartsWith("error: the list is no JSON object of items"));
  EXPECT_THAT(Walk(R"({"items": [1]})"),
              ::testing::StartsWith("error: the list is no JSON object of items"));
  // Cut short: inside an item, inside a string, between items.
  EXPECT_THAT(Walk(R"({"items": [{"metadata": {"name": "a"}}, {"metadata": )"),
              ::testing::StartsWith("error: the list is no JSON object of items"));
  EXPECT_THAT(Walk(R"({"items": [{"metadata": {"name": "a)"),
              ::testing::StartsWith("error: the list is no JSON object of items"));
  EXPECT_THAT(Walk(R"({"items": [{"metadata": {"name": "a"}})"),
              ::testing::StartsWith("error: the list is no JSON object of items"));
  // An item that is no valid JSON: simdjson's word for it.
  EXPECT_THAT(Walk(R"({"items": [{"metadata": {"name": "a",}}]})"),
              ::testing::StartsWith("error: "));
  EXPECT_THAT(Walk(R"({"items": [{"metadata": {"name": "a",}}]})"),
              ::testing::Not(::testing::HasSubstr("no JSON object")));
}

}  // namespace
}  // namespace ksched::client
