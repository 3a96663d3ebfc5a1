// Metrics: counters, gauges and histograms with labels, written in Prometheus's text exposition
// format as k8s.io/component-base/metrics writes them (help prefixed with the stability level,
// labels sorted by name, series sorted by label values, Go's float formatting). Hand-written:
// Debian packages no C++ Prometheus client, and this is all we need of one.
//
//   metrics::Registry registry;
//   auto& attempts = registry.AddCounter("scheduler_schedule_attempts_total", "Number of ...",
//                                        Stability::kStable, {"result", "profile"});
//   Counter* scheduled = attempts.With({"scheduled", "default-scheduler"});  // look up once
//   scheduled->Inc();
//   std::string text = registry.Text();  // for GET /metrics
//
// Thread safety: everything may be called concurrently. Families and series live as long as the
// registry, so hot paths look their series up once and keep the pointer.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace ksched::metrics {

// kNone: not a component-base metric (the process metrics), so no prefix in its help.
enum class Stability { kNone, kAlpha, kBeta, kStable };

class Counter {
 public:
  void Inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  // For collectors that mirror a counter kept elsewhere (the process's CPU time).
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds` are the buckets' upper bounds, ascending; +Inf is implied. Not copied: the family
  // owns them.
  explicit Histogram(const std::vector<double>* bounds);
  void Observe(double v);
  uint64_t Count() const { return count_.load(std::memory_order_relaxed); }
  double Sum() const { return sum_.load(std::memory_order_relaxed); }
  // Observations <= bounds[i] (cumulative, as exposed).
  uint64_t CumulativeCount(size_t i) const;

 private:
  const std::vector<double>& bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // Not cumulative; one per bound.
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

// Prometheus's ExponentialBuckets, computed the same way so that `le` labels print the same.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// A float as Go's strconv.FormatFloat(v, 'g', -1, 64) prints it, and as the exposition format
// does: "0.001", "1.5e-05", "1e+06", "+Inf", "NaN".
std::string FormatFloat(double v);

class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, Stability stability, std::string type,
             std::vector<std::string> label_names);
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  const std::string& name() const { return name_; }
  // Appends the family's HELP, TYPE and series lines; nothing when it has no series.
  void WriteText(std::string* out) const;

 protected:
  using Labels = std::vector<std::string>;
  // The series' label values (in the declared order) → the series, in no order: WriteText sorts.
  virtual std::vector<std::pair<const Labels*, const void*>> Series() const = 0;
  virtual void WriteSeries(const void* series, const std::string& labels,
                           std::string* out) const = 0;
  void CheckArity(size_t n) const;

  const std::string name_, help_;
  const Stability stability_;
  const std::string type_;
  const std::vector<std::string> label_names_;
};

// Series of one metric type T (Counter, Gauge or Histogram) keyed by label values.
template <typename T>
class Family : public FamilyBase {
 public:
  Family(std::string name, std::string help, Stability stability, std::string type,
         std::vector<std::string> label_names, std::vector<double> bounds = {})
      : FamilyBase(std::move(name), std::move(help), stability, std::move(type),
                   std::move(label_names)),
        bounds_(std::move(bounds)) {
    if (label_names_.empty()) With({});  // An unlabelled metric is always exposed.
  }

  // The series with these label values (one per label name, in order), created on first use.
  // Finding an existing series allocates nothing.
  T* With(std::initializer_list<std::string_view> values) {
    CheckArity(values.size());
    const std::span<const std::string_view> key(values.begin(), values.size());
    absl::MutexLock lock(&mu_);
    auto it = series_.find(key);
    if (it == series_.end()) it = series_.emplace(Labels(key.begin(), key.end()), Make()).first;
    return it->second.get();
  }

 protected:
  std::vector<std::pair<const Labels*, const void*>> Series() const override {
    absl::MutexLock lock(&mu_);
    std::vector<std::pair<const Labels*, const void*>> out;
    for (const auto& [labels, s] : series_) out.emplace_back(&labels, s.get());
    return out;
  }
  void WriteSeries(const void* series, const std::string& labels, std::string* out) const override;

 private:
  std::unique_ptr<T> Make() const {
    if constexpr (std::is_same_v<T, Histogram>) {
      return std::make_unique<T>(&bounds_);
    } else {
      return std::make_unique<T>();
    }
  }

  // Hashes and compares label values, so that a lookup by string_views stands for the stored
  // strings.
  struct LabelsHash {
    using is_transparent = void;
    template <typename L>
    size_t operator()(const L& labels) const {
      size_t h = labels.size();
      for (const auto& v : labels) h = absl::HashOf(h, absl::string_view(v.data(), v.size()));
      return h;
    }
  };
  struct LabelsEq {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
  };

  const std::vector<double> bounds_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<Labels, std::unique_ptr<T>, LabelsHash, LabelsEq> series_
      ABSL_GUARDED_BY(mu_);
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Each name may be added once (a second Add is a programming error and aborts).
  CounterFamily& AddCounter(std::string name, std::string help, Stability stability,
                            std::vector<std::string> labels = {});
  GaugeFamily& AddGauge(std::string name, std::string help, Stability stability,
                        std::vector<std::string> labels = {});
  HistogramFamily& AddHistogram(std::string name, std::string help, Stability stability,
                                std::vector<double> bounds, std::vector<std::string> labels = {});
  // Runs before every Text(), to refresh gauges that are read rather than kept (queue lengths,
  // process figures).
  void AddCollector(std::function<void()> collect);

  // The exposition of every family, sorted by name.
  std::string Text() const;
  // Whether a family of this name was added.
  bool Has(std::string_view name) const;

 private:
  template <typename F>
  F& Add(std::unique_ptr<F> family);

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<FamilyBase>, std::less<>> families_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void()>> collectors_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::metrics
