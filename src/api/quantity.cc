// resource.Quantity, following k8s.io/apimachinery/pkg/api/resource (quantity.go, amount.go,
// suffix.go). The parser is hand-written: no Debian-packaged library parses this grammar.
//
// Parse computes magnitude = digits * 2^k * 10^shift nano-units exactly with a small base-1e9
// natural number (BigNat), so inputs of any length and exponent round exactly as upstream's
// inf.Dec path does: a non-zero remainder below 1n rounds away from zero (inf.RoundUp).
//
// Deliberate deviations from upstream, all for inputs upstream itself mishandles:
//  - upstream rejects a 19-digit mantissa above 2^63-1 ("9300000000000000000") because its
//    int64 fast path reports ErrNumeric instead of falling back; we accept it, so that every
//    String() result parses again.
//  - upstream's String() echoes some inputs verbatim ("+1", "01", "1E3"); we always emit the
//    canonical form.
//  - values beyond +/-(2^127-1) nano-units (about 1.7e29 units) are OutOfRange here.
#include "ksched/api/quantity.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ksched::api {
namespace {

using U128 = unsigned __int128;
using Format = Quantity::Format;

constexpr __int128 kInt128Max = static_cast<__int128>(~U128{0} >> 1);
constexpr __int128 kInt128Min = -kInt128Max - 1;
constexpr int64_t kNanoPerUnit = 1'000'000'000;
constexpr int64_t kNanoPerMilli = 1'000'000;
// Upstream caps a parsed BinarySI magnitude at 2^63-1 units.
constexpr U128 kBinaryCapNano =
    static_cast<U128>(std::numeric_limits<int64_t>::max()) * static_cast<U128>(kNanoPerUnit);
constexpr int64_t kMaxExponent = std::numeric_limits<int32_t>::max();
// 10^40 > 2^127: digits * 10^shift with more than this many digits always overflows.
constexpr int64_t kMaxNanoDigits = 40;

// |v| without overflow, also for kInt128Min.
U128 Abs(__int128 v) { return v < 0 ? U128{0} - static_cast<U128>(v) : static_cast<U128>(v); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSign(char c) { return c == '-' || c == '+'; }
// The letters upstream's scanner admits at the start of a suffix.
bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// Returns the first index at or after `pos` whose byte `pred` rejects, or s.size().
template <typename Pred>
size_t SkipWhile(std::string_view s, size_t pos, Pred pred) {
  while (pos < s.size() && pred(s[pos])) ++pos;
  return pos;
}

// A quantity string split as upstream's parseQuantityString splits it.
struct Scanned {
  bool negative = false;
  std::string_view integer;   // digits before the point, leading zeros included
  std::string_view fraction;  // digits after the point
  std::string_view suffix;    // [eEinumkKMGTP]*[+-]?[0-9]*, checked later by Interpret
};

// Splits s into sign, number and suffix; nullopt if anything follows the suffix's digits.
std::optional<Scanned> Scan(std::string_view s) {
  Scanned out;
  size_t pos = 0;
  if (pos < s.size() && IsSign(s[pos])) {
    out.negative = s[pos] == '-';
    ++pos;
  }
  size_t start = pos;
  pos = SkipWhile(s, pos, IsDigit);
  out.integer = s.substr(start, pos - start);
  if (pos < s.size() && s[pos] == '.') {
    start = ++pos;
    pos = SkipWhile(s, pos, IsDigit);
    out.fraction = s.substr(start, pos - start);
  }
  start = pos;
  pos = SkipWhile(s, pos, IsSuffixLetter);
  if (pos < s.size() && IsSign(s[pos])) ++pos;
  pos = SkipWhile(s, pos, IsDigit);
  if (pos != s.size()) return std::nullopt;
  out.suffix = s.substr(start);
  return out;
}

// What a suffix means: value = number * base^exponent, written back in `format`.
struct Suffix {
  int base;
  int64_t exponent;
  Format format;
};

struct NamedSuffix {
  std::string_view name;
  Suffix suffix;
};

constexpr std::array<NamedSuffix, 16> kNamedSuffixes = {{
    {"", {10, 0, Format::kDecimalSI}},
    {"n", {10, -9, Format::kDecimalSI}},
    {"u", {10, -6, Format::kDecimalSI}},
    {"m", {10, -3, Format::kDecimalSI}},
    {"k", {10, 3, Format::kDecimalSI}},
    {"M", {10, 6, Format::kDecimalSI}},
    {"G", {10, 9, Format::kDecimalSI}},
    {"T", {10, 12, Format::kDecimalSI}},
    {"P", {10, 15, Format::kDecimalSI}},
    {"E", {10, 18, Format::kDecimalSI}},
    {"Ki", {2, 10, Format::kBinarySI}},
    {"Mi", {2, 20, Format::kBinarySI}},
    {"Gi", {2, 30, Format::kBinarySI}},
    {"Ti", {2, 40, Format::kBinarySI}},
    {"Pi", {2, 50, Format::kBinarySI}},
    {"Ei", {2, 60, Format::kBinarySI}},
}};

// Parses [+-]?[0-9]+ (strconv.ParseInt's base-10 form) if |value| <= kMaxExponent, as the
// current upstream does instead of truncating a wider exponent to int32.
std::optional<int64_t> ParseExponent(std::string_view s) {
  bool negative = false;
  if (!s.empty() && IsSign(s[0])) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
    if (value > kMaxExponent) return std::nullopt;
  }
  return negative ? -value : value;
}

// Upstream's suffixer.interpret: a named suffix, or e/E followed by a signed integer.
std::optional<Suffix> Interpret(std::string_view s) {
  for (const NamedSuffix& named : kNamedSuffixes) {
    if (named.name == s) return named.suffix;
  }
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  std::optional<int64_t> exponent = ParseExponent(s.substr(1));
  if (!exponent) return std::nullopt;
  return Suffix{10, *exponent, Format::kDecimalExponent};
}

// Upstream parses a number without digits ("-", ".", "Ki") as zero when its int64 fast path
// handles it, and fails in its inf.Dec fallback ("no digits") otherwise. The fast path takes
// decimal scales >= -9, and binary suffixes with 13 - exponent*3/10 >= 0, i.e. Ki..Ti.
bool DigitlessIsZero(const Suffix& suffix) {
  if (suffix.base == 2) return suffix.exponent <= 40;
  return suffix.exponent >= -9;
}

// A natural number in base 1e9, least significant limb first; only what Parse needs.
class BigNat {
 public:
  static constexpr uint32_t kLimbBase = 1'000'000'000;

  // `digits` is a non-empty decimal string.
  explicit BigNat(std::string_view digits) {
    while (!digits.empty()) {
      size_t take = digits.size() < 9 ? digits.size() : 9;
      uint32_t limb = 0;
      for (char c : digits.substr(digits.size() - take)) limb = limb * 10 + (c - '0');
      limbs_.push_back(limb);
      digits.remove_suffix(take);
    }
    Trim();
  }

  // *this *= m, for 0 < m <= 2^30.
  void MulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      uint64_t cur = uint64_t{limb} * m + carry;
      limb = static_cast<uint32_t>(cur % kLimbBase);
      carry = cur / kLimbBase;
    }
    for (; carry != 0; carry /= kLimbBase) {
      limbs_.push_back(static_cast<uint32_t>(carry % kLimbBase));
    }
  }

  void MulPow2(int64_t k) {
    for (; k >= 30; k -= 30) MulSmall(uint32_t{1} << 30);
    if (k > 0) MulSmall(uint32_t{1} << k);
  }

  // *this *= 10^e, for small e >= 0.
  void MulPow10(int64_t e) {
    for (; e >= 9; e -= 9) MulSmall(kLimbBase);
    if (e > 0) MulSmall(Pow10(e));
  }

  // *this /= 10^e (truncating), for e >= 0. Returns true if the remainder was non-zero.
  bool DivPow10(int64_t e) {
    bool inexact = false;
    int64_t drop = e / 9;
    if (drop >= static_cast<int64_t>(limbs_.size())) {
      inexact = !limbs_.empty();
      limbs_.clear();
      return inexact;
    }
    for (int64_t i = 0; i < drop; ++i) inexact |= limbs_[i] != 0;
    limbs_.erase(limbs_.begin(), limbs_.begin() + drop);
    return DivSmall(Pow10(e % 9)) || inexact;
  }

  // The value if it is at most 2^127-1.
  std::optional<U128> ToInt128Range() const {
    U128 value = 0;
    for (auto it = limbs_.rbegin(); it != limbs_.rend(); ++it) {
      if (__builtin_mul_overflow(value, U128{kLimbBase}, &value)) return std::nullopt;
      if (__builtin_add_overflow(value, U128{*it}, &value)) return std::nullopt;
      if (value > static_cast<U128>(kInt128Max)) return std::nullopt;
    }
    return value;
  }

 private:
  static uint32_t Pow10(int64_t e) {
    uint32_t p = 1;
    for (int64_t i = 0; i < e; ++i) p *= 10;
    return p;
  }

  // *this /= d (truncating), for 0 < d <= 1e9. Returns true if the remainder was non-zero.
  bool DivSmall(uint32_t d) {
    uint64_t rem = 0;
    for (auto it = limbs_.rbegin(); it != limbs_.rend(); ++it) {
      uint64_t cur = rem * kLimbBase + *it;
      *it = static_cast<uint32_t>(cur / d);
      rem = cur % d;
    }
    Trim();
    return rem != 0;
  }

  void Trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  std::vector<uint32_t> limbs_;
};

// The mantissa digits of `scanned` with leading and trailing zeros removed, and the power of
// ten they are scaled by: number = digits * 10^exp10.
struct Significand {
  std::string digits;  // empty for zero
  int64_t exp10 = 0;
};

Significand SignificandOf(const Scanned& scanned) {
  Significand out;
  out.digits.append(scanned.integer).append(scanned.fraction);
  out.exp10 = -static_cast<int64_t>(scanned.fraction.size());
  size_t last = out.digits.find_last_not_of('0');
  if (last == std::string::npos) {
    out.digits.clear();
    return out;
  }
  out.exp10 += static_cast<int64_t>(out.digits.size() - 1 - last);
  out.digits.erase(last + 1);
  out.digits.erase(0, out.digits.find_first_not_of('0'));
  return out;
}

// |quantity| in nano-units, rounded away from zero; nullopt if above 2^127-1.
std::optional<U128> MagnitudeNano(const Significand& sig, const Suffix& suffix) {
  if (sig.digits.empty()) return U128{0};
  int64_t pow2 = suffix.base == 2 ? suffix.exponent : 0;
  int64_t shift = sig.exp10 + 9 + (suffix.base == 10 ? suffix.exponent : 0);
  if (shift >= 0 && static_cast<int64_t>(sig.digits.size()) + shift > kMaxNanoDigits) {
    return std::nullopt;  // at least 10^40 nano-units
  }
  BigNat n(sig.digits);
  n.MulPow2(pow2);
  bool inexact = false;
  if (shift >= 0) {
    n.MulPow10(shift);
  } else {
    inexact = n.DivPow10(-shift);
  }
  std::optional<U128> value = n.ToInt128Range();
  if (!value || !inexact) return value;
  if (*value == static_cast<U128>(kInt128Max)) return std::nullopt;
  return *value + 1;
}

absl::Status InvalidQuantity(std::string_view s) {
  return absl::InvalidArgumentError("invalid quantity \"" + std::string(s) + "\"");
}

// v / divisor rounded away from zero, saturated to the int64 range.
int64_t DivideAwayFromZero(__int128 v, int64_t divisor) {
  __int128 q = v / divisor;
  if (v % divisor != 0) q += v < 0 ? -1 : 1;
  if (q > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (q < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(q);
}

std::string ToDecimal(U128 v) {
  std::string out;
  do {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return std::string(out.rbegin(), out.rend());
}

// Upstream's AsCanonicalBytes plus suffix: the mantissa without trailing zeros, its exponent
// lowered to a multiple of 3, and the DecimalSI name or "e<exp>". `nano` is non-zero.
std::string DecimalString(__int128 nano, Format format) {
  U128 mantissa = Abs(nano);
  int64_t exponent = -9;
  for (; mantissa % 10 == 0; mantissa /= 10) ++exponent;
  // Every factor 10 put back was removed above, so this cannot overflow.
  for (; (exponent + 9) % 3 != 0; --exponent) mantissa *= 10;
  std::string suffix;
  if (format == Format::kDecimalSI && exponent <= 18) {
    static constexpr std::array<std::string_view, 10> kNames = {"n", "u", "m", "",  "k",
                                                                "M", "G", "T", "P", "E"};
    suffix = kNames[(exponent + 9) / 3];
  } else if (exponent != 0) {
    suffix = "e" + std::to_string(exponent);  // DecimalSI has no name above E (upstream fallback)
  }
  return (nano < 0 ? "-" : "") + ToDecimal(mantissa) + suffix;
}

// The BinarySI form ("1536Mi"), or nullopt where upstream falls back to DecimalSI: magnitude
// below 1024, a fractional value, or a power of 1024 beyond Ei.
std::optional<std::string> BinaryString(__int128 nano) {
  U128 magnitude = Abs(nano);
  if (magnitude < U128{1024} * kNanoPerUnit || magnitude % kNanoPerUnit != 0) return std::nullopt;
  U128 units = magnitude / kNanoPerUnit;
  size_t power = 0;
  for (; units % 1024 == 0; units /= 1024) ++power;
  static constexpr std::array<std::string_view, 7> kNames = {"",   "Ki", "Mi", "Gi",
                                                             "Ti", "Pi", "Ei"};
  if (power >= kNames.size()) return std::nullopt;
  return (nano < 0 ? "-" : "") + ToDecimal(units) + std::string(kNames[power]);
}

__int128 SaturatingAdd(__int128 a, __int128 b) {
  __int128 sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? kInt128Max : kInt128Min;
}

__int128 SaturatingSub(__int128 a, __int128 b) {
  __int128 diff;
  if (!__builtin_sub_overflow(a, b, &diff)) return diff;
  return b < 0 ? kInt128Max : kInt128Min;
}

}  // namespace

absl::StatusOr<Quantity> Quantity::Parse(std::string_view s) {
  if (s.empty()) return InvalidQuantity(s);
  std::optional<Scanned> scanned = Scan(s);
  if (!scanned) return InvalidQuantity(s);
  std::optional<Suffix> suffix = Interpret(scanned->suffix);
  if (!suffix) return InvalidQuantity(s);
  if (scanned->integer.empty() && scanned->fraction.empty()) {
    if (!DigitlessIsZero(*suffix)) return InvalidQuantity(s);
    return Quantity(0, suffix->format);
  }
  std::optional<U128> magnitude = MagnitudeNano(SignificandOf(*scanned), *suffix);
  Format format = suffix->format;
  if (format == Format::kBinarySI) {
    if (!magnitude || *magnitude > kBinaryCapNano) magnitude = kBinaryCapNano;
    // Upstream: a non-zero BinarySI amount below 1 is DecimalSI.
    if (*magnitude != 0 && *magnitude < U128{kNanoPerUnit}) format = Format::kDecimalSI;
  }
  if (!magnitude) {
    return absl::OutOfRangeError("quantity \"" + std::string(s) + "\" is out of range");
  }
  __int128 nano = static_cast<__int128>(*magnitude);
  return Quantity(scanned->negative ? -nano : nano, format);
}

Quantity Quantity::FromValue(int64_t units, Format format) {
  return Quantity(static_cast<__int128>(units) * kNanoPerUnit, format);
}

Quantity Quantity::FromMilli(int64_t milli, Format format) {
  return Quantity(static_cast<__int128>(milli) * kNanoPerMilli, format);
}

int64_t Quantity::Value() const { return DivideAwayFromZero(nano_, kNanoPerUnit); }

int64_t Quantity::MilliValue() const { return DivideAwayFromZero(nano_, kNanoPerMilli); }

std::string Quantity::String() const {
  if (nano_ == 0) return "0";
  if (format_ == Format::kBinarySI) {
    if (std::optional<std::string> binary = BinaryString(nano_)) return *std::move(binary);
    return DecimalString(nano_, Format::kDecimalSI);
  }
  return DecimalString(nano_, format_);
}

Quantity& Quantity::operator+=(const Quantity& o) {
  if (nano_ == 0) format_ = o.format_;
  nano_ = SaturatingAdd(nano_, o.nano_);
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& o) {
  if (nano_ == 0) format_ = o.format_;
  nano_ = SaturatingSub(nano_, o.nano_);
  return *this;
}

}  // namespace ksched::api
