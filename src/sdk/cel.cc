#include "ksched/cel.h"

#include <cstdlib>
#include <filesystem>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/lazy_library.h"

namespace ksched::cel {
namespace {

// The library's C ABI (scripts/k8s/cel/main.go).
extern "C" {
using CompileFn = int64_t(const char* expr, size_t len, int features, char** error);
using DevicesFn = int64_t(const char* json, size_t len, char** error);
using MatchFn = int64_t(int64_t expr, int64_t devices, int8_t* out, size_t len, char** errors);
using ReleaseFn = void(int64_t handle);
using FreeFn = void(char* p);
}

constexpr char kLibrary[] = "libksched_cel.so";

// Where the library is: $KSCHED_CEL_LIBRARY, beside the binary, in ../lib from it, or wherever the
// dynamic linker finds it.
std::string LibraryPath() {
  if (const char* env = std::getenv("KSCHED_CEL_LIBRARY"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const auto& candidate :
         {exe.parent_path() / kLibrary, exe.parent_path().parent_path() / "lib" / kLibrary}) {
      if (std::filesystem::exists(candidate, ec)) return candidate.string();
    }
  }
  return kLibrary;
}

struct Library {
  LazyLibrary lib{LibraryPath(), "DRA's device selectors (upstream's CEL)"};
  CompileFn* compile = nullptr;
  DevicesFn* devices = nullptr;
  MatchFn* match = nullptr;
  ReleaseFn* release = nullptr;
  FreeFn* free = nullptr;
  absl::Status status;

  Library() {
    status = lib.Open();
    if (!status.ok()) {
      status = absl::FailedPreconditionError(status.message());
      return;
    }
    compile = lib.Function<CompileFn>("ksched_cel_compile");
    devices = lib.Function<DevicesFn>("ksched_cel_devices");
    match = lib.Function<MatchFn>("ksched_cel_match");
    release = lib.Function<ReleaseFn>("ksched_cel_release");
    free = lib.Function<FreeFn>("ksched_cel_free");
    if (!compile || !devices || !match || !release || !free) {
      status = absl::FailedPreconditionError(
          fmt::format("{} lacks the functions of ksched's CEL ABI", LibraryPath()));
    }
  }

  // A message the library returned, freed.
  std::string Take(char* p) const {
    if (p == nullptr) return "";
    std::string out(p);
    free(p);
    return out;
  }
};

// Opened on first use; its failure is kept and returned each time.
absl::StatusOr<const Library*> Open() {
  static const Library* const kLibraryInstance = new Library();  // Lives as the process does.
  if (!kLibraryInstance->status.ok()) return kLibraryInstance->status;
  return kLibraryInstance;
}

nlohmann::json ToJson(const Device& d) {
  nlohmann::json attributes = nlohmann::json::object();
  for (const auto& [name, a] : d.attributes) {
    nlohmann::json& v = attributes[name];
    v = nlohmann::json::object();
    if (a.int_value) v["int"] = *a.int_value;
    if (a.bool_value) v["bool"] = *a.bool_value;
    if (a.string_value) v["string"] = *a.string_value;
    if (a.version_value) v["version"] = *a.version_value;
  }
  nlohmann::json capacity = nlohmann::json::object();
  for (const auto& [name, q] : d.capacity) capacity[name] = {{"value", q.String()}};
  nlohmann::json out = {{"driver", d.driver}, {"attributes", attributes}, {"capacity", capacity}};
  if (d.allow_multiple_allocations) out["allowMultipleAllocations"] = *d.allow_multiple_allocations;
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Devices>> Devices::Make(const std::vector<Device>& devices) {
  absl::StatusOr<const Library*> lib = Open();
  if (!lib.ok()) return lib.status();
  nlohmann::json list = nlohmann::json::array();
  for (const Device& d : devices) list.push_back(ToJson(d));
  const std::string text = list.dump();
  char* error = nullptr;
  const int64_t handle = (*lib)->devices(text.data(), text.size(), &error);
  if (handle == 0) return absl::InvalidArgumentError((*lib)->Take(error));
  return std::shared_ptr<const Devices>(new Devices(handle, devices.size()));
}

Devices::~Devices() {
  if (absl::StatusOr<const Library*> lib = Open(); lib.ok()) (*lib)->release(handle_);
}

absl::StatusOr<std::shared_ptr<const Selector>> Selector::Compile(std::string_view expression,
                                                                  Features features) {
  absl::StatusOr<const Library*> lib = Open();
  if (!lib.ok()) return lib.status();
  char* error = nullptr;
  const int64_t handle = (*lib)->compile(
      expression.data(), expression.size(),
      (features.consumable_capacity ? 1 : 0) | (features.list_type_attributes ? 2 : 0), &error);
  if (handle == 0) return absl::InvalidArgumentError((*lib)->Take(error));
  return std::shared_ptr<const Selector>(new Selector(handle));
}

Selector::~Selector() {
  if (absl::StatusOr<const Library*> lib = Open(); lib.ok()) (*lib)->release(handle_);
}

absl::StatusOr<std::vector<Match>> Selector::Evaluate(const Devices& devices) const {
  absl::StatusOr<const Library*> lib = Open();
  if (!lib.ok()) return lib.status();
  std::vector<int8_t> results(devices.size());
  char* errors = nullptr;
  const int64_t n =
      (*lib)->match(handle_, devices.handle_, results.data(), results.size(), &errors);
  const std::string error_text = (*lib)->Take(errors);
  if (n != static_cast<int64_t>(devices.size())) {
    return absl::InternalError("the CEL library does not know this selector or device list");
  }
  std::vector<Match> out(results.size());
  const nlohmann::json by_index = error_text.empty()
                                      ? nlohmann::json::object()
                                      : nlohmann::json::parse(error_text, nullptr, false);
  for (size_t i = 0; i < results.size(); ++i) {
    out[i].matches = results[i] == 1;
    if (results[i] < 0) {
      auto it = by_index.is_object() ? by_index.find(std::to_string(i)) : by_index.end();
      out[i].error = it != by_index.end() && it->is_string() ? it->get<std::string>() : "CEL error";
    }
  }
  return out;
}

}  // namespace ksched::cel
