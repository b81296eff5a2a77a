#pragma once
// Resource names of the ligature.v1 API: worlds/{world} and worlds/{world}/bodies/{body}.

#include <string>

#include "absl/strings/string_view.h"

namespace ligature::client {

// Returns the resource name of a world given either its id ("demo") or its name
// ("worlds/demo").
std::string WorldName(absl::string_view world);

// Returns the resource name of body `body_id` in `world` (id or name).
std::string BodyName(absl::string_view world, absl::string_view body_id);

// Returns the resource name of constraint `constraint_id` in `world` (id or name).
std::string ConstraintName(absl::string_view world, absl::string_view constraint_id);

}  // namespace ligature::client
