// resource.Quantity: Kubernetes' fixed-point number with a unit suffix ("100m", "1Gi", "1e3").
//
// Quantity holds the exact value in nano-units as a 128-bit integer, so every value that the
// upstream grammar can express within +/-2^63 units (and far beyond) round-trips without loss.
// Precision finer than 1n is rounded up at parse time, as upstream does.
//
//   absl::StatusOr<Quantity> q = Quantity::Parse("1.5Gi");
//   if (!q.ok()) return q.status();  // "invalid quantity \"1.5.3\""
//   int64_t bytes = q->Value();      // 1610612736
//
// Thread safety: a Quantity is a value type; const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ksched::api {

class Quantity {
 public:
  // The suffix family a quantity was written in; String() writes the value back in it.
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;

  // Parses the full upstream grammar:
  //   <signedNumber><suffix>, suffix one of: "" n u m k M G T P E | Ki Mi Gi Ti Pi Ei | e<int>
  //   E<int>
  // Returns InvalidArgument `invalid quantity "<s>"` for anything else, including "" and an
  // exponent beyond +/-(2^31-1). As upstream, a number with no digits at all ("-", ".", "m", "Ki")
  // parses as zero where upstream's int64 fast path takes it, and is invalid where it does not
  // ("Pi", "Ei", "e-10"). A BinarySI value is capped at +/-(2^63-1) units as upstream does; any
  // other value beyond +/-(2^127-1) nano-units returns OutOfRange `quantity "<s>" is out of range`.
  static absl::StatusOr<Quantity> Parse(std::string_view s);

  // Whole units and milli-units.
  static Quantity FromValue(int64_t units, Format format = Format::kDecimalSI);
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);

  // The value in whole units, rounded away from zero as upstream's Value() does ("-1500m" is
  // -2). Saturates at the int64 range.
  int64_t Value() const;
  // The value in milli-units, rounded away from zero: "0.1m" is 1, "-0.1m" is -1. Saturates at
  // the int64 range.
  int64_t MilliValue() const;
  // The exact value in nano-units.
  __int128 NanoValue() const { return nano_; }

  bool IsZero() const { return nano_ == 0; }
  int Sign() const { return nano_ < 0 ? -1 : (nano_ > 0 ? 1 : 0); }
  Format format() const { return format_; }

  // The canonical form, as upstream's String(): "100m", "1536Mi", "1500M", "1e3".
  std::string String() const;

  // As upstream's Add/Sub: a zero receiver takes o's format ("0" += "1Gi" prints "1Gi").
  // Saturates at the __int128 range instead of overflowing.
  Quantity& operator+=(const Quantity& o);
  Quantity& operator-=(const Quantity& o);
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nano_ == b.nano_; }
  friend auto operator<=>(const Quantity& a, const Quantity& b) { return a.nano_ <=> b.nano_; }

 private:
  Quantity(__int128 nano, Format format) : nano_(nano), format_(format) {}

  __int128 nano_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace ksched::api
