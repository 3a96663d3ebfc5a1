#include "only_labeled.h"

#include "ksched/api/field.h"
#include "ksched/status_macros.h"

namespace {

class OnlyLabeled : public ksched::FilterPlugin {
 public:
  explicit OnlyLabeled(std::string label) : label_(std::move(label)) {}
  std::string_view Name() const override { return "OnlyLabeled"; }
  ksched::Status Filter(const ksched::CycleState&, const ksched::api::Pod&,
                        const ksched::NodeInfo& node) override {
    if (node.node()->metadata.labels.contains(label_)) return {};
    return ksched::Status::UnschedulableAndUnresolvable("node(s) had no " + label_ + " label");
  }

 private:
  std::string label_;
};

}  // namespace

absl::StatusOr<OnlyLabeledArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  namespace field = ksched::api::field;
  OnlyLabeledArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(field::CheckObject(args, path, {"label"}, /*type_meta=*/true));
  KSCHED_RETURN_IF_ERROR(field::DecodeOptionalString(args, path, "label", &out.label));
  field::ErrorList errs;
  field::ValidateLabelName(out.label, field::Child(path, "label"), errs);
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json ArgsToJson(const OnlyLabeledArgs& args) { return {{"label", args.label}}; }

absl::StatusOr<std::unique_ptr<ksched::Plugin>> New(const OnlyLabeledArgs& args, ksched::Handle&) {
  return std::make_unique<OnlyLabeled>(args.label);
}
