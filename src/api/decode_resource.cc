// resource.k8s.io/v1: ResourceSlice, DeviceClass, ResourceClaim and ResourceClaimTemplate.
#include <map>
#include <string>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "simdjson.h"
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
namespace decoding {
namespace {

absl::Status DeviceAttr(element e, const Path& p, DeviceAttribute* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "int") return OptInteger(v, vp, &out->int_value);
    if (k == "bool") return OptBool(v, vp, &out->bool_value);
    if (k == "string") return OptStr(v, vp, &out->string_value);
    if (k == "version") return OptStr(v, vp, &out->version_value);
    return absl::OkStatus();
  });
}

absl::Status DeviceTaintOf(element e, const Path& p, DeviceTaint* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "key") return Str(v, vp, &out->key);
    if (k == "value") return Str(v, vp, &out->value);
    if (k == "effect") return Str(v, vp, &out->effect);
    return absl::OkStatus();
  });
}

absl::Status DeviceTolerationOf(element e, const Path& p, DeviceToleration* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "key") return Str(v, vp, &out->key);
    if (k == "operator") return Str(v, vp, &out->op);
    if (k == "value") return Str(v, vp, &out->value);
    if (k == "effect") return Str(v, vp, &out->effect);
    if (k == "tolerationSeconds") return OptInteger(v, vp, &out->toleration_seconds);
    return absl::OkStatus();
  });
}

// counters: {<name>: {value: <quantity>}}, of a counter set or of a device's consumption.
absl::Status Counters(element e, const Path& p, std::map<std::string, Quantity>* out) {
  return Fields(e, p, [&](std::string_view name, element c, const Path& cp) {
    return Fields(c, cp, [&](std::string_view f, element v, const Path& vp) -> absl::Status {
      if (f == "value") return Quant(v, vp, &(*out)[std::string(name)]);
      return absl::OkStatus();
    });
  });
}

absl::Status CounterSetOf(element e, const Path& p, CounterSet* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "counters") return Counters(v, vp, &out->counters);
    return absl::OkStatus();
  });
}

// A device's consumption of one counter set; `unsupported` gets its compatibility groups
// (DRADeviceCompatibilityGroups, alpha and off in 1.37).
absl::Status CounterConsumptionOf(element e, const Path& p, DeviceCounterConsumption* out,
                                  std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "counterSet") return Str(v, vp, &out->counter_set);
    if (k == "counters") return Counters(v, vp, &out->counters);
    if (k == "compatibilityGroups") Unsupported(v, vp, unsupported);
    return absl::OkStatus();
  });
}

absl::Status RequestPolicyOf(element e, const Path& p, CapacityRequestPolicy* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "default") return OptQuant(v, vp, &out->default_value);
    if (k == "validValues") return Items(v, vp, &out->valid_values, Quant);
    if (k != "validRange" || v.is_null()) return absl::OkStatus();
    CapacityRequestRange& range = out->valid_range.emplace();
    return Fields(v, vp, [&](std::string_view rk, element rv, const Path& rp) -> absl::Status {
      if (rk == "min") return OptQuant(rv, rp, &range.min);
      if (rk == "max") return OptQuant(rv, rp, &range.max);
      if (rk == "step") return OptQuant(rv, rp, &range.step);
      return absl::OkStatus();
    });
  });
}

absl::Status DeviceOf(element e, const Path& p, Device* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "attributes") {
      return Fields(v, vp, [&](std::string_view ak, element av, const Path& avp) {
        return DeviceAttr(av, avp, &out->attributes[std::string(ak)]);
      });
    }
    if (k == "capacity") {
      return Fields(v, vp, [&](std::string_view ck, element cv, const Path& cvp) {
        return Fields(cv, cvp,
                      [&](std::string_view f, element fv, const Path& fvp) -> absl::Status {
                        if (f == "value") return Quant(fv, fvp, &out->capacity[std::string(ck)]);
                        if (f == "requestPolicy" && !fv.is_null()) {
                          return RequestPolicyOf(fv, fvp, &out->request_policies[std::string(ck)]);
                        }
                        return absl::OkStatus();
                      });
      });
    }
    if (k == "nodeName") return OptStr(v, vp, &out->node_name);
    if (k == "nodeSelector") return OptNodeSel(v, vp, &out->node_selector);
    if (k == "allNodes") return OptBool(v, vp, &out->all_nodes);
    if (k == "taints") return Items(v, vp, &out->taints, DeviceTaintOf);
    if (k == "consumesCounters") {
      return Items(v, vp, &out->consumes_counters,
                   [&](element c, const Path& cp, DeviceCounterConsumption* consumption) {
                     return CounterConsumptionOf(c, cp, consumption, &out->unsupported);
                   });
    }
    if (k == "allowMultipleAllocations") return OptBool(v, vp, &out->allow_multiple_allocations);
    if (k == "bindsToNode") return OptBool(v, vp, &out->binds_to_node);
    if (k == "bindingConditions") return StrList(v, vp, &out->binding_conditions);
    if (k == "bindingFailureConditions") return StrList(v, vp, &out->binding_failure_conditions);
    // DRANodeAllocatableResources, alpha and off.
    if (k == "nodeAllocatableResources") Unsupported(v, vp, &out->unsupported);
    return absl::OkStatus();
  });
}

absl::Status ResourceSliceAt(element e, const Path& p, ResourceSlice* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "driver") return Str(sv, svp, &out->driver);
      if (sk == "pool") {
        return Fields(sv, svp,
                      [&](std::string_view pk, element pv, const Path& pvp) -> absl::Status {
                        if (pk == "name") return Str(pv, pvp, &out->pool);
                        if (pk == "generation") return Integer(pv, pvp, &out->pool_generation);
                        if (pk == "resourceSliceCount")
                          return Integer(pv, pvp, &out->pool_slice_count);
                        return absl::OkStatus();
                      });
      }
      if (sk == "nodeName") return OptStr(sv, svp, &out->node_name);
      if (sk == "nodeSelector") return OptNodeSel(sv, svp, &out->node_selector);
      if (sk == "allNodes") return Bool(sv, svp, &out->all_nodes);
      if (sk == "perDeviceNodeSelection") return Bool(sv, svp, &out->per_device_node_selection);
      if (sk == "devices") return Items(sv, svp, &out->devices, DeviceOf);
      if (sk == "sharedCounters") return Items(sv, svp, &out->shared_counters, CounterSetOf);
      return absl::OkStatus();
    });
  });
}

// selectors[].cel.expression
absl::Status Selectors(element e, const Path& p, std::vector<std::string>* out) {
  return Items(e, p, out, [](element s, const Path& sp, std::string* expr) {
    return Fields(s, sp, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
      if (k != "cel") return absl::OkStatus();
      return Fields(v, vp, [&](std::string_view ck, element cv, const Path& cvp) -> absl::Status {
        if (ck == "expression") return Str(cv, cvp, expr);
        return absl::OkStatus();
      });
    });
  });
}

// A configuration: `requests` (a claim's) and `opaque` {driver, parameters}.
absl::Status DeviceConfigField(std::string_view k, element v, const Path& vp,
                               DeviceConfiguration* out) {
  if (k == "requests") return StrList(v, vp, &out->requests);
  if (k != "opaque") return absl::OkStatus();
  return Fields(v, vp, [&](std::string_view ok, element ov, const Path& ovp) -> absl::Status {
    if (ok == "driver") return Str(ov, ovp, &out->driver);
    if (ok == "parameters") out->parameters = simdjson::minify(ov);
    return absl::OkStatus();
  });
}

absl::Status DeviceConfig(element e, const Path& p, DeviceConfiguration* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    return DeviceConfigField(k, v, vp, out);
  });
}

absl::Status DeviceClassAt(element e, const Path& p, DeviceClass* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "selectors") return Selectors(sv, svp, &out->selectors);
      if (sk == "config") return Items(sv, svp, &out->config, DeviceConfig);
      if (sk == "extendedResourceName") return OptStr(sv, svp, &out->extended_resource_name);
      return absl::OkStatus();
    });
  });
}

absl::Status DeviceTaintRuleAt(element e, const Path& p, DeviceTaintRule* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "taint") return DeviceTaintOf(sv, svp, &out->taint);
      if (sk != "deviceSelector" || sv.is_null()) return absl::OkStatus();
      DeviceTaintSelector& sel = out->device_selector.emplace();
      return Fields(sv, svp, [&](std::string_view f, element fv, const Path& fp) -> absl::Status {
        if (f == "driver") return OptStr(fv, fp, &sel.driver);
        if (f == "pool") return OptStr(fv, fp, &sel.pool);
        if (f == "device") return OptStr(fv, fp, &sel.device);
        return absl::OkStatus();
      });
    });
  });
}

// An ExactDeviceRequest or a DeviceSubRequest.
absl::Status SubRequest(element e, const Path& p, DeviceSubRequest* out) {
  bool count_given = false;
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "name") return Str(v, vp, &out->name);
        if (k == "deviceClassName") return Str(v, vp, &out->device_class_name);
        if (k == "selectors") return Selectors(v, vp, &out->selectors);
        if (k == "allocationMode") return Str(v, vp, &out->allocation_mode);
        if (k == "count") {
          count_given = !v.is_null();
          return Integer(v, vp, &out->count);
        }
        if (k == "adminAccess") return Bool(v, vp, &out->admin_access);
        if (k == "tolerations") return Items(v, vp, &out->tolerations, DeviceTolerationOf);
        if (k != "capacity" || v.is_null()) return absl::OkStatus();
        return Fields(v, vp, [&](std::string_view ck, element cv, const Path& cvp) {
          if (ck != "requests") return absl::OkStatus();
          return Resources(cv, cvp, &out->capacity_requests);
        });
      }));
  // The API server defaults an absent or zero count to 1 for ExactCount; with All it stays 0
  // (and must).
  if (out->allocation_mode == "ExactCount" && out->count == 0) out->count = 1;
  if (!count_given && out->allocation_mode == "All") out->count = 0;
  return absl::OkStatus();
}

// A request: `exactly` one class's devices, or the `firstAvailable` of alternatives.
absl::Status RequestOf(element e, const Path& p, DeviceRequest* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "exactly" && !v.is_null()) return SubRequest(v, vp, &out->exactly.emplace());
    if (k == "firstAvailable") return Items(v, vp, &out->first_available, SubRequest);
    return absl::OkStatus();
  });
}

absl::Status ConstraintOf(element e, const Path& p, DeviceConstraint* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "requests") return StrList(v, vp, &out->requests);
    if (k == "matchAttribute") return OptStr(v, vp, &out->match_attribute);
    if (k == "distinctAttribute") return OptStr(v, vp, &out->distinct_attribute);
    return absl::OkStatus();
  });
}

absl::Status ClaimSpec(element e, const Path& p, ResourceClaimSpec* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k != "devices") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view dk, element dv, const Path& dvp) -> absl::Status {
      if (dk == "requests") return Items(dv, dvp, &out->requests, RequestOf);
      if (dk == "constraints") return Items(dv, dvp, &out->constraints, ConstraintOf);
      if (dk == "config") return Items(dv, dvp, &out->config, DeviceConfig);
      return absl::OkStatus();
    });
  });
}

// One allocated device (status.allocation.devices.results[]).
absl::Status AllocatedDeviceOf(element e, const Path& p, DeviceRequestAllocationResult* out,
                               std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "request") return Str(v, vp, &out->request);
    if (k == "driver") return Str(v, vp, &out->driver);
    if (k == "pool") return Str(v, vp, &out->pool);
    if (k == "device") return Str(v, vp, &out->device);
    if (k == "adminAccess") return Bool(v, vp, &out->admin_access);
    if (k == "tolerations") return Items(v, vp, &out->tolerations, DeviceTolerationOf);
    if (k == "shareID") return OptStr(v, vp, &out->share_id);
    if (k == "consumedCapacity") return Resources(v, vp, &out->consumed_capacity);
    if (k == "bindingConditions") return StrList(v, vp, &out->binding_conditions);
    if (k == "bindingFailureConditions") return StrList(v, vp, &out->binding_failure_conditions);
    // DRAOptionalNodeOperations, alpha and off.
    if (k == "skipNodeOperations") Unsupported(v, vp, unsupported);
    return absl::OkStatus();
  });
}

// status.allocation.devices.config[]: its `source` beside a configuration's fields.
absl::Status AllocationConfigOf(element e, const Path& p, DeviceAllocationConfiguration* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    if (k == "source") return Str(v, vp, &out->source);
    return DeviceConfigField(k, v, vp, &out->configuration);
  });
}

absl::Status AllocationOf(element e, const Path& p, AllocationResult* out,
                          std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "nodeSelector") return OptNodeSel(v, vp, &out->node_selector);
    if (k == "allocationTimestamp") return Str(v, vp, &out->allocation_timestamp);
    if (k != "devices") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view dk, element dv, const Path& dvp) -> absl::Status {
      if (dk == "results") {
        return Items(dv, dvp, &out->results,
                     [&](element r, const Path& rp, DeviceRequestAllocationResult* result) {
                       return AllocatedDeviceOf(r, rp, result, unsupported);
                     });
      }
      if (dk == "config") return Items(dv, dvp, &out->config, AllocationConfigOf);
      return absl::OkStatus();
    });
  });
}

// status.devices[]: a device's conditions, as its driver's controller set them.
absl::Status DeviceStatusOf(element e, const Path& p, AllocatedDeviceStatus* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "driver") return Str(v, vp, &out->driver);
    if (k == "pool") return Str(v, vp, &out->pool);
    if (k == "device") return Str(v, vp, &out->device);
    if (k == "shareID") return OptStr(v, vp, &out->share_id);
    if (k != "conditions") return absl::OkStatus();
    return Items(v, vp, &out->conditions, ConditionOf<Condition>);
  });
}

absl::Status ResourceClaimAt(element e, const Path& p, ResourceClaim* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return ClaimSpec(v, vp, &out->spec);
    if (k != "status") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "allocation") {
        if (sv.is_null()) return absl::OkStatus();
        return AllocationOf(sv, svp, &out->allocation.emplace(), &out->unsupported);
      }
      if (sk == "reservedFor") {
        return Items(sv, svp, &out->reserved_for,
                     [](element r, const Path& rp, ResourceClaimConsumerReference* ref) {
                       return Fields(
                           r, rp,
                           [&](std::string_view rk, element rv, const Path& rvp) -> absl::Status {
                             if (rk == "apiGroup") return Str(rv, rvp, &ref->api_group);
                             if (rk == "resource") return Str(rv, rvp, &ref->resource);
                             if (rk == "name") return Str(rv, rvp, &ref->name);
                             if (rk == "uid") return Str(rv, rvp, &ref->uid);
                             return absl::OkStatus();
                           });
                     });
      }
      if (sk == "devices") return Items(sv, svp, &out->devices, DeviceStatusOf);
      return absl::OkStatus();
    });
  });
}

absl::Status ResourceClaimTemplateAt(element e, const Path& p, ResourceClaimTemplate* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "spec") return ClaimSpec(sv, svp, &out->spec);
      if (sk != "metadata") return absl::OkStatus();
      return Fields(sv, svp, [&](std::string_view mk, element mv, const Path& mvp) -> absl::Status {
        if (mk == "labels") return StrMapOf(mv, mvp, &out->claim_labels);
        if (mk == "annotations") return StrMapOf(mv, mvp, &out->claim_annotations);
        return absl::OkStatus();
      });
    });
  });
}

}  // namespace
}  // namespace decoding

using decoding::element;
using decoding::Path;

absl::Status DecodeDeviceClass(element e, DeviceClass* out) {
  return decoding::DeviceClassAt(e, Path(), out);
}
absl::Status DecodeDeviceTaintRule(element e, DeviceTaintRule* out) {
  return decoding::DeviceTaintRuleAt(e, Path(), out);
}
absl::Status DecodeResourceSlice(element e, ResourceSlice* out) {
  return decoding::ResourceSliceAt(e, Path(), out);
}
absl::Status DecodeResourceClaim(element e, ResourceClaim* out) {
  return decoding::ResourceClaimAt(e, Path(), out);
}
absl::Status DecodeResourceClaimTemplate(element e, ResourceClaimTemplate* out) {
  return decoding::ResourceClaimTemplateAt(e, Path(), out);
}

}  // namespace ksched::api
