// DRA objects for the plugin's tests, written as YAML manifests and decoded as ksched reads them.
//
//   api::ResourceSlice slice = Slice(R"(
//     metadata: {name: n1-gpu}
//     spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
//            devices: [{name: gpu-0}]})");
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "simdjson.h"
#include "src/api/decode.h"
#include "src/api/listers.h"
#include "src/api/yaml.h"

namespace ksched::plugins::dynamic_resources::testing {

template <typename T>
T Decode(std::string_view yaml, absl::Status (*decode)(simdjson::dom::element, T*)) {
  absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(yaml);
  EXPECT_TRUE(docs.ok() && docs->size() == 1) << yaml;
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  T out;
  if (!docs.ok() || docs->empty() || parser.parse((*docs)[0]).get(e)) return out;
  absl::Status st = decode(e, &out);
  EXPECT_TRUE(st.ok()) << st;
  return out;
}

inline api::ResourceSlice Slice(std::string_view yaml) {
  return Decode(yaml, api::DecodeResourceSlice);
}
inline api::DeviceClass Class(std::string_view yaml) {
  return Decode(yaml, api::DecodeDeviceClass);
}
inline api::ResourceClaim Claim(std::string_view yaml) {
  return Decode(yaml, api::DecodeResourceClaim);
}

// Stores a DRA object in the listers, as the informers would.
template <typename T>
void Store(DraObjects& dra, const T& obj) {
  auto shared = std::make_shared<const T>(obj);
  if constexpr (std::is_same_v<T, api::DeviceClass>) dra.device_classes.Set(shared);
  if constexpr (std::is_same_v<T, api::ResourceSlice>) dra.resource_slices.Set(shared);
  if constexpr (std::is_same_v<T, api::ResourceClaim>) dra.resource_claims.Set(shared);
  if constexpr (std::is_same_v<T, api::DeviceTaintRule>) dra.device_taint_rules.Set(shared);
}

}  // namespace ksched::plugins::dynamic_resources::testing
