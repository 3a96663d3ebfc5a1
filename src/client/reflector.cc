#include "src/client/reflector.h"

#include <deque>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "simdjson.h"
#include "src/api/decode.h"
#include "src/api/kinds.h"
#include "src/base/log.h"
#include "src/base/thread_name.h"
#include "src/client/list.h"

namespace ksched::client {
namespace {

std::string_view StringAt(simdjson::dom::element e, std::string_view pointer) {
  std::string_view s;
  if (e.at_pointer(pointer).get_string().get(s) != simdjson::SUCCESS) return {};
  return s;
}

}  // namespace

// The watch stream's state, shared with the HTTP callbacks, which may outlive the reflector.
struct StreamState {
  absl::Mutex mu;
  uint64_t generation ABSL_GUARDED_BY(mu) = 0;
  std::string partial ABSL_GUARDED_BY(mu);
  uint64_t received ABSL_GUARDED_BY(mu) = 0;  // Bytes of the stream so far.
  std::deque<std::string> lines ABSL_GUARDED_BY(mu);
  // Lines handled, kept for the next ones: a watch event is a few KiB, and a fresh block of that
  // size made malloc consolidate its free lists each time (5% of the I/O thread's samples).
  std::vector<std::string> spare ABSL_GUARDED_BY(mu);
  bool done ABSL_GUARDED_BY(mu) = false;
  // With ReflectorOptions::handle_on_io_thread: held while objects are handed to the handlers,
  // by the I/O thread (a watch's events) or the reflector's thread (a list), so that the two never
  // interleave, and taken once by Stop so that the I/O thread is done with the reflector. Taken
  // before `mu`.
  absl::Mutex handling ABSL_ACQUIRED_BEFORE(mu);
  // An event the I/O thread handled ended the watch (an ERROR event, its code 410 when `gone`).
  bool ended ABSL_GUARDED_BY(mu) = false;
  bool gone ABSL_GUARDED_BY(mu) = false;
  HttpResponse result ABSL_GUARDED_BY(mu);
  bool stopping ABSL_GUARDED_BY(mu) = false;
  bool synced ABSL_GUARDED_BY(mu) = false;
  int lists ABSL_GUARDED_BY(mu) = 0;
  int watches ABSL_GUARDED_BY(mu) = 0;
  int bookmarks ABSL_GUARDED_BY(mu) = 0;
  // Resync calls so far, and how many of them a consistent list has served.
  uint64_t resyncs_asked ABSL_GUARDED_BY(mu) = 0;
  uint64_t resyncs_done ABSL_GUARDED_BY(mu) = 0;
  bool ResyncPending() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return resyncs_done < resyncs_asked;
  }
};

template <typename T>
struct Reflector<T>::Impl {
  HttpClient& http;
  ReflectorOptions options;
  ReflectorHandlers<T> handlers;
  std::shared_ptr<StreamState> state = std::make_shared<StreamState>();
  std::thread thread;
  std::unique_ptr<ObjectStore<T>> own_store;  // When the constructor was given none.
  ObjectStore<T>& store;                      // Written by the thread alone.
  std::string resource_version;
  simdjson::dom::parser parser;  // For watch events and list items, which are small.
  absl::BitGen rng;

  Impl(HttpClient& h, ReflectorOptions o, ReflectorHandlers<T> hs, ObjectStore<T>* s)
      : http(h),
        options(std::move(o)),
        handlers(std::move(hs)),
        own_store(s ? nullptr : std::make_unique<ObjectStore<T>>()),
        store(s ? *s : *own_store) {}

  // A list is served from the API server's watch cache (resourceVersion=0), as client-go's first
  // list is, unless `consistent`: then from etcd, as it is now.
  std::string Query(bool watch, bool consistent = false) {
    std::string q = options.path + "?";
    if (!options.field_selector.empty()) {
      q += "fieldSelector=" + Escape(options.field_selector) + "&";
    }
    if (!watch) return consistent ? q.substr(0, q.size() - 1) : q + "resourceVersion=0";
    double factor = absl::Uniform(rng, 1.0, 2.0);
    int64_t timeout =
        static_cast<int64_t>(absl::ToDoubleSeconds(options.min_watch_timeout) * factor);
    return q + fmt::format("watch=1&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
                           Escape(resource_version), timeout);
  }

  // Decodes `e`; on failure tells on_decode_error and returns nullptr.
  std::shared_ptr<const T> Decode(simdjson::dom::element e) {
    auto obj = std::make_shared<T>();
    absl::Status st;
    if constexpr (std::is_same_v<T, CustomObject>) {
      st = api::DecodeCustomObject(e, obj.get());
    } else {
      st = api::kKind<T>.decode(e, obj.get());
    }
    if (!st.ok()) {
      if (handlers.on_decode_error) handlers.on_decode_error(*obj, st);
      return nullptr;
    }
    return obj;
  }

  void Apply(std::string_view type, std::shared_ptr<const T> obj) {
    std::shared_ptr<const T> old = store.GetLike(*obj);
    if (type == "DELETED") {
      if (old == nullptr) return;
      store.Remove(*obj);
      if (handlers.on_delete) handlers.on_delete(std::move(obj));
      return;
    }
    if (old == nullptr) {
      store.Set(obj);
      if (handlers.on_add) handlers.on_add(std::move(obj));
      return;
    }
    if (old->metadata.resource_version == obj->metadata.resource_version) return;
    store.Set(obj);
    if (old->metadata.uid != obj->metadata.uid) {  // Deleted and made again under the same name.
      if (handlers.on_delete) handlers.on_delete(std::move(old));
      if (handlers.on_add) handlers.on_add(std::move(obj));
      return;
    }
    if (handlers.on_update) handlers.on_update(std::move(old), std::move(obj));
  }

  // Lists, and hands on the differences from the copy; consistently when a Resync asks for it.
  absl::Status List() {
    uint64_t resyncs;
    bool consistent;
    {
      absl::MutexLock lock(&state->mu);
      resyncs = state->resyncs_asked;
      consistent = state->ResyncPending();
    }
    HttpResponse r = http.Call({.path = Query(false, consistent), .timeout = absl::Minutes(1)});
    if (!r.ok()) return r.ToStatus();
    absl::MutexLock handling(&state->handling);
    absl::flat_hash_set<std::string> seen;
    absl::StatusOr<std::string> version =
        ForEachListItem(r.body, parser, [&](simdjson::dom::element e) {
          std::shared_ptr<const T> obj = Decode(e);
          if (obj == nullptr) return;
          seen.insert(api::KeyOf(obj->metadata));
          Apply("ADDED", std::move(obj));
        });
    if (!version.ok()) {
      return absl::DataLossError(
          fmt::format("{}: {}", options.path, AsStd(version.status().message())));
    }
    std::vector<std::shared_ptr<const T>> gone;
    for (auto& obj : store.ListAll()) {
      if (!seen.contains(api::KeyOf(obj->metadata))) gone.push_back(std::move(obj));
    }
    for (auto& obj : gone) Apply("DELETED", std::move(obj));
    resource_version = std::move(*version);
    absl::MutexLock lock(&state->mu);
    state->synced = true;
    ++state->lists;
    state->resyncs_done = std::max(state->resyncs_done, resyncs);
    return absl::OkStatus();
  }

  // Handles one watch event. Returns false when the watch must end: an ERROR event (its code in
  // `gone` when the resourceVersion expired), or a line that is no event, which is logged.
  // `line`'s capacity leaves simdjson's padding after it.
  bool HandleLine(const std::string& line, bool* gone) {
    simdjson::dom::element ev;
    simdjson::dom::element object;
    if (auto err = parser
                       .parse(line.data(), line.size(),
                              line.capacity() - line.size() < simdjson::SIMDJSON_PADDING)
                       .get(ev);
        err || ev["object"].get(object) != simdjson::SUCCESS) {
      KLOG_WARNING("Unable to decode an event from the watch stream; watching again",
                   {"resource", options.path},
                   {"err", err ? simdjson::error_message(err) : "the event has no object"},
                   {"event", line.substr(0, 200)});
      return false;
    }
    std::string_view type = StringAt(ev, "/type");
    if (type == "ERROR") {
      int64_t code = 0;
      if (object["code"].get_int64().get(code) != simdjson::SUCCESS) code = 0;
      *gone = code == 410;
      return false;
    }
    std::string_view rv = StringAt(object, "/metadata/resourceVersion");
    if (type == "BOOKMARK") {
      resource_version = std::string(rv);
      absl::MutexLock lock(&state->mu);
      ++state->bookmarks;
      return true;
    }
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED") return true;
    if (std::shared_ptr<const T> obj = Decode(object)) Apply(type, std::move(obj));
    resource_version = std::string(rv);
    return true;
  }

  // Keeps a few of the lines handled, not too large, for the next ones; `lines` ends empty.
  static void Recycle(StreamState& s, std::deque<std::string>& lines)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
    constexpr size_t kKept = 16, kLargest = 64 << 10;
    for (std::string& line : lines) {
      if (s.spare.size() == kKept) break;
      if (line.capacity() <= kLargest) s.spare.push_back(std::move(line));
    }
    lines.clear();
  }

  // Splits the stream's data into lines, kept in s.lines; `line`s have room for the padding
  // simdjson reads past the end, so that it parses each where it is, without a copy.
  static void Split(StreamState& s, std::string_view chunk) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
    s.received += chunk.size();
    s.partial.append(chunk);
    size_t start = 0;
    for (size_t nl; (nl = s.partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (nl == start) continue;
      std::string& line = s.lines.emplace_back();
      if (!s.spare.empty()) {
        line.swap(s.spare.back());
        s.spare.pop_back();
        line.clear();
      }
      line.reserve(nl - start + simdjson::SIMDJSON_PADDING);
      line.append(s.partial, start, nl - start);
    }
    s.partial.erase(0, start);
  }

  // With handle_on_io_thread, on the I/O thread: hands the stream's complete lines to the
  // handlers, unless the reflector has left stream `gen` (or is stopping) meanwhile; `impl` is
  // used only then (Stop waits for `handling`, and the reflector is gone after it).
  static void HandleOnIoThread(Impl* impl, StreamState& s, uint64_t gen) {
    absl::MutexLock handling(&s.handling);
    std::deque<std::string> lines;
    {
      absl::MutexLock lock(&s.mu);
      if (s.generation != gen || s.stopping || s.ended) return;
      lines.swap(s.lines);
    }
    bool gone = false;
    for (const std::string& line : lines) {
      if (!impl->HandleLine(line, &gone)) {
        absl::MutexLock lock(&s.mu);
        s.ended = true;
        s.gone = gone;
        break;
      }
    }
    absl::MutexLock lock(&s.mu);
    Recycle(s, lines);
  }

  // Watches until the stream ends. Returns whether to list again, and sets `error` when the watch
  // failed (as opposed to ending by its timeout).
  bool Watch(bool* error) {
    std::shared_ptr<StreamState> s = state;
    const bool on_io_thread = options.handle_on_io_thread;
    uint64_t gen;
    std::string query;
    {
      absl::MutexLock handling(&s->handling);  // The last stream's events may still be handled.
      query = Query(true);
      absl::MutexLock lock(&s->mu);
      gen = ++s->generation;
      s->partial.clear();
      s->lines.clear();
      s->done = false;
      s->ended = false;
      ++s->watches;
    }
    // Whatever ends the watch leaves its stream: events that come after are dropped.
    absl::Cleanup leave = [&s] {
      absl::MutexLock lock(&s->mu);
      ++s->generation;
    };
    auto on_data = [impl = this, s, gen, on_io_thread](std::string_view chunk) {
      {
        absl::MutexLock lock(&s->mu);
        if (s->generation != gen) return;
        Split(*s, chunk);
        if (!on_io_thread || s->lines.empty()) return;
      }
      HandleOnIoThread(impl, *s, gen);
    };
    auto on_done = [s, gen](HttpResponse r) {
      absl::MutexLock lock(&s->mu);
      if (s->generation != gen) return;
      s->done = true;
      s->result = std::move(r);
    };
    std::shared_ptr<HttpClient::Stream> stream =
        http.Watch({.path = query, .timeout = absl::ZeroDuration()}, on_data, on_done);
    bool gone = false;
    // An ERROR event ended the watch early.
    bool ended = false;
    // The lines handled last, then the next.
    std::deque<std::string> lines;
    // The reflector's thread wakes for each line, unless the I/O thread hands them on.
    auto wake = on_io_thread ? +[](StreamState* st) ABSL_NO_THREAD_SAFETY_ANALYSIS {
      return st->stopping || st->done || st->ended || st->ResyncPending();
    }
                             : +[](StreamState* st) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                 return st->stopping || st->done || !st->lines.empty() ||
                                        st->ResyncPending();
                               };
    while (true) {
      bool done = false;
      HttpResponse result;
      {
        absl::MutexLock lock(&s->mu);
        Recycle(*s, lines);
        const uint64_t received = s->received;
        if (!s->mu.AwaitWithTimeout(absl::Condition(wake, s.get()), options.watch_idle_timeout)) {
          if (s->received != received) continue;  // Part of a line came.
          KLOG_WARNING("The watch sent nothing for too long; watching again",
                       {"resource", options.path},
                       {"idle", absl::FormatDuration(options.watch_idle_timeout)});
          ended = true;
          break;
        }
        if (s->stopping) break;
        if (s->ResyncPending()) {
          stream->Cancel();
          return true;
        }
        if (s->ended) {
          gone = s->gone;
          ended = true;
          break;
        }
        if (!on_io_thread) lines.swap(s->lines);
        done = s->done;
        if (done) result = s->result;
      }
      for (const std::string& line : lines) {
        if (!HandleLine(line, &gone)) {
          ended = true;
          break;
        }
      }
      if (ended) break;
      if (done) {
        *error = !result.ok();
        return result.status == 410;
      }
    }
    stream->Cancel();
    *error = ended && !gone;
    return gone;
  }

  // Sleeps up to `d`, or until Stop or a new Resync. Returns false when stopping.
  bool Sleep(absl::Duration d) {
    absl::MutexLock lock(&state->mu);
    struct Wake {
      StreamState* st;
      uint64_t asked;
    } wake{state.get(), state->resyncs_asked};
    state->mu.AwaitWithTimeout(absl::Condition(
                                   +[](Wake* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                     return w->st->stopping || w->st->resyncs_asked != w->asked;
                                   },
                                   &wake),
                               d);
    return !state->stopping;
  }

  bool ResyncPending() {
    absl::MutexLock lock(&state->mu);
    return state->ResyncPending();
  }

  // Marks the first list done; false if it already was.
  bool SetSynced() {
    absl::MutexLock lock(&state->mu);
    return !std::exchange(state->synced, true);
  }

  bool Stopping() {
    absl::MutexLock lock(&state->mu);
    return state->stopping;
  }

  void Run() {
    const ReflectorOptions::Backoff& b = options.backoff;
    absl::Duration backoff = b.initial;
    absl::Time doubling_since = absl::Now();
    bool need_list = true;
    auto fail = [&]() {
      if (const absl::Time now = absl::Now(); now - doubling_since > b.reset) {
        backoff = b.initial;
        doubling_since = now;
      }
      absl::Duration d = backoff * absl::Uniform(rng, 1.0, 2.0);  // Jitter 1.0, as client-go.
      backoff = std::min(backoff * 2, b.max);
      return Sleep(d);
    };
    while (!Stopping()) {
      if (need_list || ResyncPending()) {
        if (absl::Status st = List(); !st.ok()) {
          if (!options.optional || !(absl::IsPermissionDenied(st) || absl::IsNotFound(st))) {
            KLOG_WARNING("Failed to list", {"resource", options.path},
                         {"err", std::string(AsStd(st.message()))});
          } else if (SetSynced()) {
            KLOG_WARNING("Not allowed to list, or not served; going on without them",
                         {"resource", options.path}, {"err", std::string(AsStd(st.message()))});
          }
          if (!fail()) return;
          continue;
        }
        need_list = false;
      }
      bool error = false;
      need_list = Watch(&error);
      if (need_list && ResyncPending()) {
        KLOG(2, "Listing again, as asked", {"resource", options.path});
      } else if (need_list) {
        KLOG(2, "Watch ended: the resourceVersion expired; listing again",
             {"resource", options.path});
      } else if (error) {
        KLOG(2, "Watch failed; watching again after a backoff", {"resource", options.path});
      }
      if (error && !need_list) {
        if (!fail()) return;
      } else if (!error) {
        backoff = b.initial;
      }
    }
  }
};

template <typename T>
Reflector<T>::Reflector(HttpClient& http, ReflectorOptions options, ReflectorHandlers<T> handlers,
                        ObjectStore<T>* store)
    : impl_(std::make_unique<Impl>(http, std::move(options), std::move(handlers), store)) {}

template <typename T>
Reflector<T>::~Reflector() {
  Stop();
}

template <typename T>
void Reflector<T>::Start() {
  impl_->thread = std::thread([this] {
    const std::string& path = impl_->options.path;
    NameThisThread("watch-" + path.substr(path.rfind('/') + 1));  // watch-pods
    impl_->Run();
  });
}

template <typename T>
void Reflector<T>::Stop() {
  {
    absl::MutexLock lock(&impl_->state->mu);
    impl_->state->stopping = true;
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  absl::MutexLock handling(&impl_->state->handling);  // The I/O thread is done with it.
}

template <typename T>
bool Reflector<T>::WaitForSync(absl::Duration timeout) {
  StreamState* st = impl_->state.get();
  absl::MutexLock lock(&st->mu);
  return st->mu.AwaitWithTimeout(
      absl::Condition(
          +[](StreamState* x) ABSL_NO_THREAD_SAFETY_ANALYSIS { return x->synced; }, st),
      timeout);
}

template <typename T>
bool Reflector<T>::HasSynced() {
  absl::MutexLock lock(&impl_->state->mu);
  return impl_->state->synced;
}

template <typename T>
bool Reflector<T>::Resync(absl::Duration timeout) {
  StreamState* st = impl_->state.get();
  absl::MutexLock lock(&st->mu);
  struct Done {
    StreamState* st;
    uint64_t ticket;
  } done{st, ++st->resyncs_asked};
  st->mu.AwaitWithTimeout(absl::Condition(
                              +[](Done* d) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                return d->st->stopping || d->st->resyncs_done >= d->ticket;
                              },
                              &done),
                          timeout);
  return st->resyncs_done >= done.ticket;
}

template <typename T>
int Reflector<T>::lists() {
  absl::MutexLock lock(&impl_->state->mu);
  return impl_->state->lists;
}

template <typename T>
int Reflector<T>::watches() {
  absl::MutexLock lock(&impl_->state->mu);
  return impl_->state->watches;
}

template <typename T>
int Reflector<T>::bookmarks() {
  absl::MutexLock lock(&impl_->state->mu);
  return impl_->state->bookmarks;
}

// Every kind the table (src/api/kinds.h) calls watched: a missing one fails ApiSource's link.
// And the custom resources plugins watch.
template class Reflector<CustomObject>;
template class Reflector<api::Pod>;
template class Reflector<api::Node>;
template class Reflector<api::Namespace>;
template class Reflector<api::PriorityClass>;
template class Reflector<api::Service>;
template class Reflector<api::ReplicationController>;
template class Reflector<api::ReplicaSet>;
template class Reflector<api::StatefulSet>;
template class Reflector<api::PodDisruptionBudget>;
template class Reflector<api::PersistentVolume>;
template class Reflector<api::PersistentVolumeClaim>;
template class Reflector<api::StorageClass>;
template class Reflector<api::CSINode>;
template class Reflector<api::CSIDriver>;
template class Reflector<api::CSIStorageCapacity>;
template class Reflector<api::VolumeAttachment>;
template class Reflector<api::DeviceClass>;
template class Reflector<api::ResourceSlice>;
template class Reflector<api::ResourceClaim>;
template class Reflector<api::DeviceTaintRule>;
template class Reflector<api::PodGroup>;

}  // namespace ksched::client
