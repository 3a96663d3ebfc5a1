// Three ways a plugin library could see a Filter call, for choosing the plugin ABI (issue: a
// plugin ABI that lasts). Each gives the plugin the same facts: a label of the pod and of the
// node, and the node's allocatable and requested CPU. `make bench-abi` measures each per call.
//
// - Today's C++ ABI: the plugin is a ksched::FilterPlugin reading api::Pod and NodeInfo directly
//   (their layout is the ABI: any new field breaks every built plugin).
// - Opaque handles: the plugin gets pointers it cannot read, and a table of accessor functions
//   (ksched_host_v1); the table only grows (size first), as SQLite's sqlite3_api_routines.
// - Append-only views: the host keeps a C struct per node and pod (size first, new fields only at
//   the end), built when the object changes, which the plugin reads directly.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// --- Opaque handles -----------------------------------------------------------------------------
struct ksched_object;  // A pod or a node: only the host reads it.
struct ksched_host_v1 {
  uint32_t size;  // sizeof(ksched_host_v1) of the host: what a newer host appends is past it.
  // The value of label `key` (its bytes and length), or false.
  bool (*label)(const ksched_object* obj, const char* key, size_t key_len, const char** value,
                size_t* value_len);
  int64_t (*allocatable_milli_cpu)(const ksched_object* node);
  int64_t (*requested_milli_cpu)(const ksched_object* node);
};
// 0: fits; 1: unschedulable (the reason is a static string the plugin owns).
typedef int (*ksched_filter_handles_fn)(const ksched_host_v1* host, const ksched_object* pod,
                                        const ksched_object* node, const char** reason);

// --- Append-only views --------------------------------------------------------------------------
struct ksched_kv {
  const char* key;
  uint32_t key_len;
  const char* value;
  uint32_t value_len;
};
struct ksched_object_view_v1 {
  uint32_t size;            // sizeof of the host's view: fields past the plugin's are not read.
  const ksched_kv* labels;  // Sorted by key.
  uint32_t label_count;
  int64_t allocatable_milli_cpu;  // Nodes only.
  int64_t requested_milli_cpu;
};
typedef int (*ksched_filter_views_fn)(const ksched_object_view_v1* pod,
                                      const ksched_object_view_v1* node, const char** reason);

}  // extern "C"
