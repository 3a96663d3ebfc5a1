#include "ksched/cel.h"

#include <cstdlib>
#include <filesystem>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/base/lazy_library.h"

namespace ksched::cel {
namespace {

// The library's C ABI (src/cel/main.go).
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

std::string_view Trim(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\n\r";
  const size_t first = s.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return std::string_view();
  return s.substr(first, s.find_last_not_of(kBlanks) - first + 1);
}

// `s` cut at each `separator` outside quotes.
std::vector<std::string_view> SplitOutsideQuotes(std::string_view s, std::string_view separator) {
  std::vector<std::string_view> out;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (quote != 0) {
      if (s[i] == quote) quote = 0;
    } else if (s[i] == '"' || s[i] == '\'') {
      quote = s[i];
    } else if (s.substr(i).starts_with(separator)) {
      out.push_back(s.substr(start, i - start));
      start = i + separator.size();
      i = start - 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// The string `literal` means, if it is one in either quote whose characters are its value
// (printable ASCII without quotes or backslashes).
std::optional<std::string> PlainString(std::string_view literal) {
  if (literal.size() < 2 || (literal[0] != '"' && literal[0] != '\'') ||
      literal.back() != literal[0]) {
    return std::nullopt;
  }
  const std::string_view text = literal.substr(1, literal.size() - 2);
  for (char c : text) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\'' || c == '\\') return std::nullopt;
  }
  return std::string(text);
}

// What `expression` asks when it is only a conjunction (`&&`) of comparisons ksched judges itself:
// `device.driver == "NAME"` and, where the environment declares the field (consumable capacity),
// `device.allowMultipleAllocations == true` (or false), each field once, either side of `==`,
// with blanks (' ', tab, newline, carriage return) around. CEL's verdict on them is string and
// boolean equality, which cannot fail. Anything else, CEL or not, is the library's. Hand-written:
// the library is what parses CEL, and these are the forms ksched recognizes to spare loading it
// (DeviceClasses commonly select by the driver's name; scheduler_perf's ConsumableCapacity also
// by allowMultipleAllocations).
std::optional<NativeSelector> NativeForm(std::string_view expression, Features features) {
  NativeSelector out;
  for (std::string_view term : SplitOutsideQuotes(expression, "&&")) {
    const std::vector<std::string_view> sides = SplitOutsideQuotes(term, "==");
    if (sides.size() != 2) return std::nullopt;
    std::string_view left = Trim(sides[0]), right = Trim(sides[1]);
    if (right.starts_with("device.")) std::swap(left, right);
    if (left == "device.driver" && !out.driver) {
      out.driver = PlainString(right);
      if (!out.driver) return std::nullopt;
    } else if (left == "device.allowMultipleAllocations" && features.consumable_capacity &&
               !out.multiple && (right == "true" || right == "false")) {
      out.multiple = right == "true";
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::vector<std::string> Drivers(const std::vector<Device>& devices) {
  std::vector<std::string> out;
  out.reserve(devices.size());
  for (const Device& d : devices) out.push_back(d.driver);
  return out;
}

// device.allowMultipleAllocations as CEL sees it: false when unset.
std::vector<bool> Multiple(const std::vector<Device>& devices) {
  std::vector<bool> out;
  out.reserve(devices.size());
  for (const Device& d : devices) out.push_back(d.allow_multiple_allocations.value_or(false));
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Devices>> Devices::Make(std::vector<Device> devices) {
  return std::shared_ptr<const Devices>(new Devices(std::move(devices)));
}

Devices::Devices(std::vector<Device> devices)
    : drivers_(Drivers(devices)), multiple_(Multiple(devices)), to_hand_over_(std::move(devices)) {}

absl::StatusOr<int64_t> Devices::Handle() const {
  absl::MutexLock lock(&mu_);
  if (!handle_.ok() || *handle_ != 0) return handle_;
  absl::StatusOr<const Library*> lib = Open();
  if (!lib.ok()) return lib.status();
  nlohmann::json list = nlohmann::json::array();
  for (const Device& d : to_hand_over_) list.push_back(ToJson(d));
  const std::string text = list.dump();
  char* error = nullptr;
  const int64_t handle = (*lib)->devices(text.data(), text.size(), &error);
  handle_ = handle != 0 ? absl::StatusOr<int64_t>(handle)
                        : absl::InvalidArgumentError((*lib)->Take(error));
  to_hand_over_ = {};  // The library has them now, or refused them for good.
  return handle_;
}

Devices::~Devices() {
  absl::MutexLock lock(&mu_);
  if (!handle_.ok() || *handle_ == 0) return;
  if (absl::StatusOr<const Library*> lib = Open(); lib.ok()) (*lib)->release(*handle_);
}

absl::StatusOr<std::shared_ptr<const Selector>> Selector::Compile(std::string_view expression,
                                                                  Features features) {
  if (std::optional<NativeSelector> native = NativeForm(expression, features)) {
    return std::shared_ptr<const Selector>(new Selector(0, *std::move(native)));
  }
  absl::StatusOr<const Library*> lib = Open();
  if (!lib.ok()) return lib.status();
  char* error = nullptr;
  const int64_t handle = (*lib)->compile(
      expression.data(), expression.size(),
      (features.consumable_capacity ? 1 : 0) | (features.list_type_attributes ? 2 : 0), &error);
  if (handle == 0) return absl::InvalidArgumentError((*lib)->Take(error));
  return std::shared_ptr<const Selector>(new Selector(handle, {}));
}

Selector::~Selector() {
  if (handle_ == 0) return;
  if (absl::StatusOr<const Library*> lib = Open(); lib.ok()) (*lib)->release(handle_);
}

absl::StatusOr<std::vector<Match>> Selector::Evaluate(const Devices& devices) const {
  std::vector<Match> out(devices.size());
  if (handle_ == 0) {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].matches = (!native_.driver || devices.drivers_[i] == *native_.driver) &&
                       (!native_.multiple || devices.multiple_[i] == *native_.multiple);
    }
    return out;
  }
  absl::StatusOr<const Library*> lib = Open();
  if (!lib.ok()) return lib.status();
  absl::StatusOr<int64_t> list = devices.Handle();
  if (!list.ok()) return list.status();
  std::vector<int8_t> results(devices.size());
  char* errors = nullptr;
  const int64_t n = (*lib)->match(handle_, *list, results.data(), results.size(), &errors);
  const std::string error_text = (*lib)->Take(errors);
  if (n != static_cast<int64_t>(devices.size())) {
    return absl::InternalError("the CEL library does not know this selector or device list");
  }
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
