// The side-by-side bench's results and how they are written: a Markdown table (results.md), the
// raw figures (results.json), each run's throughput over time (<workload>-<runner>.dat) and PNG
// plots drawn by gnuplot (throughput-<workload>.png, cpu-per-pod.png, peak-rss.png).
//
//   RunResult r = ...;  r.samples = ThroughputSamples(bind_seconds);
//   absl::Status st = WriteReport(dir, {workload_results...}, in_process_json);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/workloads.h"

namespace ksched::bench {

// scheduler_perf's throughput collector, applied to the seconds (Unix time) at which the API
// server bound the measured pods, as their PodScheduled condition's lastTransitionTime says: one
// sample per second, pods bound in that second. As scheduler_perf skips its first sample and stops
// when the last pod binds, the first and the last second, which the run fills only in part, are
// left out; a second with no bind shares the binds of the next one (its samples are the same
// rate), as scheduler_perf waits for a bind before it samples.
std::vector<double> ThroughputSamples(std::vector<int64_t> bind_seconds);

// The throughput summary of scheduler_perf: the mean of the samples and the samples at the 50th,
// 90th and 99th percentile (its index ceil(n * p / 100) - 1 into the sorted samples). A run too
// short for samples has none of these.
struct Throughput {
  double average = 0, p50 = 0, p90 = 0, p99 = 0;
};
Throughput Summarize(std::vector<double> samples);

// The average a run reports: the samples' mean, or, with fewer than three samples (a run of a few
// seconds, or binds in bursts with idle seconds between, as a gang's after its victims go), the
// run's mean rate, `bound` pods in `seconds`; so that a runner with one sample of its busiest
// second is not compared with one whose idle seconds left it none.
double ReportedAverage(const Throughput& t, size_t samples, int bound, double seconds);

// The machine and the moment, for a report's heading: date, CPU, cores, memory, kernel and
// ksched's commit.
std::string MachineLine();

// One scheduler (or the trivial binder) on one workload, on a fresh API server.
struct RunResult {
  std::string runner;  // kube-scheduler, ksched, ksched-before or ceiling
  std::string error;   // Why the run did not finish; empty when it did.
  int bound = 0;       // Measured pods seen bound.
  double seconds = 0;  // From the measured pods' creation to the last bind.
  std::vector<double> samples;
  Throughput throughput;
  double cpu_seconds = 0;  // The process's user + system time during the measured phase.
  double peak_rss_mib = 0;
  double creation_seconds = 0;  // How long creating the measured pods took.
  int watches = 0;              // How many times the bench's watch of binds was opened.
  // With the test extender (Workload::extender): the calls it answered in the measured phase, and
  // the time its handlers took, apart from the scheduler's.
  int extender_calls = 0;
  double extender_seconds = 0;
};

struct WorkloadResult {
  Workload workload;
  std::vector<RunResult> runs;  // In the order they ran.
};

// Writes every file into `dir` (made if missing) and runs gnuplot for the plots; without gnuplot
// the plots are left out and the returned status says so. `in_process_json`, if not empty, is the
// output of scheduling_bench --benchmark_out: its rows become a table of their own.
absl::Status WriteReport(const std::string& dir, const std::vector<WorkloadResult>& results,
                         const std::string& in_process_json);

// The Markdown table of `results`, as results.md has it.
std::string SideBySideTable(const std::vector<WorkloadResult>& results);

}  // namespace ksched::bench
