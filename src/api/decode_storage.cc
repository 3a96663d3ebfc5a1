// storage.k8s.io/v1: StorageClass, CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment.
#include <string>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
namespace decoding {
namespace {

absl::Status TopologyReq(element e, const Path& p, TopologySelectorRequirement* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "key") return Str(v, vp, &out->key);
        if (k == "values") return StrList(v, vp, &out->values);
        return absl::OkStatus();
      }));
  if (out->key.empty()) return FieldError(p.Field("key"), "Required value");
  if (out->values.empty()) return FieldError(p.Field("values"), "Required value");
  return absl::OkStatus();
}

absl::Status TopologyTerm(element e, const Path& p, TopologySelectorTerm* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "matchLabelExpressions") {
      return Items(v, vp, &out->match_label_expressions, TopologyReq);
    }
    return absl::OkStatus();
  });
}

absl::Status StorageClassAt(element e, const Path& p, StorageClass* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "metadata") return Meta(v, vp, &out->metadata);
        if (k == "provisioner") return Str(v, vp, &out->provisioner);
        if (k == "volumeBindingMode") return Str(v, vp, &out->volume_binding_mode);
        if (k == "reclaimPolicy") return CheckOneOf(v, vp, {"Delete", "Retain"});
        if (k == "allowedTopologies") return Items(v, vp, &out->allowed_topologies, TopologyTerm);
        return absl::OkStatus();
      }));
  return CheckSupported(p.Field("volumeBindingMode"), out->volume_binding_mode,
                        {"Immediate", "WaitForFirstConsumer"});
}

absl::Status CsiNodeDriver(element e, const Path& p, CSINodeDriver* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "nodeID") return Str(v, vp, &out->node_id);
    if (k == "topologyKeys") return StrList(v, vp, &out->topology_keys);
    if (k == "allocatable") {
      return Fields(v, vp, [&](std::string_view ak, element av, const Path& avp) -> absl::Status {
        if (ak == "count") return OptInteger(av, avp, &out->allocatable_count);
        return absl::OkStatus();
      });
    }
    return absl::OkStatus();
  });
}

absl::Status CsiNodeAt(element e, const Path& p, CSINode* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "drivers") return Items(sv, svp, &out->drivers, CsiNodeDriver);
      return absl::OkStatus();
    });
  });
}

absl::Status CsiDriverAt(element e, const Path& p, CSIDriver* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "attachRequired") return OptBool(sv, svp, &out->attach_required);
      if (sk == "storageCapacity") return OptBool(sv, svp, &out->storage_capacity);
      if (sk == "preventPodSchedulingIfMissing") {
        return OptBool(sv, svp, &out->prevent_pod_scheduling_if_missing);
      }
      return absl::OkStatus();
    });
  });
}

absl::Status CsiStorageCapacityAt(element e, const Path& p, CSIStorageCapacity* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "storageClassName") return Str(v, vp, &out->storage_class_name);
    if (k == "nodeTopology") return OptLabelSel(v, vp, &out->node_topology);
    if (k == "capacity") return OptQuant(v, vp, &out->capacity);
    if (k == "maximumVolumeSize") return OptQuant(v, vp, &out->maximum_volume_size);
    return absl::OkStatus();
  });
}

absl::Status VolumeAttachmentAt(element e, const Path& p, VolumeAttachment* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "attacher") return Str(sv, svp, &out->attacher);
      if (sk == "nodeName") return Str(sv, svp, &out->node_name);
      if (sk != "source") return absl::OkStatus();
      return Fields(sv, svp, [&](std::string_view ok, element ov, const Path& ovp) {
        if (ok == "persistentVolumeName") return Str(ov, ovp, &out->persistent_volume_name);
        return absl::OkStatus();
      });
    });
  });
}

}  // namespace
}  // namespace decoding

using decoding::element;
using decoding::Path;

absl::Status DecodeStorageClass(element e, StorageClass* out) {
  return decoding::StorageClassAt(e, Path(), out);
}
absl::Status DecodeCSINode(element e, CSINode* out) { return decoding::CsiNodeAt(e, Path(), out); }
absl::Status DecodeCSIDriver(element e, CSIDriver* out) {
  return decoding::CsiDriverAt(e, Path(), out);
}
absl::Status DecodeCSIStorageCapacity(element e, CSIStorageCapacity* out) {
  return decoding::CsiStorageCapacityAt(e, Path(), out);
}
absl::Status DecodeVolumeAttachment(element e, VolumeAttachment* out) {
  return decoding::VolumeAttachmentAt(e, Path(), out);
}

}  // namespace ksched::api
