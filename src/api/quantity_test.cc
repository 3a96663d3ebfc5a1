// Table-driven tests for Quantity. Expected values follow upstream's quantity_test.go
// (TestQuantityParse, TestQuantityString, TestQuantityParseEmit, TestNewSet, TestMilliNewSet,
// TestNegativeValueRoundsAwayFromZero, TestParseQuantitySubNanoRoundsUp), worked out by hand.
#include "ksched/api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::api {

// Lets GoogleTest print a Quantity in failure messages (found by ADL, so not in the anonymous
// namespace; static to stay out of other translation units).
[[maybe_unused]] static void PrintTo(const Quantity& q, std::ostream* os) { *os << q.String(); }

namespace {

using Format = Quantity::Format;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr __int128 kInt128Max = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
constexpr __int128 kInt128Min = -kInt128Max - 1;

std::string Int128ToString(__int128 v) {
  unsigned __int128 magnitude =
      v < 0 ? 0 - static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  return v < 0 ? "-" + digits : digits;
}

std::string FormatName(Format f) {
  switch (f) {
    case Format::kDecimalSI:
      return "DecimalSI";
    case Format::kBinarySI:
      return "BinarySI";
    case Format::kDecimalExponent:
      return "DecimalExponent";
  }
  return "?";
}

// Parses s, recording a test failure (and returning zero) if it does not parse.
Quantity MustParse(std::string_view s) {
  absl::StatusOr<Quantity> q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << "\"" << s << "\": " << q.status();
  return q.ok() ? *q : Quantity();
}

struct ParseCase {
  std::string_view in;
  std::string_view nano;  // exact value in nano-units
  Format format;
  std::string_view canonical;  // String()
};

void ExpectParses(const std::vector<ParseCase>& cases) {
  for (const ParseCase& c : cases) {
    SCOPED_TRACE(std::string("input \"") + std::string(c.in) + "\"");
    absl::StatusOr<Quantity> q = Quantity::Parse(c.in);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(Int128ToString(q->NanoValue()), c.nano);
    EXPECT_EQ(FormatName(q->format()), FormatName(c.format));
    EXPECT_EQ(q->String(), c.canonical);
  }
}

constexpr Format kDec = Format::kDecimalSI;
constexpr Format kBin = Format::kBinarySI;
constexpr Format kExp = Format::kDecimalExponent;

TEST(QuantityParseTest, DecimalSuffixes) {
  ExpectParses({
      {"0", "0", kDec, "0"},
      {"0n", "0", kDec, "0"},
      {"0u", "0", kDec, "0"},
      {"0m", "0", kDec, "0"},
      {"0k", "0", kDec, "0"},
      {"0M", "0", kDec, "0"},
      {"0G", "0", kDec, "0"},
      {"0T", "0", kDec, "0"},
      {"5n", "5", kDec, "5n"},
      {"4u", "4000", kDec, "4u"},
      {"3m", "3000000", kDec, "3m"},
      {"9", "9000000000", kDec, "9"},
      {"8k", "8000000000000", kDec, "8k"},
      {"50k", "50000000000000", kDec, "50k"},
      {"7M", "7000000000000000", kDec, "7M"},
      {"6G", "6000000000000000000", kDec, "6G"},
      {"5T", "5000000000000000000000", kDec, "5T"},
      {"40T", "40000000000000000000000", kDec, "40T"},
      {"300T", "300000000000000000000000", kDec, "300T"},
      {"2P", "2000000000000000000000000", kDec, "2P"},
      {"1E", "1000000000000000000000000000", kDec, "1E"},
      {"12E", "12000000000000000000000000000", kDec, "12E"},
      // No DecimalSI name above E: upstream falls back to exponent notation.
      {"1000E", "1000000000000000000000000000000", kDec, "1e21"},
      {"100.035k", "100035000000000", kDec, "100035"},
      {"10.035M", "10035000000000000", kDec, "10035k"},
      {"1.01E", "1010000000000000000000000000", kDec, "1010P"},
      {"7.123456M", "7123456000000000", kDec, "7123456"},
      {"6.987654321G", "6987654321000000000", kDec, "6987654321"},
      {"5.444T", "5444000000000000000000", kDec, "5444G"},
      {"40.1T", "40100000000000000000000", kDec, "40100G"},
      {"2.5P", "2500000000000000000000000", kDec, "2500T"},
      {"9.01", "9010000000", kDec, "9010m"},
      {"8.1k", "8100000000000", kDec, "8100"},
      {"0.001", "1000000", kDec, "1m"},
      {"0.0005k", "500000000", kDec, "500m"},
      {"0.00500", "5000000", kDec, "5m"},
      {"0.50000", "500000000", kDec, "500m"},
  });
}

TEST(QuantityParseTest, BinarySuffixes) {
  ExpectParses({
      {"0Ki", "0", kBin, "0"},
      {"0Mi", "0", kBin, "0"},
      {"0Gi", "0", kBin, "0"},
      {"0Ti", "0", kBin, "0"},
      {"1Ki", "1024000000000", kBin, "1Ki"},
      {"8Ki", "8192000000000", kBin, "8Ki"},
      {"7Mi", "7340032000000000", kBin, "7Mi"},
      {"6Gi", "6442450944000000000", kBin, "6Gi"},
      {"5Ti", "5497558138880000000000", kBin, "5Ti"},
      {"4Pi", "4503599627370496000000000", kBin, "4Pi"},
      {"3Ei", "3458764513820540928000000000", kBin, "3Ei"},
      {"7Ei", "8070450532247928832000000000", kBin, "7Ei"},
      {"10Ti", "10995116277760000000000", kBin, "10Ti"},
      {"1024Mi", "1073741824000000000", kBin, "1Gi"},
      {"1024Pi", "1152921504606846976000000000", kBin, "1Ei"},
      {"1000Ki", "1024000000000000", kBin, "1000Ki"},
      {"1025Ki", "1049600000000000", kBin, "1025Ki"},
      // Fractions of a binary suffix.
      {"1.5Gi", "1610612736000000000", kBin, "1536Mi"},
      {"0.5Gi", "536870912000000000", kBin, "512Mi"},
      {"0.5Mi", "524288000000000", kBin, "512Ki"},
      // Not a whole number of units: printed as DecimalSI.
      {"1.1Ki", "1126400000000", kBin, "1126400m"},
      {"100.035Ki", "102435840000000", kBin, "102435840m"},
      {"0.05Gi", "53687091200000000", kBin, "53687091200m"},
      {"0.025Ti", "27487790694400000000", kBin, "27487790694400m"},
      // Below 1024 units: printed as DecimalSI; below 1 unit: becomes DecimalSI.
      {"-0.5Ki", "-512000000000", kBin, "-512"},
      {".001Ki", "1024000000", kBin, "1024m"},
      {".000001Ki", "1024000", kDec, "1024u"},
      {".000000001Ki", "1024", kDec, "1024n"},
      {".000000000001Ki", "2", kDec, "2n"},
      {"0.00000000000000000000001Ki", "1", kDec, "1n"},
      // Upstream caps a parsed BinarySI magnitude at 2^63-1 units.
      {"8Ei", "9223372036854775807000000000", kBin, "9223372036854775807"},
      {"9Ei", "9223372036854775807000000000", kBin, "9223372036854775807"},
      {"-8Ei", "-9223372036854775807000000000", kBin, "-9223372036854775807"},
      {"9223372036854775807Ki", "9223372036854775807000000000", kBin, "9223372036854775807"},
      {"99999999999999999999999999999999999999999999Ki", "9223372036854775807000000000", kBin,
       "9223372036854775807"},
  });
}

TEST(QuantityParseTest, Exponents) {
  ExpectParses({
      {"1e3", "1000000000000", kExp, "1e3"},
      {"1E6", "1000000000000000", kExp, "1e6"},
      {"1e9", "1000000000000000000", kExp, "1e9"},
      {"1E12", "1000000000000000000000", kExp, "1e12"},
      {"1e15", "1000000000000000000000000", kExp, "1e15"},
      {"1E18", "1000000000000000000000000000", kExp, "1e18"},
      {"1e21", "1000000000000000000000000000000", kExp, "1e21"},
      {"1E-3", "1000000", kExp, "1e-3"},
      {"1e-9", "1", kExp, "1e-9"},
      {"1e13", "10000000000000000000000", kExp, "10e12"},
      {"1e14", "100000000000000000000000", kExp, "100e12"},
      {"12e6", "12000000000000000", kExp, "12e6"},
      {"1e+3", "1000000000000", kExp, "1e3"},
      {"1e03", "1000000000000", kExp, "1e3"},
      {"1e-0", "1000000000", kExp, "1"},
      {"1E+0", "1000000000", kExp, "1"},
      {"1.2e3", "1200000000000", kExp, "1200"},
      {"1.3E+6", "1300000000000000", kExp, "1300e3"},
      {"1.40e9", "1400000000000000000", kExp, "1400e6"},
      {"1.53E12", "1530000000000000000000", kExp, "1530e9"},
      {"1.6e15", "1600000000000000000000000", kExp, "1600e12"},
      {"1.7E18", "1700000000000000000000000000", kExp, "1700e15"},
      {"0.5e0", "500000000", kExp, "500e-3"},
      {"0.5e-1", "50000000", kExp, "50e-3"},
      {"0.5e-2", "5000000", kExp, "5e-3"},
      {"0e2147483647", "0", kExp, "0"},
      {"1e29", "100000000000000000000000000000000000000", kExp, "100e27"},
  });
}

TEST(QuantityParseTest, SignsAndNumberForms) {
  ExpectParses({
      {"1", "1000000000", kDec, "1"},
      {"1.", "1000000000", kDec, "1"},
      {".5", "500000000", kDec, "500m"},
      {"1.G", "1000000000000000000", kDec, "1G"},
      {"0.1", "100000000", kDec, "100m"},
      {"100m", "100000000", kDec, "100m"},
      {"1000m", "1000000000", kDec, "1"},
      {"1.5", "1500000000", kDec, "1500m"},
      {"0.1m", "100000", kDec, "100u"},
      {"+1", "1000000000", kDec, "1"},
      {"+0.5", "500000000", kDec, "500m"},
      {"01", "1000000000", kDec, "1"},
      {"00.5", "500000000", kDec, "500m"},
      {"0.0", "0", kDec, "0"},
      {"-0", "0", kDec, "0"},
      {"-0.0", "0", kDec, "0"},
      {"-1", "-1000000000", kDec, "-1"},
      {"-100m", "-100000000", kDec, "-100m"},
      {"-1.5", "-1500000000", kDec, "-1500m"},
      {"-1.5Gi", "-1610612736000000000", kBin, "-1536Mi"},
      {"-1e3", "-1000000000000", kExp, "-1e3"},
      // Upstream's int64 fast path rejects this 19-digit mantissa; see quantity.cc.
      {"9223372036854775808", "9223372036854775808000000000", kDec, "9223372036854775808"},
      {"9300000000000000000", "9300000000000000000000000000", kDec, "9300P"},
  });
}

TEST(QuantityParseTest, RoundsSubNanoAwayFromZero) {
  ExpectParses({
      {"3.001n", "4", kDec, "4n"},
      {"-3.001n", "-4", kDec, "-4n"},
      {"0.9n", "1", kDec, "1n"},
      {"0.0000000001", "1", kDec, "1n"},
      {"0.0000000005", "1", kDec, "1n"},
      {"-0.0000000001", "-1", kDec, "-1n"},
      {"0.00000012345", "124", kDec, "124n"},
      {"0.00000012354", "124", kDec, "124n"},
      {"1.1E-9", "2", kExp, "2e-9"},
      {"0.5e-9", "1", kExp, "1e-9"},
      {"15e-10", "2", kExp, "2e-9"},
      {"1e-100", "1", kExp, "1e-9"},
      {"-1e-100", "-1", kExp, "-1e-9"},
      {"1e-2147483647", "1", kExp, "1e-9"},
      {"-1e-2147483647", "-1", kExp, "-1e-9"},
      {"0e-2147483647", "0", kExp, "0"},
      {"0.0e-100", "0", kExp, "0"},
      {"1000000000000000000000e-30", "1", kExp, "1e-9"},
      {"1000000000000000000001e-30", "2", kExp, "2e-9"},
      {"999999999999999999999e-30", "1", kExp, "1e-9"},
  });
}

// Upstream parses a number without digits as zero wherever its int64 fast path handles it.
TEST(QuantityParseTest, DigitlessNumbersAreZeroLikeUpstream) {
  ExpectParses({
      {"-", "0", kDec, "0"},
      {"+", "0", kDec, "0"},
      {".", "0", kDec, "0"},
      {"-.", "0", kDec, "0"},
      {"m", "0", kDec, "0"},
      {"E", "0", kDec, "0"},
      {"Ki", "0", kBin, "0"},
      {".Ki", "0", kBin, "0"},
      {"Ti", "0", kBin, "0"},
      {"e-9", "0", kExp, "0"},
  });
}

TEST(QuantityParseTest, InvalidStringsReturnInvalidArgument) {
  const std::vector<std::string> cases = {
      "", "1.1.1", "1.5.3", "abc", "1Kb", "--1", "1e", " 1", "1 ", "1.1.M", "1+1.0M", "0.1mi",
      "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1ki", "1K", "1mm", "1e3e", "1ee3", "1e+",
      "1e-", "++1", "+-1", "1-", "1Kib", "1k3", "1Ei3", "Non-Numeric", "1,5", "1_000",
      std::string("1\0", 2), "1e4294967297", "1e2147483648", "1e-2147483648",
      // Digitless numbers that upstream's inf.Dec fallback rejects.
      "Pi", "Ei", "-Pi", "e-10", ".e-10"};
  for (const std::string& s : cases) {
    absl::StatusOr<Quantity> q = Quantity::Parse(s);
    ASSERT_FALSE(q.ok()) << "\"" << s << "\" parsed as " << q->String();
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_EQ(q.status().message(), "invalid quantity \"" + s + "\"");
  }
}

TEST(QuantityParseTest, ValuesBeyondInt128NanoAreOutOfRange) {
  const std::vector<std::string> cases = {
      "2e29",
      "-2e29",
      "1e2147483647",
      "99999999999999999999999999999999999999999",
      "170141183460469231731687303715.884105728",   // 2^127 nano
      "170141183460469231731687303715.8841057271",  // rounds up to 2^127 nano
      "1000000000000000000000000000000000000000000000000000000000000000000000000000000001e-50",
  };
  for (const std::string& s : cases) {
    absl::StatusOr<Quantity> q = Quantity::Parse(s);
    ASSERT_FALSE(q.ok()) << s << " parsed as " << q->String();
    EXPECT_EQ(q.status().code(), absl::StatusCode::kOutOfRange) << s;
    EXPECT_EQ(q.status().message(), "quantity \"" + s + "\" is out of range");
  }
}

TEST(QuantityParseTest, LargestMagnitudesParse) {
  EXPECT_EQ(MustParse("170141183460469231731687303715.884105727").NanoValue(), kInt128Max);
  EXPECT_EQ(MustParse("170141183460469231731687303715.8841057269").NanoValue(), kInt128Max);
  EXPECT_EQ(MustParse("-170141183460469231731687303715.884105727").NanoValue(), -kInt128Max);
}

struct ValueCase {
  std::string_view in;
  int64_t value;
  int64_t milli;
};

TEST(QuantityValueTest, RoundsAwayFromZeroAndSaturates) {
  const std::vector<ValueCase> cases = {
      {"0", 0, 0},
      {"0.1m", 1, 1},
      {"-0.1m", -1, -1},
      {"100m", 1, 100},
      {"0.1", 1, 100},
      {"1e3", 1000, 1000000},
      {"-1", -1, -1000},
      {"1", 1, 1000},
      {"1Gi", 1073741824, 1073741824000},
      {"1.5Gi", 1610612736, 1610612736000},
      {"1500m", 2, 1500},
      {"-1500m", -2, -1500},
      {"1.999", 2, 1999},
      {"2.0000000001", 3, 2001},
      {"0.0005", 1, 1},
      {"-0.0005", -1, -1},
      {".484785E-1", 1, 49},
      {"-.484785E-1", -1, -49},
      {".484785E-7466", 1, 1},
      {"-.484785E-7466", -1, -1},
      {"1n", 1, 1},
      {"-1n", -1, -1},
      {"9.5000000001Gi", 10200547329, 10200547328108},
      {"-9.5000000001Gi", -10200547329, -10200547328108},
      {"9223372036854775.807", 9223372036854776, kInt64Max},
      {"9223372036854775807", kInt64Max, kInt64Max},
      {"-9223372036854775808", kInt64Min, kInt64Min},
      {"12E", kInt64Max, kInt64Max},
      {"-12E", kInt64Min, kInt64Min},
      {"9Ei", kInt64Max, kInt64Max},
      {"-9Ei", -kInt64Max, kInt64Min},
  };
  for (const ValueCase& c : cases) {
    Quantity q = MustParse(c.in);
    EXPECT_EQ(q.Value(), c.value) << c.in;
    EXPECT_EQ(q.MilliValue(), c.milli) << c.in;
  }
}

struct ConstructCase {
  Quantity q;
  std::string_view canonical;
};

TEST(QuantityConstructTest, FromValueAndFromMilli) {
  const std::vector<ConstructCase> cases = {
      {Quantity(), "0"},
      {Quantity::FromValue(1), "1"},
      {Quantity::FromValue(1000), "1k"},
      {Quantity::FromValue(1234000), "1234k"},
      {Quantity::FromValue(1024, kBin), "1Ki"},
      {Quantity::FromValue(int64_t{1024} * 1024, kBin), "1Mi"},
      {Quantity::FromValue(-2048, kBin), "-2Ki"},
      {Quantity::FromValue(2000, kBin), "2000"},
      {Quantity::FromValue(-2000, kBin), "-2000"},
      {Quantity::FromValue(1000000, kExp), "1e6"},
      {Quantity::FromValue(kInt64Min), "-9223372036854775808"},
      {Quantity::FromMilli(1), "1m"},
      {Quantity::FromMilli(1000), "1"},
      {Quantity::FromMilli(1234000), "1234"},
      {Quantity::FromMilli(1024, kBin), "1024m"},
      {Quantity::FromMilli(int64_t{1024} * 1024, kBin), "1048576m"},
      {Quantity::FromMilli(1000000, kExp), "1e3"},
  };
  for (const ConstructCase& c : cases) {
    EXPECT_EQ(c.q.String(), c.canonical);
    EXPECT_EQ(MustParse(c.q.String()), c.q) << c.canonical;
  }
  // 2^63 is "8Ei", which parses back capped at 2^63-1 units as upstream (kubernetes#140674).
  const Quantity eight_ei = Quantity::FromValue(kInt64Min, kBin);
  EXPECT_EQ(eight_ei.String(), "-8Ei");
  EXPECT_EQ(MustParse(eight_ei.String()).Value(), -kInt64Max);
  EXPECT_EQ(Quantity::FromValue(kInt64Min).Value(), kInt64Min);
  EXPECT_EQ(Quantity::FromMilli(kInt64Max).MilliValue(), kInt64Max);
  EXPECT_EQ(Quantity::FromMilli(-1500).Value(), -2);
}

TEST(QuantityStringTest, CanonicalFormRoundTrips) {
  const std::vector<std::string_view> inputs = {"0",
                                                "1",
                                                "-1",
                                                "100m",
                                                "1000m",
                                                "1.5",
                                                "0.1",
                                                "1Gi",
                                                "1.5Gi",
                                                "0.5Gi",
                                                "-1.5Gi",
                                                "1e3",
                                                "1.2e3",
                                                "1.3E+6",
                                                "0.5e0",
                                                "12E",
                                                "1000E",
                                                "3Ei",
                                                "9Ei",
                                                "-9Ei",
                                                "100.035Ki",
                                                "1e-100",
                                                "0.9n",
                                                "1.01E",
                                                "1e29",
                                                "-1e29",
                                                "1.1Ki",
                                                "0.0001Ki",
                                                "40.1T",
                                                "7.123456M",
                                                "1e-2147483647",
                                                "9300000000000000001000m",
                                                "170141183460469231731687303715.884105727"};
  for (std::string_view in : inputs) {
    Quantity q = MustParse(in);
    std::string canonical = q.String();
    Quantity again = MustParse(canonical);
    EXPECT_EQ(again, q) << in << " -> " << canonical;
    EXPECT_EQ(again.String(), canonical) << in;
  }
}

TEST(QuantityStringTest, BinaryBeyondEiFallsBackToDecimal) {
  Quantity q = MustParse("1Ei");
  const Quantity one_ei = q;
  for (int i = 1; i < 1024; ++i) q += one_ei;  // 2^70
  EXPECT_EQ(q.String(), "1180591620717411303424");
  EXPECT_EQ(MustParse(q.String()), q);
}

// As upstream: a whole BinarySI value that is not a multiple of 1024 prints without a suffix,
// and that string parses as DecimalSI, so the spelling settles only after one round trip.
TEST(QuantityStringTest, BinaryWithoutSuffixReparsesAsDecimal) {
  Quantity q = MustParse("62.5Ki");
  EXPECT_EQ(q.String(), "64000");
  Quantity again = MustParse(q.String());
  EXPECT_EQ(again, q);
  EXPECT_EQ(FormatName(again.format()), FormatName(kDec));
  EXPECT_EQ(again.String(), "64k");
}

struct CompareCase {
  std::string_view a;
  std::string_view b;
  int want;  // sign of a - b
};

TEST(QuantityCompareTest, ComparesExactValues) {
  const std::vector<CompareCase> cases = {
      {"0", "0", 0},    {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1},
      {"1Gi", "1G", 1}, {"1000m", "1", 0},  {"1Ki", "1024", 0},  {"-1", "0", -1},
      {"1n", "0", 1},   {"1e3", "1k", 0},   {"-1Gi", "-1G", -1}, {"0.1m", "100u", 0},
  };
  for (const CompareCase& c : cases) {
    Quantity a = MustParse(c.a);
    Quantity b = MustParse(c.b);
    int got = (a < b) ? -1 : (a > b ? 1 : 0);
    EXPECT_EQ(got, c.want) << c.a << " vs " << c.b;
    EXPECT_EQ(a == b, c.want == 0) << c.a << " vs " << c.b;
    EXPECT_EQ(a.Sign(), a.IsZero() ? 0 : (a.NanoValue() < 0 ? -1 : 1)) << c.a;
  }
}

struct ArithmeticCase {
  Quantity a;
  Quantity b;
  std::string_view sum;
  std::string_view difference;
};

TEST(QuantityArithmeticTest, AddAndSubtract) {
  const std::vector<ArithmeticCase> cases = {
      {MustParse("100m"), MustParse("900m"), "1", "-800m"},
      {MustParse("1Gi"), MustParse("512Mi"), "1536Mi", "512Mi"},
      {MustParse("1"), MustParse("1500m"), "2500m", "-500m"},
      // A zero receiver takes the other operand's format, as upstream's Add/Sub.
      {MustParse("0"), MustParse("1Gi"), "1Gi", "-1Gi"},
      {MustParse("0"), MustParse("100m"), "100m", "-100m"},
      {MustParse("1Gi"), MustParse("0"), "1Gi", "1Gi"},
      {Quantity::FromValue(10, kBin), Quantity::FromValue(1), "11", "9"},
      {Quantity::FromValue(10), Quantity::FromValue(1, kBin), "11", "9"},
      {MustParse("1e3"), MustParse("1e3"), "2e3", "0"},
  };
  for (const ArithmeticCase& c : cases) {
    Quantity sum = c.a;
    sum += c.b;
    EXPECT_EQ(sum.String(), c.sum) << c.a.String() << " + " << c.b.String();
    Quantity difference = c.a;
    difference -= c.b;
    EXPECT_EQ(difference.String(), c.difference) << c.a.String() << " - " << c.b.String();
    difference += c.b;
    EXPECT_EQ(difference, c.a) << c.a.String();
  }
}

TEST(QuantityArithmeticTest, SaturatesInsteadOfOverflowing) {
  const Quantity max = MustParse("170141183460469231731687303715.884105727");
  Quantity q = max;
  q += max;
  EXPECT_EQ(q.NanoValue(), kInt128Max);
  q -= max;
  q -= max;
  q -= max;
  q -= max;
  EXPECT_EQ(q.NanoValue(), kInt128Min);
  EXPECT_EQ(q.Value(), kInt64Min);
  EXPECT_EQ(q.String(), "-170141183460469231731687303715884105728n");
}

}  // namespace
}  // namespace ksched::api
