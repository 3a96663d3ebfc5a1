#include "src/metrics/plugin_families.h"

#include <atomic>
#include <cmath>

#include "fmt/format.h"
#include "ksched/log.h"

namespace ksched::metrics {
namespace {

// Prometheus's data model: [a-zA-Z_:][a-zA-Z0-9_:]* for metric names, no ':' in label names.
bool ValidName(std::string_view name, bool colons) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!(letter || (colons && c == ':') || (i > 0 && c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// Prometheus's DefBuckets.
const std::vector<double>& DefaultBuckets() {
  static const std::vector<double> kBuckets = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};
  return kBuckets;
}

}  // namespace

// One registered metric: its options, its family, and the check every sample passes.
class PluginFamilies::Metric : public PluginCounter, public PluginGauge, public PluginHistogram {
 public:
  Metric(Kind kind, MetricOptions options, FamilyBase& family)
      : kind(kind), options(std::move(options)), family_(family) {}
  virtual ~Metric() = default;

  const Kind kind;
  const MetricOptions options;

 protected:
  // Whether the label values are one per label name; logs the first time they are not.
  bool Fits(std::initializer_list<std::string_view> values) {
    if (values.size() == options.labels.size()) return true;
    if (!warned_.exchange(true)) {
      KLOG_ERROR("A plugin's metric was given the wrong number of label values; not recorded",
                 {"metric", options.name}, {"want", std::to_string(options.labels.size())},
                 {"got", std::to_string(values.size())});
    }
    return false;
  }
  // A family whose kind is the metric's.
  template <typename F>
  F& family() {
    return static_cast<F&>(family_);
  }

 private:
  // A Metric is used only as the kind it was registered as; the other kinds' calls are never made.
  void Add(std::initializer_list<std::string_view>, double) override {}
  void Set(std::initializer_list<std::string_view>, double) override {}
  void Observe(std::initializer_list<std::string_view>, double) override {}

  FamilyBase& family_;
  std::atomic<bool> warned_{false};
};

namespace {

class CounterMetric final : public PluginFamilies::Metric {
 public:
  using Metric::Metric;
  void Add(std::initializer_list<std::string_view> values, double v) override {
    if (!Fits(values)) return;
    if (!(v >= 0)) {
      KLOG_ERROR("A plugin's counter was given a negative value; not recorded",
                 {"metric", options.name}, {"value", fmt::format("{}", v)});
      return;
    }
    family<CounterFamily>().With(values)->Inc(v);
  }
};

class GaugeMetric final : public PluginFamilies::Metric {
 public:
  using Metric::Metric;
  void Set(std::initializer_list<std::string_view> values, double v) override {
    if (Fits(values)) family<GaugeFamily>().With(values)->Set(v);
  }
  void Add(std::initializer_list<std::string_view> values, double v) override {
    if (Fits(values)) family<GaugeFamily>().With(values)->Add(v);
  }
};

class HistogramMetric final : public PluginFamilies::Metric {
 public:
  using Metric::Metric;
  void Observe(std::initializer_list<std::string_view> values, double v) override {
    if (Fits(values)) family<HistogramFamily>().With(values)->Observe(v);
  }
};

bool SameOptions(const MetricOptions& a, const MetricOptions& b) {
  return a.help == b.help && a.labels == b.labels && a.buckets == b.buckets;
}

}  // namespace

PluginFamilies::PluginFamilies(Registry& registry) : registry_(registry) {}

PluginFamilies::~PluginFamilies() = default;

absl::StatusOr<PluginFamilies::Metric*> PluginFamilies::Register(Kind kind,
                                                                 const MetricOptions& options) {
  const std::string& name = options.name;
  if (!ValidName(name, /*colons=*/true)) {
    return absl::InvalidArgumentError(fmt::format("metric name \"{}\" is not valid", name));
  }
  for (const std::string& label : options.labels) {
    if (!ValidName(label, /*colons=*/false) || label.starts_with("__") ||
        (kind == Kind::kHistogram && label == "le")) {
      return absl::InvalidArgumentError(
          fmt::format("metric \"{}\": label name \"{}\" is not valid", name, label));
    }
  }
  if (kind != Kind::kHistogram && !options.buckets.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("metric \"{}\": only a histogram has buckets", name));
  }
  for (size_t i = 0; i < options.buckets.size(); ++i) {
    if (!std::isfinite(options.buckets[i]) ||
        (i > 0 && options.buckets[i] <= options.buckets[i - 1])) {
      return absl::InvalidArgumentError(
          fmt::format("metric \"{}\": buckets must be finite and ascending", name));
    }
  }
  absl::MutexLock lock(&mu_);
  if (auto it = metrics_.find(name); it != metrics_.end()) {
    if (it->second->kind == kind && SameOptions(it->second->options, options)) {
      return it->second.get();
    }
    return absl::AlreadyExistsError(
        fmt::format("metric \"{}\" is already registered with other options", name));
  }
  if (registry_.Has(name)) {
    return absl::AlreadyExistsError(fmt::format("metric \"{}\" is the scheduler's", name));
  }
  std::unique_ptr<Metric> metric;
  switch (kind) {
    case Kind::kCounter:
      metric = std::make_unique<CounterMetric>(
          kind, options,
          registry_.AddCounter(name, options.help, Stability::kAlpha, options.labels));
      break;
    case Kind::kGauge:
      metric = std::make_unique<GaugeMetric>(
          kind, options, registry_.AddGauge(name, options.help, Stability::kAlpha, options.labels));
      break;
    case Kind::kHistogram:
      metric = std::make_unique<HistogramMetric>(
          kind, options,
          registry_.AddHistogram(name, options.help, Stability::kAlpha,
                                 options.buckets.empty() ? DefaultBuckets() : options.buckets,
                                 options.labels));
      break;
  }
  Metric* out = metric.get();
  metrics_.emplace(name, std::move(metric));
  return out;
}

absl::StatusOr<PluginCounter*> PluginFamilies::Counter(const MetricOptions& options) {
  absl::StatusOr<Metric*> m = Register(Kind::kCounter, options);
  if (!m.ok()) return m.status();
  return *m;
}

absl::StatusOr<PluginGauge*> PluginFamilies::Gauge(const MetricOptions& options) {
  absl::StatusOr<Metric*> m = Register(Kind::kGauge, options);
  if (!m.ok()) return m.status();
  return *m;
}

absl::StatusOr<PluginHistogram*> PluginFamilies::Histogram(const MetricOptions& options) {
  absl::StatusOr<Metric*> m = Register(Kind::kHistogram, options);
  if (!m.ok()) return m.status();
  return *m;
}

}  // namespace ksched::metrics
