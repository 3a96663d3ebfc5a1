#include "src/base/lazy_library.h"

#include <gtest/gtest.h>

#include <string>

namespace ksched {
namespace {

TEST(LazyLibraryTest, ALibraryThatCannotBeLoadedIsAnErrorNamingItAndWhatNeedsIt) {
  LazyLibrary library("libksched-no-such-library.so.1", "the test's transport");
  for (int call = 0; call < 2; ++call) {  // The second call gives the first one's answer.
    absl::Status st = library.Open();
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(st.message().find("libksched-no-such-library.so.1 cannot be loaded ("),
              std::string_view::npos)
        << st;
    EXPECT_NE(st.message().find("ksched needs it for the test's transport"), std::string_view::npos)
        << st;
  }
  EXPECT_EQ(library.Function<int()>("anything"), nullptr);
}

// libcurl, which no part of ksched links: loaded by Open(), not before.
TEST(LazyLibraryTest, TheLibraryIsLoadedByOpenAndItsFunctionsFoundByName) {
  ASSERT_FALSE(LazyLibrary::IsLoaded("libcurl.so.4"));
  LazyLibrary library("libcurl.so.4", "the test");
  ASSERT_TRUE(library.Open().ok());
  EXPECT_TRUE(LazyLibrary::IsLoaded("libcurl.so.4"));
  auto* version = library.Function<const char*()>("curl_version");
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(std::string(version()).substr(0, 8), "libcurl/");
  EXPECT_EQ(library.Function<int()>("curl_no_such_function"), nullptr);
}

}  // namespace
}  // namespace ksched
