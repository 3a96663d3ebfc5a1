// The costs of DRA's CEL bridge (ksched/cel.h, libksched_cel.so): what loading upstream's Go code
// adds to the process (time, resident memory, threads), then the cost of a compile and of one
// Evaluate over lists of 0 to 1000 devices. `make bench-cel`; docs/performance.md has a run.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "ksched/cel.h"
#include "src/base/proc_status.h"

namespace ksched::cel {
namespace {

// A field of /proc/self/status as it is written ("30868 kB", "0000000000004a02").
std::string StatusText(const std::string& name) { return ProcStatusField(0, name).value_or(""); }
long StatusField(const std::string& name) { return std::stol(StatusText(name)); }

// The signals of a /proc/self/status mask ("SigCgt": those with a handler), by number.
std::string Signals(const std::string& mask) {
  const unsigned long long bits = std::stoull(mask, nullptr, 16);
  std::string out;
  for (int sig = 1; sig <= 64; ++sig) {
    if (bits & (1ULL << (sig - 1))) out += (out.empty() ? "" : ",") + std::to_string(sig);
  }
  return out.empty() ? "none" : out;
}

std::vector<Device> Gpus(int n) {
  std::vector<Device> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({.driver = "gpu.example.com",
                   .attributes = {{"model", {.string_value = i % 2 ? "a100" : "t4"}},
                                  {"index", {.int_value = i}},
                                  {"driverVersion", {.version_value = "1.2.3"}}},
                   .capacity = {{"memory", *api::Quantity::Parse("80Gi")}}});
  }
  return out;
}

constexpr char kSelector[] =
    "device.attributes['gpu.example.com'].model == 'a100' && "
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0";

void BM_Compile(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Selector::Compile(kSelector));
}
BENCHMARK(BM_Compile);

void BM_MakeDevices(benchmark::State& state) {
  const std::vector<Device> gpus = Gpus(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Devices::Make(gpus));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MakeDevices)->Arg(1)->Arg(100)->Arg(1000);

// One call into the library for the whole list; with 0 devices, the call's own cost.
void BM_Evaluate(benchmark::State& state) {
  auto selector = Selector::Compile(kSelector).value();
  auto devices = Devices::Make(Gpus(static_cast<int>(state.range(0)))).value();
  for (auto _ : state) benchmark::DoNotOptimize(selector->Evaluate(*devices));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Evaluate)->Arg(0)->Arg(1)->Arg(10)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace ksched::cel

int main(int argc, char** argv) {
  using ksched::cel::Signals;
  using ksched::cel::StatusField;
  using ksched::cel::StatusText;
  const long rss = StatusField("VmRSS"), threads = StatusField("Threads");
  const std::string handled = Signals(StatusText("SigCgt"));
  const auto start = std::chrono::steady_clock::now();
  // Not a comparison of the driver's name alone, which ksched judges without the library.
  auto first = ksched::cel::Selector::Compile("device.driver.startsWith('x')");
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!first.ok()) {
    std::fprintf(stderr, "cel_bench: %s\n", std::string(first.status().message()).c_str());
    return 1;
  }
  if (!(*first)->needs_library()) {
    std::fprintf(stderr, "cel_bench: the first selector did not load the library\n");
    return 1;
  }
  std::printf("load and first compile: %.1f ms; VmRSS %+ld kB (%ld to %ld); threads %ld to %ld\n",
              ms, StatusField("VmRSS") - rss, rss, StatusField("VmRSS"), threads,
              StatusField("Threads"));
  std::printf("signals with a handler: %s before, %s after\n", handled.c_str(),
              Signals(StatusText("SigCgt")).c_str());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  std::printf("after the benchmarks: VmRSS %ld kB, threads %ld\n", StatusField("VmRSS"),
              StatusField("Threads"));
  return 0;
}
