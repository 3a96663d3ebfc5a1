// Boxed<T>: std::optional<T>'s interface with the value on the heap. For big fields that most
// objects leave out, such as a pod's affinity: an absent one costs a pointer instead of a whole T,
// in each of the thousands of pods a scheduler holds. Copies are deep, as an optional's are.
//
//   Boxed<Affinity> a;                      // absent
//   if (!a) a.emplace().node_affinity = ...;
//   const Affinity& v = *a;                 // a->pod_affinity, a.value(), a.has_value() as well
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace ksched::api {

template <class T>
class Boxed {
 public:
  using value_type = T;

  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional.
  Boxed(T value)            // NOLINT(google-explicit-constructor): as std::optional.
      : p_(std::make_unique<T>(std::move(value))) {}
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  ~Boxed() = default;

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& value() {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <class... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    return a.has_value() == b.has_value() && (!a || *a == *b);
  }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace ksched::api
