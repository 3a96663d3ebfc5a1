// Fuzzes config decoding: arbitrary bytes never crash the decoder, and every configuration that
// decodes prints to YAML that decodes again to the same print.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "src/api/yaml.h"
#include "src/config/load.h"
#include "src/plugins/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ksched::Registry registry = ksched::plugins::NewInTreeRegistry();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cfg = ksched::config::DecodeConfiguration(text, registry);
  if (!cfg.ok()) return 0;
  const std::string printed = ksched::api::JsonToYaml(ksched::config::EncodeConfiguration(*cfg));
  auto again = ksched::config::DecodeConfiguration(printed, registry);
  if (!again.ok() ||
      ksched::api::JsonToYaml(ksched::config::EncodeConfiguration(*again)) != printed) {
    std::abort();  // The effective configuration must read back as itself.
  }
  return 0;
}
