// Early-return helpers for absl::Status and absl::StatusOr, as abseil's internal ones.
//
//   KSCHED_RETURN_IF_ERROR(DecodeSpec(e, path, &pod.spec));
//   KSCHED_ASSIGN_OR_RETURN(Quantity q, Quantity::Parse(s));
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KSCHED_RETURN_IF_ERROR(expr)              \
  do {                                            \
    if (::absl::Status _st = (expr); !_st.ok()) { \
      return _st;                                 \
    }                                             \
  } while (0)

#define KSCHED_STATUS_CONCAT_INNER(a, b) a##b
#define KSCHED_STATUS_CONCAT(a, b) KSCHED_STATUS_CONCAT_INNER(a, b)

#define KSCHED_ASSIGN_OR_RETURN(lhs, rexpr) \
  KSCHED_ASSIGN_OR_RETURN_IMPL(KSCHED_STATUS_CONCAT(_statusor_, __LINE__), lhs, rexpr)

// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` is a declaration and cannot be parenthesized.
#define KSCHED_ASSIGN_OR_RETURN_IMPL(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)
