#pragma once
// Early-return helpers for absl::Status and absl::StatusOr, for the server and its clients.

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns the status of `expr` from the enclosing function when it is not OK.
#define LIGATURE_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    const absl::Status ligature_status_ = (expr);        \
    if (!ligature_status_.ok()) return ligature_status_; \
  } while (false)

#define LIGATURE_STATUS_CONCAT_INNER_(a, b) a##b
#define LIGATURE_STATUS_CONCAT_(a, b) LIGATURE_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::StatusOr), returns its status when it is not OK, and
// otherwise moves its value into `lhs` (a declaration or an lvalue).
#define LIGATURE_ASSIGN_OR_RETURN(lhs, expr) \
  LIGATURE_ASSIGN_OR_RETURN_IMPL_(LIGATURE_STATUS_CONCAT_(ligature_statusor_, __LINE__), lhs, expr)

#define LIGATURE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                    \
  if (!statusor.ok()) return statusor.status();              \
  lhs = std::move(statusor).value()
