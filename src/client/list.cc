#include "src/client/list.h"

#include <cctype>

#include "fmt/format.h"

namespace ksched::client {

absl::Status DecodeInto(simdjson::dom::element e, api::Pod* out) { return api::DecodePod(e, out); }
absl::Status DecodeInto(simdjson::dom::element e, api::Namespace* out) {
  return api::DecodeNamespace(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::Node* out) {
  return api::DecodeNode(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::PriorityClass* out) {
  return api::DecodePriorityClass(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::Service* out) {
  return api::DecodeService(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::ReplicationController* out) {
  return api::DecodeReplicationController(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::ReplicaSet* out) {
  return api::DecodeReplicaSet(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::StatefulSet* out) {
  return api::DecodeStatefulSet(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::PodDisruptionBudget* out) {
  return api::DecodePodDisruptionBudget(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::PersistentVolume* out) {
  return api::DecodePersistentVolume(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::PersistentVolumeClaim* out) {
  return api::DecodePersistentVolumeClaim(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::StorageClass* out) {
  return api::DecodeStorageClass(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::CSINode* out) {
  return api::DecodeCSINode(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::CSIDriver* out) {
  return api::DecodeCSIDriver(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::CSIStorageCapacity* out) {
  return api::DecodeCSIStorageCapacity(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::DeviceClass* out) {
  return api::DecodeDeviceClass(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::ResourceSlice* out) {
  return api::DecodeResourceSlice(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::ResourceClaim* out) {
  return api::DecodeResourceClaim(e, out);
}
absl::Status DecodeInto(simdjson::dom::element e, api::VolumeAttachment* out) {
  return api::DecodeVolumeAttachment(e, out);
}

absl::Status DecodeInto(simdjson::dom::element e, api::ResourceClaimTemplate* out) {
  return api::DecodeResourceClaimTemplate(e, out);
}

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

absl::StatusOr<std::string> ForEachListItem(std::string* text, simdjson::dom::parser& item_parser,
                                            const std::function<void(simdjson::dom::element)>& fn) {
  text->reserve(text->size() + simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::parser list_parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object top;
  auto failed = [](simdjson::error_code err) {
    return absl::DataLossError(simdjson::error_message(err));
  };
  simdjson::padded_string_view view(text->data(), text->size(), text->capacity());
  if (auto err = list_parser.iterate(view).get(doc); err) return failed(err);
  if (auto err = doc.get_object().get(top); err) return failed(err);
  std::string version;
  bool has_items = false;
  for (auto field : top) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key); err) return failed(err);
    if (key == "metadata") {
      std::string_view rv;
      if (field.value().find_field_unordered("resourceVersion").get_string().get(rv) ==
          simdjson::SUCCESS) {
        version = std::string(rv);
      }
      continue;
    }
    if (key != "items") continue;
    simdjson::ondemand::array items;
    if (auto err = field.value().get_array().get(items); err) return failed(err);
    has_items = true;
    for (auto item : items) {
      simdjson::ondemand::object o;
      std::string_view raw;
      simdjson::dom::element e;
      if (auto err = item.get_object().get(o); err) return failed(err);
      if (auto err = o.raw_json().get(raw); err) return failed(err);
      if (auto err = item_parser.parse(raw.data(), raw.size()).get(e); err) return failed(err);
      fn(e);
    }
  }
  if (!has_items) return absl::DataLossError("the list has no items");
  return version;
}

}  // namespace ksched::client
