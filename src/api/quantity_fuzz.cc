// libFuzzer target for Quantity::Parse. For every input that parses, checks the invariants
// below and traps on a violation; for every input that does not, checks the error's form.
//  - String() parses back to the same value, and printing is stable after that one round trip
//    (not before it: BinarySI "62.5Ki" prints "64000", which reparses as DecimalSI "64k").
//  - "-" + input parses exactly when the input does (no leading sign), to the negated value.
//  - Value() and MilliValue() round away from zero: |x| <= |Value()| < |x| + 1 (and likewise
//    for milli-units) wherever they do not saturate, and they carry the sign of the value.
//  - Comparison and += / -= agree with the nano-unit value.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ksched/api/quantity.h"

namespace {

using ksched::api::Quantity;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

// Checks that rounded == v / unit rounded away from zero, unless rounded saturated.
void CheckRoundedAwayFromZero(__int128 v, int64_t rounded, int64_t unit) {
  if (rounded == std::numeric_limits<int64_t>::max() ||
      rounded == std::numeric_limits<int64_t>::min()) {
    return;
  }
  __int128 scaled = static_cast<__int128>(rounded) * unit;
  if (v >= 0) {
    Check(scaled >= v && scaled - v < unit);
  } else {
    Check(scaled <= v && v - scaled < unit);
  }
}

void CheckError(std::string_view input, const absl::Status& status) {
  if (status.code() == absl::StatusCode::kOutOfRange) {
    Check(status.message() == "quantity \"" + std::string(input) + "\" is out of range");
    return;
  }
  Check(status.code() == absl::StatusCode::kInvalidArgument);
  Check(status.message() == "invalid quantity \"" + std::string(input) + "\"");
}

void CheckCanonical(const Quantity& q) {
  absl::StatusOr<Quantity> again = Quantity::Parse(q.String());
  Check(again.ok());
  Check(*again == q);
  const std::string canonical = again->String();
  absl::StatusOr<Quantity> third = Quantity::Parse(canonical);
  Check(third.ok());
  Check(*third == q);
  Check(third->String() == canonical);
}

void CheckNegation(std::string_view input, const Quantity& q) {
  if (!input.empty() && (input[0] == '-' || input[0] == '+')) return;
  absl::StatusOr<Quantity> negated = Quantity::Parse("-" + std::string(input));
  Check(negated.ok());
  Check(negated->NanoValue() == -q.NanoValue());
  Check(negated->format() == q.format());
}

void CheckAccessors(const Quantity& q) {
  const __int128 nano = q.NanoValue();
  CheckRoundedAwayFromZero(nano, q.Value(), 1'000'000'000);
  CheckRoundedAwayFromZero(nano, q.MilliValue(), 1'000'000);
  Check(q.Sign() == (nano > 0) - (nano < 0));
  Check((q.Value() > 0) - (q.Value() < 0) == q.Sign());
  Check((q.MilliValue() > 0) - (q.MilliValue() < 0) == q.Sign());
  Check(q.IsZero() == (nano == 0));
}

void CheckArithmetic(const Quantity& q) {
  constexpr __int128 kMaxNano = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
  const Quantity one = Quantity::FromValue(1);
  Quantity sum = q;
  sum += one;
  Quantity back = sum;
  back -= one;
  if (q.NanoValue() <= kMaxNano - 1'000'000'000) {
    Check(sum > q && back == q);
  } else {
    Check(sum.NanoValue() == kMaxNano);  // saturated
  }
  Check((q <=> q) == 0);
  Quantity zero;
  zero += q;
  Check(zero == q && zero.format() == q.format());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Quantity> q = Quantity::Parse(input);
  if (!q.ok()) {
    CheckError(input, q.status());
    return 0;
  }
  CheckCanonical(*q);
  CheckNegation(input, *q);
  CheckAccessors(*q);
  CheckArithmetic(*q);
  return 0;
}
