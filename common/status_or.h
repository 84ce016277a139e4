// StatusOr<T>: either a value or a non-OK Status. Constructing one from an OK Status is a
// programming error and aborts, as does reading the value of an error.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "common/status.h"

namespace trnsim {

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) {
      std::fprintf(stderr, "trnsim: StatusOr constructed from an OK Status\n");
      std::abort();
    }
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { return Checked(); }
  const T& value() const& { return const_cast<StatusOr*>(this)->Checked(); }
  T&& value() && { return std::move(Checked()); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &const_cast<StatusOr*>(this)->Checked(); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return const_cast<StatusOr*>(this)->Checked(); }

 private:
  T& Checked() {
    if (!value_) {
      std::fprintf(stderr, "trnsim: value() of an error StatusOr: %s\n",
                   status_.ToString().c_str());
      std::abort();
    }
    return *value_;
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace trnsim

#define TRNSIM_CONCAT_INNER(a, b) a##b
#define TRNSIM_CONCAT(a, b) TRNSIM_CONCAT_INNER(a, b)
// TRNSIM_ASSIGN_OR_RETURN(auto x, Fn()); returns Fn()'s Status from the caller on error.
#define TRNSIM_ASSIGN_OR_RETURN(lhs, expr)                                  \
  auto TRNSIM_CONCAT(_trnsim_or_, __LINE__) = (expr);                       \
  if (!TRNSIM_CONCAT(_trnsim_or_, __LINE__).ok())                           \
    return TRNSIM_CONCAT(_trnsim_or_, __LINE__).status();                   \
  lhs = std::move(TRNSIM_CONCAT(_trnsim_or_, __LINE__)).value()
