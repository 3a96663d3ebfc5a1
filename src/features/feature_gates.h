// FeatureGates: kube-scheduler's --feature-gates, --emulated-version and
// --min-compatibility-version, read with its syntax, checked with its rules and refused in its
// words, over the gates the pinned kube-scheduler registers (feature_gates.json, written by `make
// feature-gates` from upstream's own gate: names, versioned specs, dependencies).
//
//   std::vector<Warning> warnings;
//   absl::StatusOr<FeatureGates> gates = FeatureGates::FromFlags(
//       {.feature_gates = {"SchedulerAsyncAPICalls=true"}, .emulated_version = {"1.36"}},
//       &warnings);
//   if (gates.ok() && gates->Enabled("SchedulerAsyncAPICalls")) ...
//
// ksched decides as the pinned release at any version it emulates: it refuses a scheduler gate
// away from the pinned release's default (set, or by the emulated version) unless it honours that
// gate, naming what it does not implement (CheckImplemented). Gates the scheduler does not read
// are taken and change nothing, as in kube-scheduler.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace ksched::features {

// A release as major.minor (the patch is never part of emulation).
struct Version {
  int major = 0;
  int minor = 0;
  std::string String() const;
  auto operator<=>(const Version&) const = default;
};

// Go's k8s.io/apimachinery/pkg/util/version.Parse, as the version flags use it: "1.36", "v1.36",
// "1.36.0"; the error in its words. `patch` gets the third component (0 if none).
absl::StatusOr<Version> ParseVersion(std::string_view s, int* patch = nullptr);

enum class Stage { kPreAlpha, kAlpha, kBeta, kGA, kDeprecated };
// As upstream's PreRelease strings: "ALPHA", "BETA", "" (GA), "DEPRECATED", "PRE-ALPHA".
std::string_view StageName(Stage stage);

struct Spec {
  Version version;  // From this release on.
  bool default_value = false;
  bool lock_to_default = false;
  Stage stage = Stage::kAlpha;
  std::optional<Version> min_compatibility;  // The spec holds only from this min-compatibility on.
};

// A GA or deprecated gate was set: upstream logs this, and takes the value.
struct Warning {
  std::string gate;
  bool value = false;
  bool ga = false;  // Else deprecated.
  // "Warning: setting GA feature gate. It will be removed in a future release."
  std::string Message() const;
};

struct Flags {
  std::vector<std::string> feature_gates;  // Each --feature-gates given, in order.
  std::vector<std::string> emulated_version;
  std::vector<std::string> min_compatibility_version;
};

class FeatureGates {
 public:
  // The pinned release ("v1.36.3") and its major.minor, the version ksched decides as.
  static std::string_view Release();
  static Version BinaryVersion();
  // The oldest version --emulated-version and --min-compatibility-version accept: three minors
  // back, not before 1.31.
  static Version Floor();

  // Every gate at its default, at the binary version.
  FeatureGates();
  // The flags applied as kube-scheduler applies them. An error has upstream's words (several are
  // "[a, b]"); a GA or deprecated gate that is set gives a warning.
  static absl::StatusOr<FeatureGates> FromFlags(const Flags& flags,
                                                std::vector<Warning>* warnings = nullptr);

  // Whether ksched honours these settings: a gate the scheduler reads that is away from the
  // binary version's default (set, or by the emulated version) and not Honoured is an error.
  absl::Status CheckImplemented() const;
  // Whether ksched decides by this scheduler gate at either value, as kube-scheduler does.
  static bool Honoured(std::string_view gate);
  // Whether ksched decides as kube-scheduler does with this gate off, whatever its value: off is
  // honoured, on (its default) is not implemented yet.
  static bool DecidedAsOff(std::string_view gate);

  // The gate's value (false for a gate not yet introduced at the emulated version, or unknown).
  bool Enabled(std::string_view gate) const;
  Version emulation_version() const { return emulation_; }
  Version min_compatibility_version() const { return min_compat_; }

  // kubernetes_feature_enabled's series: each gate known at the emulated version.
  struct Series {
    std::string name;
    std::string stage;
    bool enabled = false;
  };
  std::vector<Series> MetricSeries() const;

  // The "Options are:" lines of --feature-gates' help: "kube:Name=true|false (BETA -
  // default=true)", for the alpha and beta gates at the binary version, sorted.
  static std::vector<std::string> KnownFeatures();

  // The gates kube-scheduler's pkg/scheduler reads at the pinned release.
  static const std::vector<std::string>& SchedulerGates();

 private:
  const Spec& SpecOf(std::string_view gate) const;
  Version emulation_;
  Version min_compat_;
  std::map<std::string, bool, std::less<>> set_;  // Explicitly set, AllAlpha/AllBeta's included.
};

}  // namespace ksched::features
