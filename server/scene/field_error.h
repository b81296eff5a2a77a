#pragma once
// The error every scene conversion returns for a bad field: INVALID_ARGUMENT with the
// field's path first ("bodies[2].rigid.radius: must be > 0").

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace ligature {

inline absl::Status InvalidField(const std::string& field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

}  // namespace ligature
