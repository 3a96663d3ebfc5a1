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

  // `expression` is judged without the library, and says of each of `devices` what the library
  // says of the same expression in parentheses (which ksched leaves to it).
  static void ExpectJudgedAsCelJudgesIt(const std::string& expression,
                                        const std::vector<Device>& devices) {
    SCOPED_TRACE(expression);
    absl::StatusOr<std::shared_ptr<const Selector>> native = Selector::Compile(expression);
    absl::StatusOr<std::shared_ptr<const Selector>> library =
        Selector::Compile("(" + expression + ")");
    ASSERT_TRUE(native.ok() && library.ok());
    EXPECT_FALSE((*native)->needs_library());
    EXPECT_TRUE((*library)->needs_library());
    absl::StatusOr<std::shared_ptr<const Devices>> d = Devices::Make(devices);
    ASSERT_TRUE(d.ok());
    absl::StatusOr<std::vector<Match>> want = (*library)->Evaluate(**d);
    absl::StatusOr<std::vector<Match>> got = (*native)->Evaluate(**d);
    ASSERT_TRUE(want.ok() && got.ok());
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].matches, (*want)[i].matches) << "device " << i;
      EXPECT_EQ((*got)[i].error, (*want)[i].error) << "device " << i;
    }
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
            (std::vector<std::string>{
                "match",
                "no such key: model. consider using CEL optional chaining (.? followed by "
                "orValue()) or guarding the check with has() for optional fields"}));
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

// A selector of the driver's name alone is judged without the library, with CEL's verdict: the
// same expression in parentheses, which ksched leaves to the library, says the same of every
// device.
TEST_F(CelTest, TheDriverAloneIsJudgedAsCelJudgesIt) {
  const std::vector<Device> devices = {Gpu("a100", 80, "1.0.0", false),
                                       {.driver = "tpu.example.com"},
                                       {.driver = "gpu.example.co"},
                                       {.driver = "gpu.example.com.x"}};
  for (const std::string expression :
       {"device.driver == 'gpu.example.com'", "device.driver == \"gpu.example.com\"",
        "'gpu.example.com' == device.driver", "\n  device.driver==\t'tpu.example.com'\r\n",
        "device.driver == 'GPU.example.com'", "device.driver == ''", "device.driver == 'a b/c=d'",
        "device.driver == 'gpu.example.co'"}) {
    ExpectJudgedAsCelJudgesIt(expression, devices);
  }
  EXPECT_EQ(Verdicts("device.driver == 'tpu.example.com'", devices),
            (std::vector<std::string>{"no", "match", "no", "no"}));
}

// The driver's name and allowMultipleAllocations, alone or joined by `&&` (scheduler_perf's
// ConsumableCapacity class), are judged without the library as CEL judges them; without
// consumable capacity the field is left to the library, whose environment depends on it.
TEST_F(CelTest, TheDriverAndSharingAreJudgedAsCelJudgesThem) {
  std::vector<Device> devices;
  for (const char* driver : {"gpu.example.com", "nic.example.com"}) {
    for (std::optional<bool> multiple :
         {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
      devices.push_back({.driver = driver, .allow_multiple_allocations = multiple});
    }
  }
  for (const std::string expression :
       {"device.driver == 'gpu.example.com' && device.allowMultipleAllocations == true",
        "device.driver == \"nic.example.com\" &&\n        device.allowMultipleAllocations == true",
        "device.allowMultipleAllocations == false", "true == device.allowMultipleAllocations",
        "device.allowMultipleAllocations==false&&'nic.example.com'==device.driver"}) {
    ExpectJudgedAsCelJudgesIt(expression, devices);
  }
  EXPECT_EQ(
      Verdicts("device.driver == 'gpu.example.com' && device.allowMultipleAllocations == true",
               devices),
      (std::vector<std::string>{"no", "match", "no", "no", "no", "no"}));
  absl::StatusOr<std::shared_ptr<const Selector>> without =
      Selector::Compile("device.allowMultipleAllocations == true", {.consumable_capacity = false});
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_TRUE((*without)->needs_library());
}

// Anything more, or a literal whose characters are not plainly its value, is the library's: its
// verdicts, or its compile errors.
TEST_F(CelTest, EveryOtherFormIsTheLibrarys) {
  for (const std::string expression :
       {"device.driver == 'gpu.example.com' || true", "device.driver != 'gpu.example.com'",
        "device.driver == r'gpu.example.com'", R"(device.driver == 'gpu\x2eexample.com')",
        "device.driver == 'gpu.example.com' // a comment", "device . driver == 'gpu.example.com'",
        "device.driver == 'caf\u00e9'", "device.driver == '==' == true",
        "device.driver == 'a' && device.driver == 'a'", "device.driver == 'a' && true",
        "device.allowMultipleAllocations == true && device.allowMultipleAllocations == true",
        "device.driver == '''gpu.example.com'''"}) {
    SCOPED_TRACE(expression);
    absl::StatusOr<std::shared_ptr<const Selector>> s = Selector::Compile(expression);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_TRUE((*s)->needs_library());
  }
  EXPECT_EQ(Verdicts(R"(device.driver == 'gpu\x2eexample.com')", {Gpu("a", 1, "1.0.0", false)}),
            (std::vector<std::string>{"match"}));
  for (const std::string expression : {"device.driver == 'gpu' 'x'", "device.driver == \"gpu'",
                                       "device.driver === 'gpu'", "device.drivers == 'gpu'"}) {
    SCOPED_TRACE(expression);
    absl::StatusOr<std::shared_ptr<const Selector>> s = Selector::Compile(expression);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.status().message(), HasSubstr("compilation failed"));
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
