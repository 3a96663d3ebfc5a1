// Fuzzes reading manifests as `ksched simulate` reads them, seeded with test/bad_manifests: any
// bytes give objects or an error, never a crash; every object accepted has a name and passes the
// API server's validation; and what strict validation accepts, the laxer modes accept the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "src/sim/manifests.h"
#include "src/sim/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ksched::sim::FieldValidation;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  auto strict = ksched::sim::ParseManifest(text, "fuzz.yaml");
  auto warn = ksched::sim::ParseManifest(text, "fuzz.yaml", FieldValidation::kWarn, &warnings);
  auto ignore = ksched::sim::ParseManifest(text, "fuzz.yaml", FieldValidation::kIgnore);
  if (strict.ok() && (!warn.ok() || !ignore.ok() || !warnings.empty() ||
                      warn->size() != strict->size() || ignore->size() != strict->size())) {
    std::abort();
  }
  if (!warn.ok()) return 0;
  for (const ksched::api::Object& o : *warn) {
    if (ksched::api::MetaOf(o).name.empty() || !ksched::sim::ValidateObject(o).empty()) std::abort();
  }
  return 0;
}
