#include "only_labeled.h"

#include "ksched/api/field.h"
#include "ksched/handle.h"
#include "ksched/metrics.h"
#include "ksched/status_macros.h"

namespace {

class OnlyLabeled : public ksched::FilterPlugin {
 public:
  OnlyLabeled(std::string label, ksched::PluginCounter* rejected)
      : label_(std::move(label)), rejected_(rejected) {}
  std::string_view Name() const override { return "OnlyLabeled"; }
  ksched::Status Filter(const ksched::CycleState&, const ksched::api::Pod&,
                        const ksched::NodeInfo& node) override {
    if (node.node()->metadata.labels.contains(label_)) return {};
    rejected_->Add({node.name()});
    return ksched::Status::UnschedulableAndUnresolvable("node(s) had no " + label_ + " label");
  }

 private:
  std::string label_;
  ksched::PluginCounter* rejected_;  // only_labeled_rejections_total{node}
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

absl::StatusOr<std::unique_ptr<ksched::Plugin>> New(const OnlyLabeledArgs& args,
                                                    ksched::Handle& handle) {
  // A metric of the plugin's own, served at /metrics beside the scheduler's.
  absl::StatusOr<ksched::PluginCounter*> rejected =
      handle.metrics().Counter({.name = "only_labeled_rejections_total",
                                .help = "Nodes OnlyLabeled rejected for want of the label.",
                                .labels = {"node"}});
  if (!rejected.ok()) return rejected.status();
  return std::make_unique<OnlyLabeled>(args.label, *rejected);
}
