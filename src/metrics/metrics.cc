#include "src/metrics/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "fmt/format.h"
#include "src/base/log.h"

namespace ksched::metrics {
namespace {

const char* StabilityPrefix(Stability s) {
  switch (s) {
    case Stability::kNone:
      return "";
    case Stability::kAlpha:
      return "[ALPHA] ";
    case Stability::kBeta:
      return "[BETA] ";
    case Stability::kStable:
      return "[STABLE] ";
  }
  return "";
}

// The exposition format escapes \ and newline in help, and also " in label values.
std::string Escape(std::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

// One sample line: `name{labels} value`, without braces when there are no labels.
void AppendSample(std::string* out, std::string_view name, const std::string& labels,
                  std::string_view value) {
  *out += fmt::format("{}{}{}{} {}\n", name, labels.empty() ? "" : "{", labels,
                      labels.empty() ? "" : "}", value);
}

}  // namespace

Histogram::Histogram(const std::vector<double>* bounds)
    : bounds_(*bounds), buckets_(new std::atomic<uint64_t>[bounds->size()]) {
  for (size_t i = 0; i < bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) {
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);  // First bound >= v.
  if (it != bounds_.end()) buckets_[it - bounds_.begin()].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

uint64_t Histogram::CumulativeCount(size_t i) const {
  uint64_t n = 0;
  for (size_t j = 0; j <= i && j < bounds_.size(); ++j) {
    n += buckets_[j].load(std::memory_order_relaxed);
  }
  return n;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

std::string FormatFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // The shortest digits that round-trip, in scientific form ("1.5e-05", as Go writes it too). Go's
  // shortest %g keeps that form when the exponent is below -4 or at least 6.
  char sci[64];
  auto r = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  std::string_view s(sci, r.ptr - sci);
  size_t at = s.find('e') + 1;
  if (s[at] == '+') ++at;  // from_chars takes a '-' but no '+'.
  int exp = 0;
  std::from_chars(s.data() + at, s.data() + s.size(), exp);
  if (exp < -4 || exp >= 6) return std::string(s);
  char fixed[64];
  r = std::to_chars(fixed, fixed + sizeof fixed, v, std::chars_format::fixed);
  return std::string(fixed, r.ptr - fixed);
}

// --- Families -----------------------------------------------------------------------------------

FamilyBase::FamilyBase(std::string name, std::string help, Stability stability, std::string type,
                       std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      stability_(stability),
      type_(std::move(type)),
      label_names_(std::move(label_names)) {}

void FamilyBase::CheckArity(size_t n) const {
  if (n != label_names_.size()) {
    KLOG_ERROR("Metric used with the wrong number of labels", {"metric", name_},
               {"want", std::to_string(label_names_.size())}, {"got", std::to_string(n)});
    std::abort();
  }
}

void FamilyBase::WriteText(std::string* out) const {
  auto series = Series();
  if (series.empty()) return;
  // client_golang sorts the labels by name, and the series by their values in that order.
  std::vector<size_t> order(label_names_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return label_names_[a] < label_names_[b]; });
  auto sorted_values = [&](const Labels& l) {
    std::vector<std::string_view> v;
    v.reserve(order.size());
    for (size_t i : order) v.push_back(l[i]);
    return v;
  };
  std::stable_sort(series.begin(), series.end(), [&](const auto& a, const auto& b) {
    return sorted_values(*a.first) < sorted_values(*b.first);
  });
  *out += fmt::format("# HELP {} {}{}\n# TYPE {} {}\n", name_, StabilityPrefix(stability_),
                      Escape(help_, false), name_, type_);
  for (const auto& [labels, s] : series) {
    std::string rendered;
    for (size_t i : order) {
      if (!rendered.empty()) rendered += ',';
      rendered += fmt::format("{}=\"{}\"", label_names_[i], Escape((*labels)[i], true));
    }
    WriteSeries(s, rendered, out);
  }
}

template <>
void Family<Counter>::WriteSeries(const void* s, const std::string& labels,
                                  std::string* out) const {
  AppendSample(out, name_, labels, FormatFloat(static_cast<const Counter*>(s)->Value()));
}

template <>
void Family<Gauge>::WriteSeries(const void* s, const std::string& labels, std::string* out) const {
  AppendSample(out, name_, labels, FormatFloat(static_cast<const Gauge*>(s)->Value()));
}

template <>
void Family<Histogram>::WriteSeries(const void* s, const std::string& labels,
                                    std::string* out) const {
  const auto& h = *static_cast<const Histogram*>(s);
  const std::string sep = labels.empty() ? "" : ",";
  // Read the count first: buckets observed after it may only make +Inf look smaller than them,
  // which Prometheus tolerates better than the reverse.
  const uint64_t count = h.Count();
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative = h.CumulativeCount(i);
    *out += fmt::format("{}_bucket{{{}{}le=\"{}\"}} {}\n", name_, labels, sep,
                        FormatFloat(bounds_[i]), cumulative);
  }
  *out += fmt::format("{}_bucket{{{}{}le=\"+Inf\"}} {}\n", name_, labels, sep,
                      std::max(count, cumulative));
  AppendSample(out, name_ + "_sum", labels, FormatFloat(h.Sum()));
  AppendSample(out, name_ + "_count", labels, std::to_string(std::max(count, cumulative)));
}

// --- Registry -----------------------------------------------------------------------------------

template <typename F>
F& Registry::Add(std::unique_ptr<F> family) {
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = families_.emplace(family->name(), nullptr);
  if (!inserted) {
    KLOG_ERROR("Metric registered twice", {"metric", family->name()});
    std::abort();
  }
  F& ref = *family;
  it->second = std::move(family);
  return ref;
}

CounterFamily& Registry::AddCounter(std::string name, std::string help, Stability stability,
                                    std::vector<std::string> labels) {
  return Add(std::make_unique<CounterFamily>(std::move(name), std::move(help), stability, "counter",
                                             std::move(labels)));
}

GaugeFamily& Registry::AddGauge(std::string name, std::string help, Stability stability,
                                std::vector<std::string> labels) {
  return Add(std::make_unique<GaugeFamily>(std::move(name), std::move(help), stability, "gauge",
                                           std::move(labels)));
}

HistogramFamily& Registry::AddHistogram(std::string name, std::string help, Stability stability,
                                        std::vector<double> bounds,
                                        std::vector<std::string> labels) {
  return Add(std::make_unique<HistogramFamily>(std::move(name), std::move(help), stability,
                                               "histogram", std::move(labels), std::move(bounds)));
}

bool Registry::Has(std::string_view name) const {
  absl::MutexLock lock(&mu_);
  return families_.contains(name);
}

void Registry::AddCollector(std::function<void()> collect) {
  absl::MutexLock lock(&mu_);
  collectors_.push_back(std::move(collect));
}

std::string Registry::Text() const {
  std::vector<std::function<void()>> collectors;
  {
    absl::MutexLock lock(&mu_);
    collectors = collectors_;
  }
  for (const auto& c : collectors) c();
  std::string out;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, family] : families_) family->WriteText(&out);
  return out;
}

}  // namespace ksched::metrics
