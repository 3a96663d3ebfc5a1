// The stable ABI's host side: a plugin described in C (here, in the test) is a Plugin of the
// framework, serving only the extension points it fills in, with its codes, reasons, state and
// args carried across; and a library of a later generation, or of an earlier and smaller one, is
// refused or read only as far as it goes.
#include "src/sdk/stable.h"

#include <gtest/gtest.h>

#include <cstring>

#include "ksched/plugin.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::stable {
namespace {

using ::ksched::testing::FakeHandle;
using ::ksched::testing::MakeNode;
using ::ksched::testing::MakePod;

const ksched_host* host = &Host();

ksched_str S(const char* s) { return {s, std::strlen(s)}; }
std::string_view V(ksched_str s) { return {s.data, s.size}; }

// A library of one plugin, "Gate", made by `make`.
absl::StatusOr<std::unique_ptr<Plugin>> MakeOne(
    const ksched_plugin* (*make)(const ksched_host*, ksched_handle*, const ksched_args*,
                                 ksched_status*),
    Handle& handle, nlohmann::json args = nlohmann::json::object(),
    uint32_t abi = KSCHED_STABLE_ABI) {
  static ksched_plugin_factory factory;
  factory = {"Gate", make};
  const ksched_stable_library library = {sizeof(ksched_stable_library), abi, &factory, 1};
  Registry registry;
  if (absl::Status st = RegisterLibrary(library, registry); !st.ok()) return st;
  return registry.Find("Gate")->factory(JsonArgs(std::move(args)), handle);
}

// Filter: a pod fits a node whose label "team" equals the pod's.
int32_t TeamFilter(void*, const ksched_cycle_state*, const ksched_pod* pod,
                   const ksched_node_info* node, ksched_status* status) {
  ksched_str want, have;
  if (!host->meta_label(host->pod_meta(pod), S("team"), &want)) return KSCHED_SUCCESS;
  const ksched_node* n = host->node_info_node(node);
  if (n != nullptr && host->meta_label(host->node_meta(n), S("team"), &have) &&
      V(have) == V(want)) {
    return KSCHED_SUCCESS;
  }
  host->status_add_reason(status, S("node(s) didn't belong to the team"));
  host->status_add_reason(status, S("second reason"));
  return KSCHED_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

const ksched_plugin* MakeFilterOnly(const ksched_host*, ksched_handle*, const ksched_args*,
                                    ksched_status*) {
  static ksched_plugin p = {.size = sizeof(ksched_plugin), .filter = TeamFilter};
  return &p;
}

TEST(StableTest, APluginServesTheExtensionPointsItFillsInAndItsStatusesCarryItsReasons) {
  FakeHandle h({MakeNode().Name("blue").Label("team", "blue").Obj()});
  auto plugin = MakeOne(MakeFilterOnly, h);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  Plugin* p = plugin->get();
  EXPECT_EQ(p->Name(), "Gate");
  ASSERT_NE(PluginAs<FilterPlugin>(p), nullptr);
  EXPECT_EQ(PluginAs<ScorePlugin>(p), nullptr);
  EXPECT_EQ(PluginAs<PreFilterPlugin>(p), nullptr);
  EXPECT_EQ(PluginAs<ReservePlugin>(p), nullptr);
  EXPECT_EQ(PluginAs<EnqueueExtensions>(p), nullptr);

  CycleState state;
  const NodeInfo& blue = *h.snapshot().Get("blue");
  EXPECT_TRUE(PluginAs<FilterPlugin>(p)
                  ->Filter(state, MakePod().Name("a").Label("team", "blue").Obj(), blue)
                  .ok());
  Status st = PluginAs<FilterPlugin>(p)->Filter(
      state, MakePod().Name("b").Label("team", "red").Obj(), blue);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "node(s) didn't belong to the team, second reason");
}

int32_t BadCode(void*, const ksched_cycle_state*, const ksched_pod*, const ksched_node_info*,
                ksched_status*) {
  return 42;
}

TEST(StableTest, ACodeThatIsNoStatusCodeIsAnError) {
  FakeHandle h({MakeNode().Name("n").Obj()});
  auto plugin = MakeOne(
      [](const ksched_host*, ksched_handle*, const ksched_args*, ksched_status*) {
        static ksched_plugin p = {.size = sizeof(ksched_plugin), .filter = BadCode};
        return static_cast<const ksched_plugin*>(&p);
      },
      h);
  ASSERT_TRUE(plugin.ok());
  CycleState state;
  Status st = PluginAs<FilterPlugin>(plugin->get())
                  ->Filter(state, MakePod().Name("a").Obj(), *h.snapshot().Get("n"));
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "stable plugin \"Gate\": filter returned 42, which is no status code");
}

// PreFilter keeps the nodes of the args' "keep" and writes the pod's CPU request to the state;
// Score reads it back. The state's copies are the plugin's (clone), freed by the plugin's free.
int clones = 0, frees = 0;
void* CloneInt(const void* v) {
  ++clones;
  return new int64_t(*static_cast<const int64_t*>(v));
}
void FreeInt(void* v) {
  ++frees;
  delete static_cast<int64_t*>(v);
}

struct Keeper {
  std::string keep;
  int64_t weight = 0;
};

int32_t KeepPreFilter(void* self, ksched_cycle_state* state, const ksched_pod* pod,
                      const ksched_node_info* const* nodes, size_t count,
                      ksched_pre_filter_result* result, ksched_status*) {
  for (size_t i = 0; i < count; ++i) {
    if (V(host->node_info_name(nodes[i])) == static_cast<Keeper*>(self)->keep) {
      host->pre_filter_result_add_node(result, host->node_info_name(nodes[i]));
    }
  }
  host->state_write(state, S("Gate/cpu"), KSCHED_SCOPE_POD,
                    new int64_t(host->pod_request(pod, S("cpu"))), CloneInt, FreeInt);
  return KSCHED_SUCCESS;
}

int32_t StateScore(void* self, const ksched_cycle_state* state, const ksched_pod*,
                   const ksched_node_info*, int64_t* score, ksched_status*) {
  *score = *static_cast<int64_t*>(host->state_read(state, S("Gate/cpu"))) *
           static_cast<Keeper*>(self)->weight;
  return KSCHED_SUCCESS;
}

const ksched_plugin* MakeKeeper(const ksched_host* h, ksched_handle*, const ksched_args* args,
                                ksched_status* error) {
  ksched_str keep;
  int64_t weight = 0;
  if (!h->args_string(args, S("keep"), &keep) || !h->args_int(args, S("weight"), &weight)) {
    h->status_add_reason(error, S("args.keep and args.weight are required"));
    return nullptr;
  }
  static Keeper keeper;
  keeper = {std::string(V(keep)), weight};
  static ksched_plugin p;
  p = {.size = sizeof(ksched_plugin),
       .self = &keeper,
       .pre_filter = KeepPreFilter,
       .score = StateScore};
  return &p;
}

TEST(StableTest, PreFilterNarrowsTheNodesAndTheStateAndArgsCrossTheBoundary) {
  FakeHandle h({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  EXPECT_EQ(MakeOne(MakeKeeper, h, {{"keep", "n2"}}).status().message(),
            "args.keep and args.weight are required");
  auto plugin = MakeOne(MakeKeeper, h, {{"keep", "n2"}, {"weight", 3}});
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  clones = frees = 0;
  {
    CycleState state;
    PreFilterResult result;
    const api::Pod pod = MakePod().Name("a").Req("cpu", "250m").Obj();
    ASSERT_TRUE(PluginAs<PreFilterPlugin>(plugin->get())
                    ->PreFilter(state, pod, h.snapshot().nodes(), &result)
                    .ok());
    EXPECT_EQ(result.node_names, (std::set<std::string, std::less<>>{"n2"}));
    std::unique_ptr<CycleState> copy = state.Clone();
    EXPECT_EQ(clones, 1);
    int64_t score = 0;
    ASSERT_TRUE(PluginAs<ScorePlugin>(plugin->get())
                    ->Score(*copy, pod, *h.snapshot().Get("n1"), &score)
                    .ok());
    EXPECT_EQ(score, 750);
  }
  EXPECT_EQ(frees, 2);  // The value and its copy.
}

TEST(StableTest, ALibraryOfALaterGenerationIsRefused) {
  FakeHandle h;
  EXPECT_EQ(MakeOne(MakeFilterOnly, h, {}, KSCHED_STABLE_ABI + 1).status().message(),
            "built for ksched's stable plugin ABI " + std::to_string(KSCHED_STABLE_ABI + 1) +
                ", but this ksched has ABI " + std::to_string(KSCHED_STABLE_ABI) +
                ": load it into a ksched of ABI " + std::to_string(KSCHED_STABLE_ABI + 1) +
                " or later");
}

// An earlier generation's ksched_plugin ends before members this ksched knows: they are not read,
// whatever lies past the library's size.
int32_t NeverCalled(void*, ksched_cycle_state*, const ksched_pod*, ksched_str, ksched_status*) {
  ADD_FAILURE() << "a member past the plugin's size was read";
  return KSCHED_ERROR;
}

TEST(StableTest, MembersPastAPluginsSizeAreNotRead) {
  FakeHandle h({MakeNode().Name("n").Obj()});
  auto plugin = MakeOne(
      [](const ksched_host*, ksched_handle*, const ksched_args*, ksched_status*) {
        static ksched_plugin p = {
            .filter = TeamFilter, .reserve = NeverCalled, .bind = NeverCalled};
        p.size = offsetof(ksched_plugin, post_filter);  // Ends after filter.
        return static_cast<const ksched_plugin*>(&p);
      },
      h);
  ASSERT_TRUE(plugin.ok());
  EXPECT_NE(PluginAs<FilterPlugin>(plugin->get()), nullptr);
  EXPECT_EQ(PluginAs<ReservePlugin>(plugin->get()), nullptr);
  EXPECT_EQ(PluginAs<BindPlugin>(plugin->get()), nullptr);
}

int32_t WaitTenSeconds(void*, ksched_cycle_state*, const ksched_pod*, ksched_str node,
                       int64_t* timeout_ms, ksched_status* status) {
  host->status_add_reason(status, node);
  *timeout_ms = 10'000;
  return KSCHED_WAIT;
}

int32_t Halve(void*, const ksched_cycle_state*, const ksched_pod*, ksched_node_score* scores,
              size_t count, ksched_status*) {
  for (size_t i = 0; i < count; ++i) scores[i].score /= 2;
  return KSCHED_SUCCESS;
}

int32_t NodeEvents(void*, ksched_events* events) {
  EXPECT_EQ(host->events_add(events, S("Node"), KSCHED_ACTION_ADD), 1);
  EXPECT_EQ(host->events_add(events, S("Gadget"), KSCHED_ACTION_ADD), 0);
  EXPECT_EQ(host->events_add(events, S("Node"), KSCHED_ACTION_UPDATE), 1);
  return KSCHED_SUCCESS;
}

TEST(StableTest, PermitWaitsNormalizeRescalesAndEventsNameTheirResources) {
  FakeHandle h({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  auto plugin = MakeOne(
      [](const ksched_host*, ksched_handle*, const ksched_args*, ksched_status*) {
        static ksched_plugin p = {.size = sizeof(ksched_plugin),
                                  .events_to_register = NodeEvents,
                                  .score = StateScore,
                                  .normalize_score = Halve,
                                  .permit = WaitTenSeconds};
        return static_cast<const ksched_plugin*>(&p);
      },
      h);
  ASSERT_TRUE(plugin.ok());
  CycleState state;
  const api::Pod pod = MakePod().Name("a").Obj();
  absl::Duration timeout;
  Status st = PluginAs<PermitPlugin>(plugin->get())->Permit(state, pod, "n1", &timeout);
  EXPECT_EQ(st.code(), Code::kWait);
  EXPECT_EQ(st.Message(), "n1");
  EXPECT_EQ(timeout, absl::Seconds(10));

  NodeScoreList scores = {{h.snapshot().Get("n1"), 80}, {h.snapshot().Get("n2"), 31}};
  ASSERT_TRUE(PluginAs<ScoreExtensions>(plugin->get())->NormalizeScore(state, pod, scores).ok());
  EXPECT_EQ(scores[0].score, 40);
  EXPECT_EQ(scores[1].score, 15);
  EXPECT_EQ(scores[1].node, h.snapshot().Get("n2"));

  std::vector<ClusterEventWithHint> events =
      PluginAs<EnqueueExtensions>(plugin->get())->EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.resource, EventResource::kNode);
  EXPECT_EQ(events[0].event.action, uint32_t{kAdd});
  // A resource ksched does not know requeues the plugin's pods on every event.
  EXPECT_EQ(events[1].event.resource, EventResource::kWildCard);
  EXPECT_EQ(events[1].event.action, uint32_t{kAll});
  // Every update the plugin's generation knew is every update, a later one's too.
  EXPECT_EQ(events[2].event.action, uint32_t{kUpdate});
  EXPECT_TRUE(Matches(events[2].event, {EventResource::kNode, kUpdateNodeDeclaredFeature}));
}

// Generation 2: the table's new functions, and the plugin's new member.
int32_t SkipWithoutController(void*, ksched_cycle_state*, const ksched_pod* pod, ksched_str,
                              ksched_status*) {
  ksched_str kind, name;
  if (!host->meta_controller(host->pod_meta(pod), &kind, &name)) return KSCHED_SKIP;
  return V(kind) == "ReplicaSet" && V(name) == "web-1" ? KSCHED_SUCCESS : KSCHED_ERROR;
}

int32_t NoPreBind(void*, ksched_cycle_state*, const ksched_pod*, ksched_str, ksched_status*) {
  return KSCHED_SUCCESS;
}

TEST(StableTest, GenerationTwoReadsAControllerAndSkipsPreBindWithoutWork) {
  ASSERT_TRUE(KSCHED_HOST_HAS(host, meta_controller));
  FakeHandle h;
  auto plugin = MakeOne(
      [](const ksched_host*, ksched_handle*, const ksched_args*, ksched_status*) {
        static ksched_plugin p = {.size = sizeof(ksched_plugin),
                                  .pre_bind = NoPreBind,
                                  .pre_bind_pre_flight = SkipWithoutController};
        return static_cast<const ksched_plugin*>(&p);
      },
      h);
  ASSERT_TRUE(plugin.ok());
  auto* pre_bind = PluginAs<PreBindPlugin>(plugin->get());
  ASSERT_NE(pre_bind, nullptr);
  CycleState state;
  api::Pod owned = MakePod().Name("a").Obj();
  owned.metadata.owner_references = {
      {.api_version = "apps/v1", .kind = "ReplicaSet", .name = "web-1", .controller = true}};
  owned.metadata.creation_timestamp = "2026-12-05T10:00:00Z";
  EXPECT_TRUE(pre_bind->PreBindPreFlight(state, owned, "n").ok());
  EXPECT_TRUE(pre_bind->PreBindPreFlight(state, MakePod().Name("b").Obj(), "n").IsSkip());
  EXPECT_EQ(
      V(host->meta_creation_timestamp(host->pod_meta(reinterpret_cast<const ksched_pod*>(&owned)))),
      "2026-12-05T10:00:00Z");
}

// A hint that queues the pod for a node added with the label "team" only.
int QueueForTeamNodes(void*, size_t index, const ksched_pod*, const ksched_event* event) {
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(host->event_old_node(event), nullptr);
  const ksched_node* added = host->event_new_node(event);
  ksched_str team;
  return added != nullptr && host->meta_label(host->node_meta(added), S("team"), &team);
}

int32_t NodeAdds(void*, ksched_events* events) {
  host->events_add(events, S("Node"), KSCHED_ACTION_ADD);
  return KSCHED_SUCCESS;
}

TEST(StableTest, AQueueingHintSeesTheEventsObjectsAndDecides) {
  FakeHandle h;
  auto plugin = MakeOne(
      [](const ksched_host*, ksched_handle*, const ksched_args*, ksched_status*) {
        static ksched_plugin p = {.size = sizeof(ksched_plugin),
                                  .events_to_register = NodeAdds,
                                  .filter = TeamFilter,
                                  .queueing_hint = QueueForTeamNodes};
        return static_cast<const ksched_plugin*>(&p);
      },
      h);
  ASSERT_TRUE(plugin.ok());
  std::vector<ClusterEventWithHint> events =
      PluginAs<EnqueueExtensions>(plugin->get())->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events[0].hint);
  const api::Pod pod = MakePod().Name("a").Label("team", "blue").Obj();
  const api::Node team = MakeNode().Name("t").Label("team", "blue").Obj();
  const api::Node plain = MakeNode().Name("p").Obj();
  EXPECT_EQ(events[0].hint(pod, {.event = events[0].event, .new_node = &team}),
            QueueingHint::kQueue);
  EXPECT_EQ(events[0].hint(pod, {.event = events[0].event, .new_node = &plain}),
            QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::stable
