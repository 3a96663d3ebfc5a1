/* A plugin library on the stable ABI (include/ksched/stable.h), in C: it loads into this ksched and
 * every later one with no rebuild.
 *
 * TeamGate keeps a pod labelled `<label>: X` on nodes labelled `<label>: X` (the args' "label",
 * "team" by default) and, among those, prefers the node with the most CPU free after the pod:
 *
 *   cc -shared -fPIC -I include examples/stable-plugin/team_gate.c -o libteam_gate.so
 *   ksched simulate --plugin-library ./libteam_gate.so --config examples/stable-plugin/config.yaml \
 *       examples/stable-plugin/cluster.yaml
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksched/stable.h"

static const ksched_host* host;

typedef struct team_gate {
  ksched_plugin plugin; /* What ksched calls: its self is this team_gate. */
  char label[64];       /* The label key both pods and nodes carry. */
  size_t label_size;
} team_gate;

/* What pre_filter keeps for filter and score: the pod's team and CPU request. */
typedef struct pod_team {
  ksched_str team; /* Valid while the pod is scheduled: the pod outlives its cycle state. */
  int64_t milli_cpu;
} pod_team;

static const ksched_str kStateKey = {"TeamGate/pod", 12};

static ksched_str Str(const char* s) {
  ksched_str out = {s, strlen(s)};
  return out;
}

static int Equal(ksched_str a, ksched_str b) {
  return a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
}

/* Skips pods without a team: then neither filter nor score runs for them. */
static int32_t PreFilter(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                         const ksched_node_info* const* nodes, size_t node_count,
                         ksched_pre_filter_result* result, ksched_status* status) {
  const team_gate* gate = self;
  ksched_str key = {gate->label, gate->label_size}, team;
  (void)nodes, (void)node_count, (void)result, (void)status;
  if (!host->meta_label(host->pod_meta(pod), key, &team)) return KSCHED_SKIP;
  pod_team* t = malloc(sizeof(pod_team));
  t->team = team;
  t->milli_cpu = host->pod_request(pod, Str("cpu"));
  host->state_write(state, kStateKey, KSCHED_SCOPE_SCHEDULING_CYCLE, t, NULL, free);
  return KSCHED_SUCCESS;
}

static int32_t Filter(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
                      const ksched_node_info* node, ksched_status* status) {
  const team_gate* gate = self;
  const pod_team* t = host->state_read(state, kStateKey);
  const ksched_node* n = host->node_info_node(node);
  ksched_str key = {gate->label, gate->label_size}, on_node;
  char reason[128];
  (void)pod;
  if (n != NULL && host->meta_label(host->node_meta(n), key, &on_node) && Equal(on_node, t->team)) {
    return KSCHED_SUCCESS;
  }
  snprintf(reason, sizeof(reason), "node(s) didn't belong to team %.*s", (int)t->team.size,
           t->team.data);
  host->status_add_reason(status, Str(reason));
  return KSCHED_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

/* The CPU left on the node after the pod, in milli-CPU; normalize_score makes it 0-100. A pod
 * without a team (pre_filter skipped it) is scored too. */
static int32_t Score(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
                     const ksched_node_info* node, int64_t* score, ksched_status* status) {
  const pod_team* t = host->state_read(state, kStateKey);
  ksched_str cpu = Str("cpu");
  (void)self, (void)status;
  *score = host->node_info_allocatable(node, cpu) - host->node_info_requested(node, cpu) -
           (t != NULL ? t->milli_cpu : host->pod_request(pod, cpu));
  return KSCHED_SUCCESS;
}

static int32_t NormalizeScore(void* self, const ksched_cycle_state* state, const ksched_pod* pod,
                              ksched_node_score* scores, size_t count, ksched_status* status) {
  int64_t max = 0;
  (void)self, (void)state, (void)pod, (void)status;
  for (size_t i = 0; i < count; ++i) max = scores[i].score > max ? scores[i].score : max;
  for (size_t i = 0; i < count; ++i) {
    scores[i].score = max <= 0 || scores[i].score <= 0
                          ? KSCHED_MIN_NODE_SCORE
                          : scores[i].score * KSCHED_MAX_NODE_SCORE / max;
  }
  return KSCHED_SUCCESS;
}

/* A node added or relabelled may be of the team. */
static int32_t EventsToRegister(void* self, ksched_events* events) {
  (void)self;
  host->events_add(events, Str("Node"), KSCHED_ACTION_ADD | KSCHED_ACTION_UPDATE_NODE_LABEL);
  return KSCHED_SUCCESS;
}

/* Of those events, only a node that now carries the pod's team can help it. */
static int QueueingHint(void* self, size_t index, const ksched_pod* pod,
                        const ksched_event* event) {
  const team_gate* gate = self;
  ksched_str key = {gate->label, gate->label_size}, team, on_node;
  const ksched_node* n = host->event_new_node(event);
  (void)index;
  return n != NULL && host->meta_label(host->pod_meta(pod), key, &team) &&
         host->meta_label(host->node_meta(n), key, &on_node) && Equal(team, on_node);
}

static void Destroy(void* self) { free(self); }

static const ksched_plugin* Make(const ksched_host* h, ksched_handle* handle,
                                 const ksched_args* args, ksched_status* error) {
  ksched_str label = Str("team");
  (void)handle;
  host = h;
  host->args_string(args, Str("label"), &label);
  if (label.size == 0 || label.size >= sizeof(((team_gate*)0)->label)) {
    host->status_add_reason(error, Str("args.label: must be 1 to 63 characters"));
    return NULL;
  }
  team_gate* gate = calloc(1, sizeof(team_gate));
  memcpy(gate->label, label.data, label.size);
  gate->label_size = label.size;
  ksched_plugin* p = &gate->plugin;
  p->size = sizeof(ksched_plugin);
  p->self = gate;
  p->destroy = Destroy;
  p->events_to_register = EventsToRegister;
  p->pre_filter = PreFilter;
  p->filter = Filter;
  p->score = Score;
  p->normalize_score = NormalizeScore;
  p->queueing_hint = QueueingHint;
  return p;
}

KSCHED_STABLE_PLUGINS({"TeamGate", Make})
