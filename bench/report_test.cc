#include "bench/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::bench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ThroughputSamplesTest, OneSamplePerSecondButTheFirstAndTheLast) {
  // Second 100: 1 bind (left out: the run started within it). 101: 10. 102: 20. 103: none, so
  // it shares the 6 of 104 (3 pods/s each). 105: 1 (left out: the last pod bound within it).
  std::vector<int64_t> binds(1, 100);
  binds.insert(binds.end(), 10, 101);
  binds.insert(binds.end(), 20, 102);
  binds.insert(binds.end(), 6, 104);
  binds.push_back(105);
  std::reverse(binds.begin(), binds.end());  // The order they come in does not matter.
  EXPECT_THAT(ThroughputSamples(binds), ElementsAre(10, 20, 3, 3));
}

TEST(ThroughputSamplesTest, NoSamplesFromARunOfTwoSecondsOrNone) {
  EXPECT_TRUE(ThroughputSamples({}).empty());
  EXPECT_TRUE(ThroughputSamples({7, 7, 8}).empty());
}

TEST(SummarizeTest, MeanAndScheduerPerfsPercentiles) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);
  Throughput t = Summarize(samples);
  EXPECT_DOUBLE_EQ(t.average, 50.5);
  EXPECT_DOUBLE_EQ(t.p50, 50);
  EXPECT_DOUBLE_EQ(t.p90, 90);
  EXPECT_DOUBLE_EQ(t.p99, 99);
  Throughput one = Summarize({7});
  EXPECT_DOUBLE_EQ(one.p50, 7);
  EXPECT_DOUBLE_EQ(one.p99, 7);
}

// GangPreemptionBasic on 2026-12-07: kube-scheduler's 100 binds gave one sample, its busiest
// second (30), ksched's two bursts none; both are reported by their mean rate.
TEST(ReportedAverageTest, TheMeanRateOfARunWithFewerThanThreeSamples) {
  EXPECT_DOUBLE_EQ(ReportedAverage(Summarize({30}), 1, 100, 4.0), 25);
  EXPECT_DOUBLE_EQ(ReportedAverage(Summarize({}), 0, 100, 5.0), 20);
  EXPECT_DOUBLE_EQ(ReportedAverage(Summarize({10, 20, 30}), 3, 100, 50.0), 20);
  EXPECT_DOUBLE_EQ(ReportedAverage(Summarize({}), 0, 0, 0), 0);
}

WorkloadResult Basic() {
  WorkloadResult w{.workload = {.name = "SchedulingBasic",
                                .nodes = 10,
                                .init_pods = 5,
                                .measure_pods = 100,
                                .threshold = 270}};
  w.runs.push_back({.runner = "ceiling",
                    .bound = 100,
                    .samples = {400, 400},
                    .throughput = {.average = 400},
                    .cpu_seconds = 0.01,
                    .peak_rss_mib = 10});
  w.runs.push_back({.runner = "kube-scheduler",
                    .bound = 100,
                    .samples = {100, 100},
                    .throughput = {.average = 100, .p50 = 100, .p90 = 100, .p99 = 100},
                    .cpu_seconds = 0.4,
                    .peak_rss_mib = 160});
  w.runs.push_back({.runner = "ksched",
                    .bound = 100,
                    .samples = {200, 200},
                    .throughput = {.average = 200, .p50 = 200, .p90 = 200, .p99 = 200},
                    .cpu_seconds = 0.1,
                    .peak_rss_mib = 40});
  return w;
}

TEST(SideBySideTableTest, EachRunWithItsShareOfTheCeilingAndTheRatios) {
  const std::string table = SideBySideTable({Basic()});
  EXPECT_THAT(table, HasSubstr("| SchedulingBasic | 10 | 5 + 100 | kube-scheduler | 100 | 100 | "
                               "100 | 100 | 25% | 4.00 | 160.0 | 270 |"));
  EXPECT_THAT(table, HasSubstr("| SchedulingBasic | 10 | 5 + 100 | ksched | 200 | 200 | 200 | "
                               "200 | 50% | 1.00 | 40.0 | 270 |"));
  EXPECT_THAT(table, HasSubstr("| SchedulingBasic | 2.00x | 0.25x | 0.25x |"));
}

// An earlier build beside this one: its ratios too, on a row of their own.
TEST(SideBySideTableTest, AnEarlierKschedGetsItsOwnRatios) {
  WorkloadResult w = Basic();
  RunResult before = w.runs[2];
  before.runner = "ksched-before";
  before.throughput.average = 150;
  before.cpu_seconds = 0.2;
  w.runs.insert(w.runs.begin() + 2, before);
  const std::string table = SideBySideTable({w});
  EXPECT_THAT(table, HasSubstr("| SchedulingBasic (ksched-before) | 1.50x | 0.50x | 0.25x |\n"
                               "| SchedulingBasic | 2.00x | 0.25x | 0.25x |"));
}

// A Coscheduling workload is compared with scheduler-plugins' kube-scheduler, and says so.
TEST(SideBySideTableTest, ACoschedulingWorkloadIsComparedWithSchedulerPlugins) {
  WorkloadResult w = Basic();
  w.workload.name = "CoschedulingLargeGangs";
  w.runs[1].runner = "scheduler-plugins";
  const std::string table = SideBySideTable({w});
  EXPECT_THAT(table,
              HasSubstr("| CoschedulingLargeGangs (against scheduler-plugins) | 2.00x | 0.25x | "
                        "0.25x |"));
}

TEST(SideBySideTableTest, AFailedRunSaysWhyAndHasNoRatio) {
  WorkloadResult w = Basic();
  w.runs[2].error = "measured pods: 3 of 100 pods bound in sched-1";
  const std::string table = SideBySideTable({w});
  EXPECT_THAT(table, HasSubstr("| ksched | measured pods: 3 of 100 pods bound in sched-1 |"));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("| SchedulingBasic | 2.00x")));
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteReportTest, WritesTheTableTheDataAndThePlots) {
  const std::string dir = ::testing::TempDir() + "/report-test";
  std::filesystem::remove_all(dir);
  const std::string in_process = ::testing::TempDir() + "/in_process.json";
  std::ofstream(in_process) << R"({"benchmarks": [{"name": "BM_SchedulePods/500/10000",
      "pods": 10000, "pods_per_s": 20000, "cpu_ns_per_pod": 90000,
      "cache_bytes_per_node": 2100, "bytes_per_pod": 3700}]})";
  absl::Status st = WriteReport(dir, {Basic()}, in_process);
  ASSERT_TRUE(st.ok()) << st;
  const std::string md = Read(dir + "/results.md");
  EXPECT_THAT(md, HasSubstr("| SchedulingBasic | 2.00x | 0.25x | 0.25x |"));
  EXPECT_THAT(md, HasSubstr("| BM_SchedulePods/500/10000 | 10000 | 20000 | 90 | 2100 | 3700 |"));
  EXPECT_EQ(Read(dir + "/SchedulingBasic-ksched.dat"), "# second pods/s\n1 200\n2 200\n");
  EXPECT_THAT(Read(dir + "/results.json"), HasSubstr("\"peak_rss_mib\": 40.0"));
  for (const char* png : {"throughput-SchedulingBasic.png", "cpu-per-pod.png", "peak-rss.png"}) {
    EXPECT_GT(std::filesystem::file_size(dir + "/" + png), 1000u) << png;
  }
}

}  // namespace
}  // namespace ksched::bench
