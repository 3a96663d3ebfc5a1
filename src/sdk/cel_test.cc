#include "ksched/cel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace ksched::cel {
namespace {

using ::testing::HasSubstr;

class CelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { setenv("KSCHED_CEL_LIBRARY", KSCHED_CEL_LIBRARY, 1); }

  // The verdicts of `expression` on `devices`, as "match", "no" or the error.
  std::vector<std::string> Verdicts(std::string_view expression,
                                    const std::vector<Device>& devices) {
    absl::StatusOr<std::shared_ptr<const Selector>> s = Selector::Compile(expression);
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok()) return {};
    absl::StatusOr<std::shared_ptr<const Devices>> d = Devices::Make(devices);
    EXPECT_TRUE(d.ok()) << d.status();
    absl::StatusOr<std::vector<Match>> m = (*s)->Evaluate(**d);
    EXPECT_TRUE(m.ok()) << m.status();
    std::vector<std::string> out;
    for (const Match& x : *m)
      out.push_back(!x.error.empty() ? x.error : x.matches ? "match" : "no");
    return out;
  }
};

Device Gpu(std::string model, int64_t memory_gib, std::string version, bool shared) {
  return {.driver = "gpu.example.com",
          .attributes = {{"model", {.string_value = std::move(model)}},
                         {"gpu.example.com/cores", {.int_value = memory_gib * 100}},
                         {"shared", {.bool_value = shared}},
                         {"driverVersion", {.version_value = std::move(version)}}},
          .capacity = {{"memory", *api::Quantity::Parse(std::to_string(memory_gib) + "Gi")}}};
}

// Every attribute type, unqualified names in the driver's domain, capacity as a quantity, and the
// semver library.
TEST_F(CelTest, AttributesOfEveryTypeAndCapacity) {
  const std::vector<Device> gpus = {Gpu("a100", 80, "1.2.3", false), Gpu("t4", 16, "0.9.0", true)};
  EXPECT_EQ(Verdicts("device.attributes['gpu.example.com'].model == 'a100'", gpus),
            (std::vector<std::string>{"match", "no"}));
  EXPECT_EQ(Verdicts("device.attributes['gpu.example.com'].cores >= 8000", gpus),
            (std::vector<std::string>{"match", "no"}));
  EXPECT_EQ(Verdicts("device.attributes['gpu.example.com'].shared", gpus),
            (std::vector<std::string>{"no", "match"}));
  EXPECT_EQ(Verdicts("device.attributes['gpu.example.com'].driverVersion.isGreaterThan("
                     "semver('1.0.0'))",
                     gpus),
            (std::vector<std::string>{"match", "no"}));
  EXPECT_EQ(
      Verdicts("device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0", gpus),
      (std::vector<std::string>{"match", "no"}));
  EXPECT_EQ(Verdicts("device.driver == 'gpu.example.com' && "
                     "!device.allowMultipleAllocations",
                     gpus),
            (std::vector<std::string>{"match", "match"}));
}

// Upstream's compile errors: syntax, a result that is no bool.
TEST_F(CelTest, ACompileErrorIsUpstreams) {
  absl::StatusOr<std::shared_ptr<const Selector>> s = Selector::Compile("device.driver ==");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              HasSubstr("compilation failed: ERROR: <input>:1:17: Syntax error"));
  s = Selector::Compile("device.driver");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "must evaluate to bool or the unknown type, not string");
}

// A missing attribute and a wrong type are the device's own runtime errors; the others are judged.
TEST_F(CelTest, RuntimeErrorsArePerDevice) {
  Device bare{.driver = "gpu.example.com"};
  EXPECT_EQ(Verdicts("device.attributes['gpu.example.com'].model == 'a100'",
                     {Gpu("a100", 80, "1.0.0", false), bare}),
            (std::vector<std::string>{"match", "no such key: model"}));
  EXPECT_THAT(
      Verdicts("device.attributes['gpu.example.com'].model > 3", {Gpu("a", 1, "1.0.0", false)}),
      ::testing::ElementsAre(HasSubstr("no such overload")));
}

// Upstream's runtime cost limit (resourceapi.CELSelectorExpressionMaxCost), from upstream's own
// test of it.
TEST_F(CelTest, TheCostLimitStopsAnExpensiveSelector) {
  const std::string ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
  const std::string expensive = ten + ".all(x, " + ten + ".all(y, " + ten + ".all(z, " + ten +
                                ".all(z2, " + ten + ".all(z3, " + ten + ".all(z4, " + ten +
                                ".all(z5, int('1'.find('[0-9]*')) < 100)))))))";
  EXPECT_THAT(Verdicts(expensive, {Gpu("a100", 80, "1.0.0", false)}),
              ::testing::ElementsAre(HasSubstr("actual cost limit exceeded")));
}

// Many devices in one call; the list and the selector are reused.
TEST_F(CelTest, OneCallJudgesAWholeList) {
  std::vector<Device> many;
  for (int i = 0; i < 500; ++i) many.push_back(Gpu(i % 2 ? "a100" : "t4", i, "1.0.0", false));
  absl::StatusOr<std::shared_ptr<const Selector>> s =
      Selector::Compile("device.attributes['gpu.example.com'].model == 'a100'");
  ASSERT_TRUE(s.ok());
  absl::StatusOr<std::shared_ptr<const Devices>> d = Devices::Make(many);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->size(), 500u);
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<std::vector<Match>> m = (*s)->Evaluate(**d);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->size(), 500u);
    EXPECT_FALSE((*m)[0].matches);
    EXPECT_TRUE((*m)[499].matches);
  }
}

// ksched blocks SIGTERM and SIGINT in every thread and takes them with sigwait (ShutdownSignals).
// The Go runtime the library brings leaves them blocked in its own threads, so a SIGTERM still
// reaches sigwait and does not end the process by its default action. (ctest runs each test in a
// process of its own, so the library is opened here, after the mask is set, as in ksched.)
TEST_F(CelTest, TheShutdownSignalsStillReachSigwait) {
  sigset_t shutdown;
  sigemptyset(&shutdown);
  sigaddset(&shutdown, SIGTERM);
  sigaddset(&shutdown, SIGINT);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &shutdown, nullptr), 0);
  std::vector<Device> many;
  for (int i = 0; i < 200; ++i) many.push_back(Gpu("a100", i, "1.0.0", false));
  EXPECT_EQ(Verdicts("device.attributes['gpu.example.com'].model == 'a100'", many).size(), 200u);
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  const timespec wait{.tv_sec = 5, .tv_nsec = 0};
  EXPECT_EQ(sigtimedwait(&shutdown, nullptr, &wait), SIGTERM);
}

}  // namespace
}  // namespace ksched::cel
