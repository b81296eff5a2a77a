#pragma once
// ligature.v1.Constraint <-> ConstraintDesc, with validation (errors name the field path).

#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"
#include "server/world/scene_desc.h"

namespace ligature {

absl::StatusOr<ConstraintDesc> ConstraintFromProto(const v1::Constraint& c,
                                                   const std::string& field);
v1::Constraint ConstraintToProto(const ConstraintDesc& c);

}  // namespace ligature
