#include "src/plugins/default_binder/default_binder.h"

#include <string>

#include "src/base/strings.h"

namespace ksched::plugins::default_binder {

Status DefaultBinder::Bind(CycleState&, const api::Pod& pod, std::string_view node) {
  absl::Status st = handle_.writer().Bind(pod, node);
  if (st.ok()) return Status();
  return Status::Error(std::string(AsStd(st.message())));
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<DefaultBinder>(handle);
}

}  // namespace ksched::plugins::default_binder
