#include "only_labeled.h"

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
  OnlyLabeledArgs out;
  for (const auto& [key, value] : args.items()) {
    if (key == "apiVersion" || key == "kind") continue;
    if (key != "label" || !value.is_string() || value.get<std::string>().empty()) {
      return absl::InvalidArgumentError(std::string(path) + "." + key +
                                        ": expected a non-empty label name");
    }
    out.label = value.get<std::string>();
  }
  return out;
}

nlohmann::json ArgsToJson(const OnlyLabeledArgs& args) { return {{"label", args.label}}; }

absl::StatusOr<std::unique_ptr<ksched::Plugin>> New(const OnlyLabeledArgs& args, ksched::Handle&) {
  return std::make_unique<OnlyLabeled>(args.label);
}
