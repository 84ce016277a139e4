// Callback: the move-only `void()` callable an event runs, with small-buffer storage.
//
// A callable of up to kInlineBytes (48) bytes whose move constructor does not throw is stored
// inside the Callback itself — a lambda capturing a component pointer and a few integers costs
// no heap allocation. Larger callables fall back to one heap allocation each. Unlike
// std::function, Callback is move-only, so lambdas may capture move-only state
// (std::unique_ptr, buffers).
//
// Thread safety: none; a Callback belongs to one scheduler.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace trnsim::simulator {

class Callback {
 public:
  static constexpr std::size_t kInlineBytes = 48;

  Callback() = default;
  Callback(std::nullptr_t) {}  // NOLINT: an empty callback

  template <
      typename F, typename D = std::decay_t<F>,
      typename = std::enable_if_t<!std::is_same_v<D, Callback> && std::is_invocable_r_v<void, D&>>>
  Callback(F&& f) {  // NOLINT: implicit, so lambdas pass straight to Schedule
    if constexpr (FitsInline<D>()) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
      ops_ = &kHeapOps<D>;
    }
  }

  Callback(Callback&& other) noexcept { MoveFrom(other); }
  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { Reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  // Whether the callable lives in the inline buffer (no heap allocation). For tests and docs.
  bool is_inline() const { return ops_ != nullptr && ops_->inline_storage; }

  // Runs the callable. Calling an empty Callback is a bug and crashes.
  void operator()() { ops_->invoke(storage_); }

  // Destroys the callable, leaving the Callback empty.
  void Reset() {
    if (ops_ != nullptr) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    void (*invoke)(void* storage);
    void (*move)(void* from, void* to);  // move-constructs into `to` and destroys `from`
    void (*destroy)(void* storage);
    bool inline_storage;
  };

  template <typename D>
  static constexpr bool FitsInline() {
    return sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<D>;
  }

  template <typename D>
  static constexpr Ops kInlineOps = {[](void* s) { (*std::launder(reinterpret_cast<D*>(s)))(); },
                                     [](void* from, void* to) {
                                       D* f = std::launder(reinterpret_cast<D*>(from));
                                       ::new (to) D(std::move(*f));
                                       f->~D();
                                     },
                                     [](void* s) { std::launder(reinterpret_cast<D*>(s))->~D(); },
                                     true};

  template <typename D>
  static constexpr Ops kHeapOps = {
      [](void* s) { (**reinterpret_cast<D**>(s))(); },
      [](void* from, void* to) { *reinterpret_cast<D**>(to) = *reinterpret_cast<D**>(from); },
      [](void* s) { delete *reinterpret_cast<D**>(s); }, false};

  void MoveFrom(Callback& other) {
    if (other.ops_ != nullptr) {
      other.ops_->move(other.storage_, storage_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace trnsim::simulator
