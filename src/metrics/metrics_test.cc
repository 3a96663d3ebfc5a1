#include "src/metrics/metrics.h"

#include <unistd.h>

#include <thread>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/metrics/scheduler_metrics.h"

namespace ksched::metrics {
namespace {

using ::testing::HasSubstr;

TEST(FormatFloatTest, PrintsAsGoDoes) {
  EXPECT_EQ(FormatFloat(0), "0");
  EXPECT_EQ(FormatFloat(3), "3");
  EXPECT_EQ(FormatFloat(0.001), "0.001");
  EXPECT_EQ(FormatFloat(0.0001), "0.0001");
  EXPECT_EQ(FormatFloat(1e-05), "1e-05");
  EXPECT_EQ(FormatFloat(1.5e-05), "1.5e-05");
  EXPECT_EQ(FormatFloat(5242.88), "5242.88");
  EXPECT_EQ(FormatFloat(123456), "123456");
  EXPECT_EQ(FormatFloat(1e6), "1e+06");
  EXPECT_EQ(FormatFloat(1234567), "1.234567e+06");
  EXPECT_EQ(FormatFloat(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatFloat(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatFloat(-1.0 / 0.0), "-Inf");
}

TEST(RegistryTest, WritesTheExpositionFormatAsClientGolang) {
  Registry r;
  CounterFamily& attempts = r.AddCounter("x_attempts_total", "Attempts.\nBy result \\ profile.",
                                         Stability::kStable, {"result", "profile"});
  attempts.With({"scheduled", "b"})->Inc();
  attempts.With({"scheduled", "a"})->Inc(2);
  attempts.With({"error", "a\"q\""})->Inc();
  HistogramFamily& latency =
      r.AddHistogram("x_latency_seconds", "Latency.", Stability::kAlpha, {0.001, 0.01});
  latency.With({})->Observe(0.0005);
  latency.With({})->Observe(0.001);
  latency.With({})->Observe(0.5);
  r.AddGauge("x_empty", "Never set.", Stability::kBeta, {"queue"});
  r.AddGauge("x_plain", "A gauge.", Stability::kNone).With({})->Set(-1.5);

  // Families sorted by name; labels sorted by name; series by those labels' values; a labelled
  // family without series is left out; le is the last label.
  EXPECT_EQ(r.Text(),
            "# HELP x_attempts_total [STABLE] Attempts.\\nBy result \\\\ profile.\n"
            "# TYPE x_attempts_total counter\n"
            "x_attempts_total{profile=\"a\",result=\"scheduled\"} 2\n"
            "x_attempts_total{profile=\"a\\\"q\\\"\",result=\"error\"} 1\n"
            "x_attempts_total{profile=\"b\",result=\"scheduled\"} 1\n"
            "# HELP x_latency_seconds [ALPHA] Latency.\n"
            "# TYPE x_latency_seconds histogram\n"
            "x_latency_seconds_bucket{le=\"0.001\"} 2\n"
            "x_latency_seconds_bucket{le=\"0.01\"} 2\n"
            "x_latency_seconds_bucket{le=\"+Inf\"} 3\n"
            "x_latency_seconds_sum 0.5015\n"
            "x_latency_seconds_count 3\n"
            "# HELP x_plain A gauge.\n"
            "# TYPE x_plain gauge\n"
            "x_plain -1.5\n");
}

TEST(RegistryTest, CollectorsRunBeforeEachScrape) {
  Registry r;
  Gauge* g = r.AddGauge("x_queue", "Queue length.", Stability::kAlpha).With({});
  int scrapes = 0;
  r.AddCollector([&] { g->Set(++scrapes * 10); });
  EXPECT_THAT(r.Text(), HasSubstr("x_queue 10\n"));
  EXPECT_THAT(r.Text(), HasSubstr("x_queue 20\n"));
}

TEST(RegistryTest, CountsFromManyThreadsAddUp) {
  Registry r;
  HistogramFamily& h =
      r.AddHistogram("x_h", "H.", Stability::kAlpha, ExponentialBuckets(1, 2, 3), {"worker"});
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      Histogram* s = h.With({"w"});
      for (int i = 0; i < 10000; ++i) s->Observe(i % 8);
    });
  }
  for (auto& t : threads) t.join();
  const std::string text = r.Text();
  // 0 and 1 fall in le=1; 2 in le=2; 3 and 4 in le=4; 5..7 only in +Inf.
  EXPECT_THAT(text, HasSubstr("x_h_bucket{worker=\"w\",le=\"1\"} 10000\n"));
  EXPECT_THAT(text, HasSubstr("x_h_bucket{worker=\"w\",le=\"4\"} 25000\n"));
  EXPECT_THAT(text, HasSubstr("x_h_count{worker=\"w\"} 40000\n"));
  EXPECT_THAT(text, HasSubstr("x_h_sum{worker=\"w\"} 140000\n"));
}

TEST(SchedulerMetricsTest, UpstreamNamesAndBuckets) {
  Registry r;
  SchedulerMetrics m(&r);
  FrameworkMetrics fm(&m, "default-scheduler");
  fm.ObservePoint(Point::kFilter, Code::kUnschedulable, 0.0003);
  fm.ObservePlugin("NodeResourcesFit", Point::kScore, Code::kSuccess, 2e-05);
  fm.CountEvaluations("NodeResourcesFit", Point::kFilter, 7);
  const std::string text = r.Text();
  EXPECT_THAT(text, HasSubstr("scheduler_framework_extension_point_duration_seconds_bucket{"
                              "extension_point=\"Filter\",profile=\"default-scheduler\","
                              "status=\"Unschedulable\",le=\"0.0004\"} 1\n"));
  // Buckets start at 0.01 ms and grow by 1.5, multiplied step by step as upstream does, so the
  // labels carry the same rounding as kube-scheduler's.
  for (const char* le : {"1e-05", "1.5000000000000002e-05", "0.0002562890625000001",
                         "0.0012974633789062506", "0.02216837820053101"}) {
    EXPECT_THAT(text, HasSubstr(fmt::format("extension_point=\"Score\",plugin=\"NodeResourcesFit\","
                                            "status=\"Success\",le=\"{}\"}}",
                                            le)));
  }
  EXPECT_THAT(text, HasSubstr("scheduler_plugin_evaluation_total{extension_point=\"Filter\","
                              "plugin=\"NodeResourcesFit\",profile=\"default-scheduler\"} 7\n"));
  // A labelled family shows once it has a series, as with client_golang.
  EXPECT_THAT(text, ::testing::Not(HasSubstr("scheduler_schedule_attempts_total")));
  m.schedule_attempts.With({"scheduled", "default-scheduler"})->Inc();
  EXPECT_THAT(r.Text(), HasSubstr("# HELP scheduler_schedule_attempts_total [STABLE] Number of"));
  EXPECT_THAT(text, HasSubstr("scheduler_preemption_attempts_total 0\n"));
}

// What plugins record through the SDK's PluginMetrics, under upstream's names.
TEST(SchedulerMetricsTest, PluginsRecordUpstreamsSeries) {
  Registry r;
  SchedulerMetrics m(&r);
  PluginMetricsRecorder plugins(&m, "default-scheduler");
  EXPECT_THAT(r.Text(), ::testing::Not(HasSubstr("scheduler_volume_scheduling_stage_error_total")));
  plugins.VolumeSchedulingStageFailed("bind");
  plugins.VolumeSchedulingStageFailed("bind");
  plugins.VolumeSchedulingStageFailed("predicate");
  plugins.PreemptionAttempted();
  plugins.PreemptionVictims(3);
  const std::string text = r.Text();
  EXPECT_THAT(text, HasSubstr("# HELP scheduler_volume_scheduling_stage_error_total [ALPHA] "
                              "Volume scheduling stage error count\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_volume_scheduling_stage_error_total{operation=\"bind\"} "
                              "2\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_volume_scheduling_stage_error_total{operation="
                              "\"predicate\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_preemption_attempts_total 1\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_preemption_victims_bucket{le=\"4\"} 1\n"));
  PluginMetricsRecorder none(
      nullptr, "default-scheduler");  // `ksched simulate`: nothing is recorded, nothing fails.
  none.VolumeSchedulingStageFailed("bind");
}

// A plugin's own metrics: served as component-base serves an ALPHA metric; one family for every
// registration with the same options; refused, not aborted, where they clash or are malformed.
TEST(PluginFamiliesTest, RegistersServesAndRefuses) {
  Registry r;
  SchedulerMetrics m(&r);
  PluginFamilies& f = m.plugin_families;
  absl::StatusOr<PluginCounter*> hits =
      f.Counter({.name = "cache_hits_total", .help = "Hits.", .labels = {"zone"}});
  ASSERT_TRUE(hits.ok()) << hits.status();
  (*hits)->Add({"a"});
  (*hits)->Add({"a"}, 2);
  (*hits)->Add({"a", "extra"});  // Not one value per label: not recorded.
  (*hits)->Add({"b"}, -1);       // A counter does not go down: not recorded.
  absl::StatusOr<PluginCounter*> again =
      f.Counter({.name = "cache_hits_total", .help = "Hits.", .labels = {"zone"}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *hits);

  absl::StatusOr<PluginGauge*> size = f.Gauge({.name = "cache_size", .help = "Entries."});
  ASSERT_TRUE(size.ok());
  (*size)->Set({}, 10);
  (*size)->Add({}, -3);
  absl::StatusOr<PluginHistogram*> wait =
      f.Histogram({.name = "wait_seconds", .help = "Waits.", .buckets = {0.1, 1}});
  ASSERT_TRUE(wait.ok());
  (*wait)->Observe({}, 0.5);
  absl::StatusOr<PluginHistogram*> defaults = f.Histogram({.name = "other_seconds", .help = "O."});
  ASSERT_TRUE(defaults.ok());
  (*defaults)->Observe({}, 3);

  const std::string text = r.Text();
  EXPECT_THAT(text, HasSubstr("# HELP cache_hits_total [ALPHA] Hits.\n# TYPE cache_hits_total "
                              "counter\ncache_hits_total{zone=\"a\"} 3\n# HELP"));
  EXPECT_THAT(text, HasSubstr("cache_size 7\n"));
  EXPECT_THAT(text,
              HasSubstr("wait_seconds_bucket{le=\"0.1\"} 0\nwait_seconds_bucket{le=\"1\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("other_seconds_bucket{le=\"2.5\"} 0\nother_seconds_bucket{le=\"5\"} 1\n"));

  auto code = [](const auto& st) { return st.status().code(); };
  EXPECT_EQ(code(f.Counter({.name = "cache_hits_total", .help = "Other help."})),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(code(f.Gauge({.name = "cache_hits_total", .help = "Hits.", .labels = {"zone"}})),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(f.Counter({.name = "scheduler_preemption_attempts_total", .help = "Mine."})
                .status()
                .message(),
            "metric \"scheduler_preemption_attempts_total\" is the scheduler's");
  EXPECT_EQ(f.Counter({.name = "9lives", .help = "H."}).status().message(),
            "metric name \"9lives\" is not valid");
  EXPECT_EQ(f.Counter({.name = "x_total", .help = "H.", .labels = {"__name"}}).status().message(),
            "metric \"x_total\": label name \"__name\" is not valid");
  EXPECT_EQ(code(f.Histogram({.name = "h", .help = "H.", .labels = {"le"}})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(f.Histogram({.name = "h", .help = "H.", .buckets = {1, 1}})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(f.Gauge({.name = "g", .help = "H.", .buckets = {1}})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(r.Has("h"));
  EXPECT_FALSE(r.Has("g"));
}

// Where nothing serves /metrics (`ksched simulate`), a plugin still registers and records.
TEST(PluginFamiliesTest, AVoidRecorderStillGivesMetrics) {
  PluginMetricsRecorder none(nullptr, "default-scheduler");
  absl::StatusOr<PluginCounter*> c = none.Counter({.name = "x_total", .help = "X."});
  ASSERT_TRUE(c.ok());
  (*c)->Add({});
  none.PreemptionAttempted();
}

TEST(ProcessMetricsTest, ReportsThisProcess) {
  Registry r;
  AddProcessMetrics(&r);
  const std::string text = r.Text();
  EXPECT_THAT(text, HasSubstr("# TYPE process_cpu_seconds_total counter\n"));
  EXPECT_THAT(text, HasSubstr("# HELP process_resident_memory_bytes Resident memory size"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("process_resident_memory_bytes 0\n")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("process_start_time_seconds 0\n")));
  // Another process by pid, as the side-by-side bench reads the schedulers; a gone one is zeros.
  EXPECT_GT(ReadProcessStat(getpid()).start_time, 0);
  EXPECT_EQ(ReadProcessStat(-1).cpu_seconds, 0);
}

}  // namespace
}  // namespace ksched::metrics
