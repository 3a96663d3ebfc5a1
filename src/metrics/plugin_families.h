// PluginFamilies: the metrics plugins register of their own (PluginMetrics::Counter, Gauge and
// Histogram, ksched/metrics.h), in one Registry, by name. Registering a name again with the same
// type and options gives the metric registered first, so that every profile's instance of a
// plugin records into one family.
//
//   metrics::PluginFamilies families(registry);
//   absl::StatusOr<PluginCounter*> hits = families.Counter({.name = "x_hits_total", .help =
//   "..."});
//
// The scheduler's own families must be in the registry before plugins register theirs (they are:
// ksched registers them before it makes the profiles), so that a plugin's name that clashes is
// refused rather than the scheduler's.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/metrics.h"
#include "src/metrics/metrics.h"

namespace ksched::metrics {

class PluginFamilies {
 public:
  explicit PluginFamilies(Registry& registry);
  PluginFamilies(const PluginFamilies&) = delete;
  PluginFamilies& operator=(const PluginFamilies&) = delete;
  ~PluginFamilies();

  absl::StatusOr<PluginCounter*> Counter(const MetricOptions& options);
  absl::StatusOr<PluginGauge*> Gauge(const MetricOptions& options);
  absl::StatusOr<PluginHistogram*> Histogram(const MetricOptions& options);

  // The base of the three kinds of plugin metric (plugin_families.cc).
  class Metric;

 private:
  enum class Kind { kCounter, kGauge, kHistogram };
  // The metric registered under options.name as `kind`, made and registered if it is new.
  absl::StatusOr<Metric*> Register(Kind kind, const MetricOptions& options);

  Registry& registry_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Metric>, std::less<>> metrics_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::metrics
