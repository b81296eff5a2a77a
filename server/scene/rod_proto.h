#pragma once
// ligature.v1 rod messages (Rod, RodConstraint, Pearl) <-> engine descriptions, with
// validation of values (references are checked by the world). Errors are INVALID_ARGUMENT
// and name the field path.

#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"
#include "server/constraint/rod/rod_constraint.h"
#include "server/model/rod/pearl.h"
#include "server/model/rod/rod_model.h"

namespace ligature {

absl::StatusOr<RodDesc> RodFromProto(const v1::Rod& rod, const std::string& field);
absl::StatusOr<RodConstraintDesc> RodConstraintFromProto(const v1::RodConstraint& c,
                                                         const std::string& field);
absl::StatusOr<PearlDesc> PearlFromProto(const v1::Pearl& p, const std::string& field);

void RodToProto(const RodDesc& rod, v1::Rod* out);
void RodConstraintToProto(const RodConstraintDesc& c, v1::RodConstraint* out);
void PearlToProto(const PearlDesc& p, v1::Pearl* out);

}  // namespace ligature
