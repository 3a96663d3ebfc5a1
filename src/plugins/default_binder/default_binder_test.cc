#include "src/plugins/default_binder/default_binder.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::default_binder {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakePod;

TEST(DefaultBinderTest, BindsThroughTheWriter) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "DefaultBinder");
  auto* binder = dynamic_cast<BindPlugin*>(plugin->get());
  ASSERT_NE(binder, nullptr);

  CycleState state;
  api::Pod pod = MakePod().Name("web").Namespace("ns1").Obj();
  Status s = binder->Bind(state, pod, "node-1");
  EXPECT_TRUE(s.ok()) << s.Message();
  EXPECT_EQ(handle.recording_writer().binds,
            (std::map<std::string, std::string>{{"ns1/web", "node-1"}}));
}

TEST(DefaultBinderTest, WriterErrorBecomesError) {
  FakeHandle handle;
  handle.recording_writer().bind_error = absl::NotFoundError("pods \"web\" not found");
  DefaultBinder binder(handle);
  CycleState state;
  Status s = binder.Bind(state, MakePod().Name("web").Obj(), "node-1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "pods \"web\" not found");
  EXPECT_TRUE(handle.recording_writer().binds.empty());
}

TEST(DefaultBinderTest, BindAsyncAnswersWhenTheWriterDoes) {
  FakeHandle handle;
  handle.recording_writer().hold_binds = true;
  DefaultBinder binder(handle);
  CycleState state;
  api::Pod web = MakePod().Name("web").Namespace("ns1").Obj();
  std::optional<Status> answer;
  binder.BindAsync(state, web, "node-1", [&](Status s) { answer = std::move(s); });
  EXPECT_FALSE(answer.has_value());  // The writer has not answered.
  EXPECT_TRUE(handle.recording_writer().binds.empty());

  EXPECT_EQ(handle.recording_writer().AnswerHeldBinds(), 1u);
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->ok()) << answer->Message();
  EXPECT_EQ(handle.recording_writer().binds,
            (std::map<std::string, std::string>{{"ns1/web", "node-1"}}));
}

TEST(DefaultBinderTest, BindAsyncWriterErrorBecomesError) {
  FakeHandle handle;
  handle.recording_writer().bind_error = absl::NotFoundError("pods \"web\" not found");
  DefaultBinder binder(handle);
  CycleState state;
  std::optional<Status> answer;
  binder.BindAsync(state, MakePod().Name("web").Obj(), "node-1",
                   [&](Status s) { answer = std::move(s); });
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->code(), Code::kError);
  EXPECT_EQ(answer->Message(), "pods \"web\" not found");
}

}  // namespace
}  // namespace ksched::plugins::default_binder
