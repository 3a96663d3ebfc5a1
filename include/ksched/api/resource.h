// The resource.k8s.io/v1 objects of dynamic resource allocation (ResourceSlice, DeviceClass,
// ResourceClaim, ResourceClaimTemplate), part of the object model of ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksched/api/meta.h"
#include "ksched/api/quantity.h"

namespace ksched::api {

// --- Dynamic resource allocation (resource.k8s.io/v1) ----------------------------------------
// What the DynamicResources plugin reads. A field ksched does not model (a feature it does not
// implement yet) is named in the object's `unsupported`, so that a pod that needs the object stays
// pending and says why, rather than being placed as if the field were absent.

// An attribute of a device: exactly one value is set (the list forms, DRAListTypeAttributes, are
// alpha and off in 1.36: unsupported).
struct DeviceAttribute {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;  // semver, "1.2.3"
};

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, NoExecute or None.
};

struct DeviceToleration {
  std::string key;
  std::string op = "Equal";  // Equal or Exists.
  std::string value;
  std::string effect;  // "" tolerates every effect.
  std::optional<int64_t> toleration_seconds;
  bool operator==(const DeviceToleration&) const = default;
};

// Partitionable devices: a named set of counters of a pool (a GPU's memory and its slices), which
// the pool's devices consume while they are allocated.
struct CounterSet {
  std::string name;
  std::map<std::string, Quantity> counters;  // By name: counters.<name>.value.
};

// What one device consumes of one counter set of its pool while it is allocated.
struct DeviceCounterConsumption {
  std::string counter_set;
  std::map<std::string, Quantity> counters;  // By name: counters.<name>.value.
};

// Consumable capacity: how each allocation of a device that allows several consumes one of its
// capacities (capacity.<name>.requestPolicy). At most one of the two forms is set.
struct CapacityRequestRange {
  std::optional<Quantity> min, max, step;
  bool operator==(const CapacityRequestRange&) const = default;
};
struct CapacityRequestPolicy {
  std::optional<Quantity> default_value;  // default: what a request that names none consumes.
  std::vector<Quantity> valid_values;     // Ascending: a request takes the first at least as big.
  std::optional<CapacityRequestRange> valid_range;
  bool operator==(const CapacityRequestPolicy&) const = default;
};

// One device of a ResourceSlice.
struct Device {
  std::string name;
  std::map<std::string, DeviceAttribute> attributes;  // By qualified name.
  std::map<std::string, Quantity> capacity;           // By qualified name: capacity.<name>.value.
  // Consumable capacity: the device goes to several allocations at once, each consuming some of
  // its capacities, as `request_policies` (by capacity name) say.
  std::optional<bool> allow_multiple_allocations;
  std::map<std::string, CapacityRequestPolicy> request_policies;
  // Where the slice has perDeviceNodeSelection: the node(s) this device is on.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::vector<DeviceCounterConsumption> consumes_counters;  // At most one per counter set.
  // Binding conditions: a pod using the device binds once a controller has set every condition of
  // `binding_conditions` True in the claim's status.devices, and goes back to the queue if one of
  // `binding_failure_conditions` is True; with `binds_to_node`, the allocation is for the node the
  // pod goes to alone.
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::vector<std::string> unsupported;  // Field paths, from the device.
};

struct ResourceSlice {
  ObjectMeta metadata;
  std::string driver;
  std::string pool;              // spec.pool.name
  int64_t pool_generation = 0;   // spec.pool.generation
  int64_t pool_slice_count = 0;  // spec.pool.resourceSliceCount
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::vector<Device> devices;
  std::vector<CounterSet> shared_counters;  // A slice has these or devices, not both.
  std::vector<std::string> unsupported;     // Field paths, from spec.
};

// A device class's or a request's opaque configuration for the driver, kept as it came.
struct DeviceConfiguration {
  std::vector<std::string> requests;  // A claim's: the requests it applies to (none: all).
  std::string driver;                 // opaque.driver
  std::string parameters;             // opaque.parameters, as minified JSON.
  bool operator==(const DeviceConfiguration&) const = default;
};

struct DeviceClass {
  ObjectMeta metadata;
  std::vector<std::string> selectors;  // spec.selectors[].cel.expression
  std::vector<DeviceConfiguration> config;
  std::optional<std::string> extended_resource_name;
  std::vector<std::string> unsupported;
};

// A DeviceTaintRule: its taint goes to every device its selector picks (an unset field picks
// any; no selector picks none), after the slice's own taints, when DRADeviceTaintRules is on.
struct DeviceTaintSelector {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
};

struct DeviceTaintRule {
  ObjectMeta metadata;
  std::optional<DeviceTaintSelector> device_selector;  // spec.deviceSelector
  DeviceTaint taint;                                   // spec.taint
};

// A request for devices of one class (ExactDeviceRequest), or one alternative of a
// firstAvailable list (DeviceSubRequest, with its name).
struct DeviceSubRequest {
  std::string name;  // A firstAvailable alternative's; "" for `exactly`.
  std::string device_class_name;
  std::vector<std::string> selectors;          // selectors[].cel.expression
  std::string allocation_mode = "ExactCount";  // ExactCount or All.
  int64_t count = 1;  // ExactCount's, defaulted as the API server does; 0 with All.
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  ResourceList capacity_requests;  // capacity.requests, by capacity name.
  bool operator==(const DeviceSubRequest&) const = default;
};

struct DeviceRequest {
  std::string name;
  std::optional<DeviceSubRequest> exactly;
  std::vector<DeviceSubRequest> first_available;
  bool operator==(const DeviceRequest&) const = default;
};

struct DeviceConstraint {
  std::vector<std::string> requests;  // None: every request.
  std::optional<std::string> match_attribute;
  std::optional<std::string> distinct_attribute;  // Consumable capacity: no two share a value.
  bool operator==(const DeviceConstraint&) const = default;
};

struct ResourceClaimSpec {
  std::vector<DeviceRequest> requests;  // spec.devices.requests
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceConfiguration> config;
  bool operator==(const ResourceClaimSpec&) const = default;
};

struct DeviceRequestAllocationResult {
  std::string request;  // "<request>" or "<request>/<firstAvailable alternative>"
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  // Consumable capacity: one share of a device that allows multiple allocations (a UUID), and
  // what it consumes of each of the device's capacities.
  std::optional<std::string> share_id;
  ResourceList consumed_capacity;
  // The device's binding conditions, copied when it was allocated.
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
};

// status.allocation.devices.config: a class's (source FromClass) or the claim's (FromClaim).
struct DeviceAllocationConfiguration {
  std::string source;
  DeviceConfiguration configuration;
};

struct AllocationResult {
  std::vector<DeviceRequestAllocationResult> results;  // devices.results
  std::vector<DeviceAllocationConfiguration> config;   // devices.config
  std::optional<NodeSelector> node_selector;           // The nodes that can use the devices.
  std::string allocation_timestamp;                    // RFC 3339
};

struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource;  // "pods"
  std::string name;
  std::string uid;
};

// The finalizer the scheduler gives a claim it allocates, which the resourceclaim controller
// removes once the claim is deallocated.
inline constexpr char kResourceClaimFinalizer[] = "resource.kubernetes.io/delete-protection";

// A condition a driver's controller set on an allocated device (metav1.Condition).
struct Condition {
  std::string type;
  std::string status;  // True, False or Unknown.
  std::string reason;
  std::string message;
  std::string last_transition_time;  // RFC 3339.
  bool operator==(const Condition&) const = default;
};

// What the drivers say of an allocated device (status.devices[]): the conditions binding waits
// for. Its data and networkData are not read.
struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;
  bool operator==(const AllocatedDeviceStatus&) const = default;
};

struct ResourceClaim {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  std::optional<AllocationResult> allocation;                // status.allocation
  std::vector<ResourceClaimConsumerReference> reserved_for;  // status.reservedFor
  std::vector<AllocatedDeviceStatus> devices;                // status.devices
  std::vector<std::string> unsupported;  // Field paths, from status: "allocation.devices..."
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  StringMap claim_labels;       // spec.metadata.labels
  StringMap claim_annotations;  // spec.metadata.annotations
  ResourceClaimSpec spec;       // spec.spec
};

}  // namespace ksched::api
