// Fuzzes object decoding: arbitrary bytes, read as JSON and as YAML, never crash the decoder, and
// every pod that decodes has computable requests.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ksched/api/resources.h"
#include "src/api/decode.h"
#include "src/api/yaml.h"

namespace {

void DecodeAll(std::string_view json) {
  auto objects = ksched::api::DecodeObjects(json);
  if (!objects.ok()) return;
  for (const auto& o : *objects) {
    if (const auto* pod = std::get_if<ksched::api::Pod>(&o)) {
      (void)ksched::api::PodRequests(*pod);
      (void)ksched::api::NonZeroPodRequests(*pod);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  DecodeAll(text);
  if (auto docs = ksched::api::YamlToJson(text); docs.ok()) {
    for (const std::string& doc : *docs) DecodeAll(doc);
  }
  return 0;
}
