/* ksched/stable.h: the plugin ABI that lasts. A plugin library written against this header (in C,
 * or in any language that calls C) loads into every later ksched, with no rebuild, as an
 * extension built for Python's stable ABI loads into every later Python 3.
 *
 *   // team_gate.c, built with: cc -shared -fPIC -I include team_gate.c -o libteam_gate.so
 *   #include "ksched/stable.h"
 *   static const ksched_host* host;
 *   static int32_t Filter(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
 *                         const ksched_node_info* node, ksched_status* status) { ... }
 *   static const ksched_plugin* Make(const ksched_host* h, ksched_handle* handle,
 *                                    const ksched_args* args, ksched_status* error) {
 *     static ksched_plugin plugin = {.size = sizeof(ksched_plugin), .filter = Filter};
 *     host = h;
 *     return &plugin;
 *   }
 *   KSCHED_STABLE_PLUGINS({"TeamGate", Make})
 *
 *   ksched simulate --plugin-library ./libteam_gate.so --config config.yaml cluster.yaml
 *
 * How it lasts (the policy is in include/ksched/README.md):
 * - The plugin sees ksched's objects only through opaque pointers, read with the functions of the
 *   host's table (ksched_host). A later ksched only appends functions to the table, and a library
 *   reads no function past the table's `size`. Nothing is ever removed or changed in meaning.
 * - The library describes each plugin with a ksched_plugin, whose `size` is the one the library
 *   was built with: ksched reads no member past it, so a later header may append extension
 *   points. A NULL member is an extension point the plugin does not serve.
 * - KSCHED_STABLE_ABI counts the generations. ksched loads a library that needs its own generation
 *   or an earlier one, and refuses, by name, one that needs a later generation.
 *
 * The calls come on the threads, in the order and with the lifetimes that ksched/plugin.h
 * describes for the C++ interfaces of the same names. Pointers passed to a function are valid
 * until it returns, unless said otherwise; a ksched_str is not NUL-terminated. No function here
 * may be called after ksched_plugin.destroy. */
#ifndef KSCHED_STABLE_H_
#define KSCHED_STABLE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The generation of this header. */
#define KSCHED_STABLE_ABI 2

/* The generation a library needs of the ksched that loads it: by default this header's. A library
 * that should also load into an older ksched defines it lower before it includes this header, and
 * calls what later generations added only where KSCHED_HOST_HAS says the table has it. */
#ifndef KSCHED_STABLE_ABI_NEEDED
#define KSCHED_STABLE_ABI_NEEDED KSCHED_STABLE_ABI
#endif

/* A string's bytes and length: not NUL-terminated. */
typedef struct ksched_str {
  const char* data;
  size_t size;
} ksched_str;

/* Status codes, kube-scheduler's in its order. Each extension point returns one; the reasons go
 * through ksched_host.status_add_reason. */
enum {
  KSCHED_SUCCESS = 0,
  KSCHED_ERROR = 1,
  KSCHED_UNSCHEDULABLE = 2,
  KSCHED_UNSCHEDULABLE_AND_UNRESOLVABLE = 3,
  KSCHED_WAIT = 4, /* permit only */
  KSCHED_SKIP = 5, /* pre_filter, pre_score and bind only */
  KSCHED_PENDING = 6
};

/* How long a value written to the cycle state is kept (ksched/cycle_state.h's StateScope). */
enum { KSCHED_SCOPE_POD = 0, KSCHED_SCOPE_SCHEDULING_CYCLE = 1 };

enum { KSCHED_MIN_NODE_SCORE = 0, KSCHED_MAX_NODE_SCORE = 100 };

/* Cluster event actions, as bits: upstream's fwk.ActionType. */
#define KSCHED_ACTION_ADD 0x1u
#define KSCHED_ACTION_DELETE 0x2u
#define KSCHED_ACTION_UPDATE_NODE_ALLOCATABLE 0x4u
#define KSCHED_ACTION_UPDATE_NODE_LABEL 0x8u
#define KSCHED_ACTION_UPDATE_NODE_TAINT 0x10u
#define KSCHED_ACTION_UPDATE_NODE_CONDITION 0x20u
#define KSCHED_ACTION_UPDATE_NODE_ANNOTATION 0x40u
#define KSCHED_ACTION_UPDATE_POD_LABEL 0x80u
#define KSCHED_ACTION_UPDATE_POD_SCALE_DOWN 0x100u
#define KSCHED_ACTION_UPDATE_POD_TOLERATION 0x200u
#define KSCHED_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED 0x400u
#define KSCHED_ACTION_UPDATE_POD_OTHER 0x800u
#define KSCHED_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM 0x1000u
#define KSCHED_ACTION_UPDATE 0x1ffcu
#define KSCHED_ACTION_ALL 0xffffffffu

/* Opaque handles: only the host reads what they point to. */
typedef struct ksched_meta ksched_meta; /* An object's metadata. */
typedef struct ksched_pod ksched_pod;
typedef struct ksched_node ksched_node;
typedef struct ksched_node_info ksched_node_info; /* A node and the pods on it. */
typedef struct ksched_queued_pod ksched_queued_pod;
typedef struct ksched_cycle_state ksched_cycle_state;
typedef struct ksched_handle ksched_handle; /* Valid as long as the plugin. */
typedef struct ksched_args ksched_args;     /* pluginConfig[].args: valid during make only. */
typedef struct ksched_status ksched_status; /* Where a plugin writes its reasons. */
typedef struct ksched_pre_filter_result ksched_pre_filter_result;
typedef struct ksched_node_statuses ksched_node_statuses; /* Each node's filter status. */
typedef struct ksched_post_filter_result ksched_post_filter_result;
typedef struct ksched_events ksched_events;
typedef struct ksched_event ksched_event; /* A cluster event: the objects before and after. */

/* A feasible node's score, for normalize_score. */
typedef struct ksched_node_score {
  const ksched_node_info* node;
  int64_t score;
} ksched_node_score;

/* Called for each label by ksched_host.meta_labels, with the `ctx` given to it. */
typedef void (*ksched_label_fn)(void* ctx, ksched_str key, ksched_str value);

/* What ksched gives plugins: one table, appended to by later generations. Functions returning
 * int return 1 for yes or found, 0 for no or not found. */
typedef struct ksched_host {
  uint32_t size; /* sizeof(ksched_host) in the running ksched: a function past it is not there. */
  uint32_t abi;  /* The running ksched's KSCHED_STABLE_ABI. */

  /* --- Generation 1 --- */
  /* Adds a reason to the status the plugin is returning ("node(s) didn't match ..."). */
  void (*status_add_reason)(ksched_status* status, ksched_str reason);

  /* Objects. Strings returned are valid as long as the object they came from. */
  const ksched_meta* (*pod_meta)(const ksched_pod* pod);
  const ksched_meta* (*node_meta)(const ksched_node* node);
  ksched_str (*meta_name)(const ksched_meta* meta);
  ksched_str (*meta_namespace)(const ksched_meta* meta);
  ksched_str (*meta_uid)(const ksched_meta* meta);
  int (*meta_label)(const ksched_meta* meta, ksched_str key, ksched_str* value);
  int (*meta_annotation)(const ksched_meta* meta, ksched_str key, ksched_str* value);
  /* Calls fn for each label, in key order. */
  void (*meta_labels)(const ksched_meta* meta, void* ctx, ksched_label_fn fn);
  ksched_str (*pod_node_name)(const ksched_pod* pod);
  ksched_str (*pod_scheduler_name)(const ksched_pod* pod);
  int32_t (*pod_priority)(const ksched_pod* pod);
  /* What the pod requests of a resource on its node, as NodeResourcesFit counts it: "cpu" in
   * milli-CPU, "memory" and "ephemeral-storage" in bytes, others in units. Computed at each call:
   * a plugin that needs it for every node reads it once, in pre_filter. */
  int64_t (*pod_request)(const ksched_pod* pod, ksched_str resource);
  int (*node_unschedulable)(const ksched_node* node);
  /* The node; NULL for a NodeInfo that holds only pods of a deleted node. */
  const ksched_node* (*node_info_node)(const ksched_node_info* node_info);
  ksched_str (*node_info_name)(const ksched_node_info* node_info);
  /* A resource the node offers, and the sum its pods request, in pod_request's units. */
  int64_t (*node_info_allocatable)(const ksched_node_info* node_info, ksched_str resource);
  int64_t (*node_info_requested)(const ksched_node_info* node_info, ksched_str resource);
  size_t (*node_info_pod_count)(const ksched_node_info* node_info);
  const ksched_pod* (*node_info_pod)(const ksched_node_info* node_info, size_t i);
  const ksched_pod* (*queued_pod_pod)(const ksched_queued_pod* queued);
  /* When the pod was last added to the queue, in nanoseconds since the Unix epoch. */
  int64_t (*queued_pod_timestamp)(const ksched_queued_pod* queued);

  /* The cycle state. `key` must be static (a string literal): it is kept as given. The state
   * owns `value` from then on, and frees it with `free_value` (NULL: not freed). `clone_value`
   * copies it for preemption's what-if evaluation; NULL means the value is not changed once
   * written, and copies share it. Returns 1. */
  int (*state_write)(ksched_cycle_state* state, ksched_str key, int32_t scope, void* value,
                     void* (*clone_value)(const void* value), void (*free_value)(void* value));
  /* The value written under `key`, or NULL. */
  void* (*state_read)(const ksched_cycle_state* state, ksched_str key);

  /* Results. pre_filter narrows the nodes to evaluate by adding each it keeps (none added: all
   * nodes; for none at all, it returns KSCHED_UNSCHEDULABLE_AND_UNRESOLVABLE). post_filter
   * nominates the node the pod should retry on. */
  void (*pre_filter_result_add_node)(ksched_pre_filter_result* result, ksched_str node);
  int32_t (*node_statuses_code)(const ksched_node_statuses* statuses, ksched_str node);
  void (*post_filter_result_nominate)(ksched_post_filter_result* result, ksched_str node);
  /* Registers a cluster event that may make a pod this plugin rejected schedulable: `resource`
   * is a kind ksched watches ("Node", "Pod", "AssignedPod", "PersistentVolumeClaim", ...) or "*"
   * for every event. Returns 0 for a resource ksched does not know; the plugin is then requeued
   * on every event. */
  int (*events_add)(ksched_events* events, ksched_str resource, uint32_t actions);

  /* The plugin's args, by top-level key. */
  int (*args_string)(const ksched_args* args, ksched_str key, ksched_str* value);
  int (*args_int)(const ksched_args* args, ksched_str key, int64_t* value);
  /* The args as written, as JSON. */
  ksched_str (*args_json)(const ksched_args* args);

  /* The handle. The snapshot's nodes are for the scheduling thread and its Filter and Score
   * workers; the rest may be called from any thread. */
  size_t (*handle_node_count)(const ksched_handle* handle);
  const ksched_node_info* (*handle_node)(const ksched_handle* handle, size_t i);
  const ksched_node_info* (*handle_node_by_name)(const ksched_handle* handle, ksched_str name);
  /* Allows or rejects a pod waiting at Permit, for `plugin`; 0 if no pod with that UID waits. */
  int (*handle_allow_waiting_pod)(ksched_handle* handle, ksched_str uid, ksched_str plugin);
  int (*handle_reject_waiting_pod)(ksched_handle* handle, ksched_str uid, ksched_str plugin,
                                   ksched_str message);
  /* Binds the pod to the node through ksched's API client, for a bind plugin. Returns a code,
   * with the reason in `status` when it failed. */
  int32_t (*handle_bind)(ksched_handle* handle, const ksched_pod* pod, ksched_str node,
                         ksched_status* status);
  /* Logs a message of `plugin` at verbosity `level` (printed when -v is at least it). */
  void (*log)(int32_t level, ksched_str plugin, ksched_str message);

  /* --- Generation 2 --- */
  /* When the object was created: RFC 3339, as the API server writes it ("" when unset). */
  ksched_str (*meta_creation_timestamp)(const ksched_meta* meta);
  /* The object's controller (its owner reference with controller: true): its kind and name. */
  int (*meta_controller)(const ksched_meta* meta, ksched_str* kind, ksched_str* name);
  /* The pod or node an event is about, before and after it; NULL where the event has none (an
   * add has no old object, a delete no new one, a node's event no pod). */
  const ksched_pod* (*event_old_pod)(const ksched_event* event);
  const ksched_pod* (*event_new_pod)(const ksched_event* event);
  const ksched_node* (*event_old_node)(const ksched_event* event);
  const ksched_node* (*event_new_node)(const ksched_event* event);
} ksched_host;

/* Whether the running ksched's table has the function `fn`. */
#define KSCHED_HOST_HAS(host, fn) \
  ((host)->size >= offsetof(ksched_host, fn) + sizeof((host)->fn))

/* One plugin, as the library describes it. Zero what the plugin does not serve. */
typedef struct ksched_plugin {
  uint32_t size; /* sizeof(ksched_plugin) in the library: members past it are not read. */
  void* self;    /* Passed to every function below. */
  /* Called once, when ksched no longer uses the plugin. */
  void (*destroy)(void* self);

  /* --- Generation 1: the extension points --- */
  int32_t (*events_to_register)(void* self, ksched_events* events);
  int32_t (*pre_enqueue)(void* self, const ksched_pod* pod, ksched_status* status);
  /* Queue sort: whether `a` goes before `b`, as a strict weak order (1 or 0). */
  int (*less)(void* self, const ksched_queued_pod* a, const ksched_queued_pod* b);
  int32_t (*pre_filter)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                        const ksched_node_info* const* nodes, size_t node_count,
                        ksched_pre_filter_result* result, ksched_status* status);
  int32_t (*filter)(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
                    const ksched_node_info* node, ksched_status* status);
  int32_t (*post_filter)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                         const ksched_node_statuses* filtered, ksched_post_filter_result* result,
                         ksched_status* status);
  int32_t (*pre_score)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                       const ksched_node_info* const* nodes, size_t node_count,
                       ksched_status* status);
  int32_t (*score)(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
                   const ksched_node_info* node, int64_t* score, ksched_status* status);
  /* Rescales every feasible node's score into [KSCHED_MIN_NODE_SCORE, KSCHED_MAX_NODE_SCORE]. */
  int32_t (*normalize_score)(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
                             ksched_node_score* scores, size_t count, ksched_status* status);
  int32_t (*reserve)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                     ksched_str node, ksched_status* status);
  void (*unreserve)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                    ksched_str node);
  /* KSCHED_WAIT holds the pod for up to *timeout_ms. */
  int32_t (*permit)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                    ksched_str node, int64_t* timeout_ms, ksched_status* status);
  int32_t (*pre_bind)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                      ksched_str node, ksched_status* status);
  int32_t (*bind)(void* self, ksched_cycle_state* state, const ksched_pod* pod, ksched_str node,
                  ksched_status* status);
  void (*post_bind)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                    ksched_str node);

  /* --- Generation 2 --- */
  /* Whether pre_bind has work for this pod: KSCHED_SKIP says it has none, and pre_bind is not
   * called for it (ksched/plugin.h's PreBindPreFlight). NULL: it always has. */
  int32_t (*pre_bind_pre_flight)(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                                 ksched_str node, ksched_status* status);
  /* The queueing hint of the events events_to_register added: whether `event`, of the one added
   * `index`-th (from 0), may make `pod`, which this plugin rejected, schedulable: 1 queues it, 0
   * leaves it waiting. It runs where events arrive and must not block. NULL: every registered
   * event queues the pod. */
  int (*queueing_hint)(void* self, size_t index, const ksched_pod* pod,
                       const ksched_event* event);
} ksched_plugin;

/* A plugin the library offers: its name, and the function that makes one for each profile that
 * enables it. `make` returns NULL, with the reason in `error`, when it cannot (bad args); the
 * plugin it returns stays valid until its destroy. */
typedef struct ksched_plugin_factory {
  const char* name;
  const ksched_plugin* (*make)(const ksched_host* host, ksched_handle* handle,
                               const ksched_args* args, ksched_status* error);
} ksched_plugin_factory;

/* What the entry point returns. */
typedef struct ksched_stable_library {
  uint32_t size; /* sizeof(ksched_stable_library) in the library. */
  uint32_t abi;  /* The generation it needs (KSCHED_STABLE_ABI_NEEDED): ksched refuses a later one. */
  const ksched_plugin_factory* plugins;
  size_t plugin_count;
} ksched_stable_library;

/* The entry point ksched looks up; its name never changes. */
#define KSCHED_STABLE_ENTRY_POINT "ksched_stable_plugins"
const ksched_stable_library* ksched_stable_plugins(void);

/* Defines the entry point over the plugins listed: KSCHED_STABLE_PLUGINS({"A", MakeA}, ...). */
#define KSCHED_STABLE_PLUGINS(...)                                                        \
  __attribute__((visibility("default"))) const ksched_stable_library* ksched_stable_plugins( \
      void) {                                                                             \
    static const ksched_plugin_factory plugins[] = {__VA_ARGS__};                        \
    static const ksched_stable_library library = {                                       \
        sizeof(ksched_stable_library), KSCHED_STABLE_ABI_NEEDED, plugins,                \
        sizeof(plugins) / sizeof(plugins[0])};                                           \
    return &library;                                                                      \
  }

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KSCHED_STABLE_H_ */
