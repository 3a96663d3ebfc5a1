#include "src/sdk/stable.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "fmt/format.h"
#include "ksched/api/resources.h"
#include "ksched/handle.h"
#include "ksched/log.h"
#include "ksched/plugin.h"

namespace ksched::stable {
namespace {

ksched_str Str(std::string_view s) { return {s.data(), s.size()}; }
std::string_view View(ksched_str s) {
  return s.size == 0 ? std::string_view() : std::string_view(s.data, s.size);
}

// An opaque handle of stable.h as the host object it points to, and back.
template <typename Host, typename Opaque>
Host& Of(Opaque* opaque) {
  return *reinterpret_cast<Host*>(opaque);
}
template <typename Opaque, typename Host>
Opaque* To(Host& host) {
  return reinterpret_cast<Opaque*>(&host);
}
// The same for an object that may be absent: nullptr stays nullptr.
template <typename Opaque, typename Host>
Opaque* To(Host* host) {
  return reinterpret_cast<Opaque*>(host);
}

// What ksched_status points to: the reasons a plugin gives.
struct Reasons {
  std::vector<std::string> list;
};

// What ksched_args points to, while the plugin is made.
struct Args {
  const nlohmann::json& doc;
  std::string text;
};

// A value a plugin wrote to the cycle state.
class Value final : public StateData {
 public:
  Value(std::shared_ptr<void> value, void* (*clone)(const void*), void (*free)(void*))
      : value_(std::move(value)), clone_(clone), free_(free) {}
  static std::shared_ptr<void> Own(void* value, void (*free)(void*)) {
    return std::shared_ptr<void>(value, [free](void* v) {
      if (free != nullptr) free(v);
    });
  }
  std::unique_ptr<StateData> Clone() const override {
    if (clone_ == nullptr) return std::make_unique<Value>(value_, clone_, free_);
    return std::make_unique<Value>(Own(clone_(value_.get()), free_), clone_, free_);
  }
  void* get() const { return value_.get(); }

 private:
  std::shared_ptr<void> value_;
  void* (*clone_)(const void*);
  void (*free_)(void*);
};

const NodeInfo* NodeAt(const std::vector<const NodeInfo*>& nodes, size_t i) {
  return i < nodes.size() ? nodes[i] : nullptr;
}

// The args' top-level value under `key`; nullptr when there is none.
const nlohmann::json* Arg(const ksched_args* args, ksched_str key) {
  const nlohmann::json& doc = Of<const Args>(args).doc;
  if (!doc.is_object()) return nullptr;
  auto it = doc.find(View(key));
  return it == doc.end() ? nullptr : &*it;
}

int Found(const api::StringMap& map, ksched_str key, ksched_str* value) {
  auto it = map.find(View(key));
  if (it == map.end()) return 0;
  *value = Str(it->second);
  return 1;
}

// The EventResource named `name` (EventResourceName's), if there is one.
bool ResourceNamed(std::string_view name, EventResource* out) {
  if (name == "UnschedulablePod") name = "TargetPod";  // 1.36's name.
  // The resources are numbered from 0 on; custom resources are not for stable plugins (yet).
  for (int r = 0; r < static_cast<int>(EventResource::kCustom); ++r) {
    const std::string_view n = EventResourceName(static_cast<EventResource>(r));
    if (n == name) {
      *out = static_cast<EventResource>(r);
      return true;
    }
  }
  return false;
}

// The table, in the order stable.h declares it.
constexpr ksched_host kHost = {
    .size = sizeof(ksched_host),
    .abi = KSCHED_STABLE_ABI,
    .status_add_reason =
        [](ksched_status* status, ksched_str reason) {
          Of<Reasons>(status).list.emplace_back(View(reason));
        },
    .pod_meta = [](const ksched_pod* pod) -> const ksched_meta* {
      return To<const ksched_meta>(Of<const api::Pod>(pod).metadata);
    },
    .node_meta = [](const ksched_node* node) -> const ksched_meta* {
      return To<const ksched_meta>(Of<const api::Node>(node).metadata);
    },
    .meta_name = [](const ksched_meta* m) { return Str(Of<const api::ObjectMeta>(m).name); },
    .meta_namespace =
        [](const ksched_meta* m) { return Str(Of<const api::ObjectMeta>(m).namespace_); },
    .meta_uid = [](const ksched_meta* m) { return Str(Of<const api::ObjectMeta>(m).uid); },
    .meta_label =
        [](const ksched_meta* m, ksched_str key, ksched_str* value) {
          return Found(Of<const api::ObjectMeta>(m).labels, key, value);
        },
    .meta_annotation =
        [](const ksched_meta* m, ksched_str key, ksched_str* value) {
          return Found(Of<const api::ObjectMeta>(m).annotations, key, value);
        },
    .meta_labels =
        [](const ksched_meta* m, void* ctx, ksched_label_fn fn) {
          for (const auto& [k, v] : Of<const api::ObjectMeta>(m).labels) fn(ctx, Str(k), Str(v));
        },
    .pod_node_name =
        [](const ksched_pod* pod) { return Str(Of<const api::Pod>(pod).spec.node_name); },
    .pod_scheduler_name =
        [](const ksched_pod* pod) { return Str(Of<const api::Pod>(pod).spec.scheduler_name); },
    .pod_priority = [](const ksched_pod* pod) { return api::PodPriority(Of<const api::Pod>(pod)); },
    .pod_request =
        [](const ksched_pod* pod, ksched_str resource) {
          return Resource::FromList(api::PodRequests(Of<const api::Pod>(pod))).Get(View(resource));
        },
    .node_unschedulable =
        [](const ksched_node* node) {
          return Of<const api::Node>(node).spec.unschedulable ? 1 : 0;
        },
    .node_info_node = [](const ksched_node_info* ni) -> const ksched_node* {
      return To<const ksched_node>(Of<const NodeInfo>(ni).node());
    },
    .node_info_name = [](const ksched_node_info* ni) { return Str(Of<const NodeInfo>(ni).name()); },
    .node_info_allocatable =
        [](const ksched_node_info* ni, ksched_str resource) {
          return Of<const NodeInfo>(ni).allocatable().Get(View(resource));
        },
    .node_info_requested =
        [](const ksched_node_info* ni, ksched_str resource) {
          return Of<const NodeInfo>(ni).requested().Get(View(resource));
        },
    .node_info_pod_count =
        [](const ksched_node_info* ni) { return Of<const NodeInfo>(ni).pods().size(); },
    .node_info_pod = [](const ksched_node_info* ni, size_t i) -> const ksched_pod* {
      const auto& pods = Of<const NodeInfo>(ni).pods();
      return i < pods.size() ? To<const ksched_pod>(*pods[i]->pod) : nullptr;
    },
    .queued_pod_pod = [](const ksched_queued_pod* q) -> const ksched_pod* {
      return To<const ksched_pod>(Of<const QueuedPodInfo>(q).pod());
    },
    .queued_pod_timestamp =
        [](const ksched_queued_pod* q) {
          return absl::ToUnixNanos(Of<const QueuedPodInfo>(q).timestamp);
        },
    .state_write =
        [](ksched_cycle_state* state, ksched_str key, int32_t scope, void* value,
           void* (*clone_value)(const void*), void (*free_value)(void*)) {
          Of<CycleState>(state).Write(
              StateKey<Value>{View(key), scope == KSCHED_SCOPE_SCHEDULING_CYCLE
                                             ? StateScope::kSchedulingCycle
                                             : StateScope::kPod},
              std::make_unique<Value>(Value::Own(value, free_value), clone_value, free_value));
          return 1;
        },
    .state_read = [](const ksched_cycle_state* state, ksched_str key) -> void* {
      // Checked: a C++ plugin may have written another type under the same key.
      const auto* value = dynamic_cast<const Value*>(
          Of<const CycleState>(state).Read(StateKey<StateData>{View(key)}));
      return value == nullptr ? nullptr : value->get();
    },
    .pre_filter_result_add_node =
        [](ksched_pre_filter_result* result, ksched_str node) {
          auto& names = Of<PreFilterResult>(result).node_names;
          if (!names.has_value()) names.emplace();
          names->emplace(View(node));
        },
    .node_statuses_code =
        [](const ksched_node_statuses* statuses, ksched_str node) {
          return static_cast<int32_t>(
              Of<const NodeToStatus>(statuses).Get(std::string(View(node))).code());
        },
    .post_filter_result_nominate =
        [](ksched_post_filter_result* result, ksched_str node) {
          Of<PostFilterResult>(result).nominated_node_name = std::string(View(node));
        },
    .events_add =
        [](ksched_events* events, ksched_str resource, uint32_t actions) {
          EventResource r = EventResource::kWildCard;
          const bool known = ResourceNamed(View(resource), &r);
          // Every update its generation knew is every update, those added since included
          // (UpdateNodeDeclaredFeature), as upstream's fwk.Update is.
          if ((actions & KSCHED_ACTION_UPDATE) == KSCHED_ACTION_UPDATE) actions |= kUpdate;
          Of<std::vector<ClusterEventWithHint>>(events).push_back(
              {ClusterEvent{r, known ? actions : kAll, ""}, nullptr});
          return known ? 1 : 0;
        },
    .args_string =
        [](const ksched_args* args, ksched_str key, ksched_str* value) {
          const nlohmann::json* arg = Arg(args, key);
          if (arg == nullptr || !arg->is_string()) return 0;
          *value = Str(arg->get_ref<const std::string&>());
          return 1;
        },
    .args_int =
        [](const ksched_args* args, ksched_str key, int64_t* value) {
          const nlohmann::json* arg = Arg(args, key);
          if (arg == nullptr || !arg->is_number_integer()) return 0;
          *value = arg->get<int64_t>();
          return 1;
        },
    .args_json = [](const ksched_args* args) { return Str(Of<const Args>(args).text); },
    .handle_node_count =
        [](const ksched_handle* h) { return Of<const Handle>(h).snapshot().size(); },
    .handle_node = [](const ksched_handle* h, size_t i) -> const ksched_node_info* {
      return To<const ksched_node_info>(NodeAt(Of<const Handle>(h).snapshot().nodes(), i));
    },
    .handle_node_by_name = [](const ksched_handle* h, ksched_str name) -> const ksched_node_info* {
      return To<const ksched_node_info>(Of<const Handle>(h).snapshot().Get(View(name)));
    },
    .handle_allow_waiting_pod =
        [](ksched_handle* h, ksched_str uid, ksched_str plugin) {
          std::shared_ptr<WaitingPod> wp = Of<Handle>(h).GetWaitingPod(View(uid));
          if (wp == nullptr) return 0;
          wp->Allow(View(plugin));
          return 1;
        },
    .handle_reject_waiting_pod =
        [](ksched_handle* h, ksched_str uid, ksched_str plugin, ksched_str message) {
          std::shared_ptr<WaitingPod> wp = Of<Handle>(h).GetWaitingPod(View(uid));
          if (wp == nullptr) return 0;
          wp->Reject(View(plugin), std::string(View(message)));
          return 1;
        },
    .handle_bind =
        [](ksched_handle* h, const ksched_pod* pod, ksched_str node, ksched_status* status) {
          absl::Status st = Of<Handle>(h).writer().Bind(Of<const api::Pod>(pod), View(node));
          if (st.ok()) return int32_t{KSCHED_SUCCESS};
          Of<Reasons>(status).list.emplace_back(st.message());
          return int32_t{KSCHED_ERROR};
        },
    .log =
        [](int32_t level, ksched_str plugin, ksched_str message) {
          if (!log::Enabled(level)) return;
          log::Write('I', level, __FILE__, __LINE__, View(message),
                     {{"plugin", std::string(View(plugin))}});
        },
    // Generation 2.
    .meta_creation_timestamp =
        [](const ksched_meta* m) { return Str(Of<const api::ObjectMeta>(m).creation_timestamp); },
    .meta_controller =
        [](const ksched_meta* m, ksched_str* kind, ksched_str* name) {
          const api::OwnerReference* o = api::ControllerOf(Of<const api::ObjectMeta>(m));
          if (o == nullptr) return 0;
          *kind = Str(o->kind);
          *name = Str(o->name);
          return 1;
        },
    .event_old_pod = [](const ksched_event* e) -> const ksched_pod* {
      return To<const ksched_pod>(Of<const ClusterEventData>(e).old_pod);
    },
    .event_new_pod = [](const ksched_event* e) -> const ksched_pod* {
      return To<const ksched_pod>(Of<const ClusterEventData>(e).new_pod);
    },
    .event_old_node = [](const ksched_event* e) -> const ksched_node* {
      return To<const ksched_node>(Of<const ClusterEventData>(e).old_node);
    },
    .event_new_node = [](const ksched_event* e) -> const ksched_node* {
      return To<const ksched_node>(Of<const ClusterEventData>(e).new_node);
    },
};

// A stable plugin as a Plugin of the framework. It derives from every interface and serves those
// the library filled in.
class StablePlugin final : public PreEnqueuePlugin,
                           public QueueSortPlugin,
                           public EnqueueExtensions,
                           public PreFilterPlugin,
                           public FilterPlugin,
                           public PostFilterPlugin,
                           public PreScorePlugin,
                           public ScorePlugin,
                           public ScoreExtensions,
                           public ReservePlugin,
                           public PermitPlugin,
                           public PreBindPlugin,
                           public BindPlugin,
                           public PostBindPlugin {
 public:
  // Reads the members of `plugin` that both the library and this ksched know; the rest stay
  // NULL.
  StablePlugin(std::string name, const ksched_plugin& plugin) : name_(std::move(name)) {
    std::memcpy(&p_, &plugin, std::min<size_t>(plugin.size, sizeof(p_)));
  }
  ~StablePlugin() override {
    if (p_.destroy != nullptr) p_.destroy(p_.self);
  }

  std::string_view Name() const override { return name_; }

  bool Serves(const std::type_info& i) const override {
    if (i == typeid(PreEnqueuePlugin)) return p_.pre_enqueue != nullptr;
    if (i == typeid(QueueSortPlugin)) return p_.less != nullptr;
    if (i == typeid(EnqueueExtensions)) return p_.events_to_register != nullptr;
    if (i == typeid(PreFilterPlugin)) return p_.pre_filter != nullptr;
    if (i == typeid(FilterPlugin)) return p_.filter != nullptr;
    if (i == typeid(PostFilterPlugin)) return p_.post_filter != nullptr;
    if (i == typeid(PreScorePlugin)) return p_.pre_score != nullptr;
    if (i == typeid(ScorePlugin)) return p_.score != nullptr;
    if (i == typeid(ScoreExtensions)) return p_.normalize_score != nullptr;
    if (i == typeid(ReservePlugin)) return p_.reserve != nullptr || p_.unreserve != nullptr;
    if (i == typeid(PermitPlugin)) return p_.permit != nullptr;
    if (i == typeid(PreBindPlugin)) return p_.pre_bind != nullptr;
    if (i == typeid(BindPlugin)) return p_.bind != nullptr;
    if (i == typeid(PostBindPlugin)) return p_.post_bind != nullptr;
    return false;
  }

  Status PreEnqueue(const api::Pod& pod) override {
    Reasons r;
    return Result("pre_enqueue",
                  p_.pre_enqueue(p_.self, To<const ksched_pod>(pod), To<ksched_status>(r)), r);
  }

  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override {
    return p_.less(p_.self, To<const ksched_queued_pod>(a), To<const ksched_queued_pod>(b)) != 0;
  }

  std::vector<ClusterEventWithHint> EventsToRegister() const override {
    std::vector<ClusterEventWithHint> events;
    if (int32_t code = p_.events_to_register(p_.self, To<ksched_events>(events));
        code != KSCHED_SUCCESS) {
      KLOG_ERROR("A stable plugin's events_to_register failed: it is requeued on every event",
                 {"plugin", name_}, {"code", int64_t{code}});
      return {{ClusterEvent{EventResource::kWildCard, kAll, ""}, nullptr}};
    }
    if (p_.queueing_hint != nullptr) {
      for (size_t i = 0; i < events.size(); ++i) {
        events[i].hint = [this, i](const api::Pod& pod, const ClusterEventData& e) {
          return p_.queueing_hint(p_.self, i, To<const ksched_pod>(pod),
                                  To<const ksched_event>(e)) != 0
                     ? QueueingHint::kQueue
                     : QueueingHint::kQueueSkip;
        };
      }
    }
    return events;
  }

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override {
    Reasons r;
    return Result(
        "pre_filter",
        p_.pre_filter(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod),
                      reinterpret_cast<const ksched_node_info* const*>(nodes.data()), nodes.size(),
                      To<ksched_pre_filter_result>(*result), To<ksched_status>(r)),
        r);
  }

  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override {
    Reasons r;
    return Result("filter",
                  p_.filter(p_.self, To<const ksched_cycle_state>(state), To<const ksched_pod>(pod),
                            To<const ksched_node_info>(node), To<ksched_status>(r)),
                  r);
  }

  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override {
    Reasons r;
    return Result("post_filter",
                  p_.post_filter(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod),
                                 To<const ksched_node_statuses>(filtered),
                                 To<ksched_post_filter_result>(*result), To<ksched_status>(r)),
                  r);
  }

  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override {
    Reasons r;
    return Result("pre_score",
                  p_.pre_score(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod),
                               reinterpret_cast<const ksched_node_info* const*>(feasible.data()),
                               feasible.size(), To<ksched_status>(r)),
                  r);
  }

  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override {
    Reasons r;
    return Result("score",
                  p_.score(p_.self, To<const ksched_cycle_state>(state), To<const ksched_pod>(pod),
                           To<const ksched_node_info>(node), score, To<ksched_status>(r)),
                  r);
  }

  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override {
    std::vector<ksched_node_score> c(scores.size());
    for (size_t i = 0; i < scores.size(); ++i) {
      c[i] = {To<const ksched_node_info>(*scores[i].node), scores[i].score};
    }
    Reasons r;
    Status s = Result(
        "normalize_score",
        p_.normalize_score(p_.self, To<const ksched_cycle_state>(state), To<const ksched_pod>(pod),
                           c.data(), c.size(), To<ksched_status>(r)),
        r);
    for (size_t i = 0; i < scores.size(); ++i) scores[i].score = c[i].score;
    return s;
  }

  Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return p_.reserve == nullptr ? Status() : AtNode("reserve", p_.reserve, state, pod, node);
  }

  void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) override {
    if (p_.unreserve != nullptr) {
      p_.unreserve(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod), Str(node));
    }
  }

  Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                absl::Duration* timeout) override {
    Reasons r;
    int64_t timeout_ms = absl::ToInt64Milliseconds(*timeout);
    Status s = Result("permit",
                      p_.permit(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod),
                                Str(node), &timeout_ms, To<ksched_status>(r)),
                      r);
    *timeout = absl::Milliseconds(timeout_ms);
    return s;
  }

  Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return AtNode("pre_bind", p_.pre_bind, state, pod, node);
  }

  Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return p_.pre_bind_pre_flight == nullptr
               ? Status()
               : AtNode("pre_bind_pre_flight", p_.pre_bind_pre_flight, state, pod, node);
  }

  Status Bind(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return AtNode("bind", p_.bind, state, pod, node);
  }

  void PostBind(CycleState& state, const api::Pod& pod, std::string_view node) override {
    p_.post_bind(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod), Str(node));
  }

 private:
  // The extension points called with the pod's node: Reserve, PreBind and its pre-flight, Bind.
  using NodePoint = int32_t (*)(void*, ksched_cycle_state*, const ksched_pod*, ksched_str,
                                ksched_status*);
  Status AtNode(std::string_view point, NodePoint fn, CycleState& state, const api::Pod& pod,
                std::string_view node) const {
    Reasons r;
    return Result(point,
                  fn(p_.self, To<ksched_cycle_state>(state), To<const ksched_pod>(pod), Str(node),
                     To<ksched_status>(r)),
                  r);
  }

  // The Status of a code and its reasons; a code that is none of stable.h's is an error.
  Status Result(std::string_view point, int32_t code, Reasons& r) const {
    if (code == KSCHED_SUCCESS) return Status();
    if (code < KSCHED_SUCCESS || code > KSCHED_PENDING) {
      return Status::Error(fmt::format(
          "stable plugin \"{}\": {} returned {}, which is no status code", name_, point, code));
    }
    return Status(static_cast<Code>(code), std::move(r.list));
  }

  const std::string name_;
  ksched_plugin p_{};
};

}  // namespace

const ksched_host& Host() { return kHost; }

absl::Status RegisterLibrary(const ksched_stable_library& library, Registry& registry) {
  if (library.abi > KSCHED_STABLE_ABI) {
    return absl::FailedPreconditionError(
        fmt::format("built for ksched's stable plugin ABI {}, but this ksched has ABI {}: load it "
                    "into a ksched of ABI {} or later",
                    library.abi, KSCHED_STABLE_ABI, library.abi));
  }
  if (library.size < offsetof(ksched_stable_library, plugin_count) + sizeof(size_t)) {
    return absl::InvalidArgumentError(fmt::format(
        "its ksched_stable_library has size {}, less than its first members", library.size));
  }
  if (library.plugins == nullptr && library.plugin_count > 0) {
    return absl::InvalidArgumentError("its entry point lists no plugins");
  }
  for (size_t i = 0; i < library.plugin_count; ++i) {
    const ksched_plugin_factory f = library.plugins[i];
    if (f.name == nullptr || f.make == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("its plugin {} has no name or no make function", i));
    }
    const std::string name = f.name;
    absl::Status st = registry.Register(
        name,
        [f, name](const PluginArgs& args,
                  Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
          const nlohmann::json doc = args.ToJson();
          Args a{doc, doc.dump()};
          Reasons error;
          const ksched_plugin* p = f.make(&kHost, To<ksched_handle>(handle),
                                          To<const ksched_args>(a), To<ksched_status>(error));
          if (p == nullptr) {
            return absl::InvalidArgumentError(error.list.empty()
                                                  ? "its make function returned no plugin"
                                                  : absl::StrJoin(error.list, ", "));
          }
          if (p->size < offsetof(ksched_plugin, events_to_register)) {
            return absl::InvalidArgumentError(
                fmt::format("its ksched_plugin has size {}, less than its first members", p->size));
          }
          return std::make_unique<StablePlugin>(name, *p);
        });
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace ksched::stable
