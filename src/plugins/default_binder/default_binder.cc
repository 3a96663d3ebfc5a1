#include "src/plugins/default_binder/default_binder.h"

#include <string>

#include "ksched/strings.h"

namespace ksched::plugins::default_binder {

namespace {

Status FromWriter(const absl::Status& st) {
  if (st.ok()) return Status();
  return Status::Error(std::string(AsStd(st.message())));
}

}  // namespace

Status DefaultBinder::Bind(CycleState&, const api::Pod& pod, std::string_view node) {
  return FromWriter(handle_.writer().Bind(pod, node));
}

void DefaultBinder::BindAsync(CycleState&, const api::Pod& pod, std::string_view node,
                              std::function<void(Status)> done) {
  handle_.writer().BindAsync(
      pod, node, [done = std::move(done)](const absl::Status& st) { done(FromWriter(st)); });
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<DefaultBinder>(handle);
}

}  // namespace ksched::plugins::default_binder
