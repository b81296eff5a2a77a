#pragma once
// ligature.v1 soft-body messages (SoftBody, SoftConstraint) <-> engine descriptions, with
// validation (errors are INVALID_ARGUMENT naming the field). The mesh is generated or read
// here and placed at the body's pose.

#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"
#include "server/world/soft/soft_world.h"

namespace ligature {

absl::StatusOr<SoftBodyDesc> SoftBodyFromProto(const v1::SoftBody& soft, const Transform& pose,
                                               const std::string& field);
absl::StatusOr<SoftConstraintDesc> SoftConstraintFromProto(const v1::SoftConstraint& c,
                                                           const std::string& field);

// The body as explicit tetrahedra in the world frame (what it was made from is not kept).
void SoftBodyToProto(const SoftBodyDesc& soft, v1::SoftBody* out);

// A rigid body's scalpel role.
absl::StatusOr<ScalpelDesc> ScalpelFromProto(const v1::Scalpel& s, const std::string& field);
void ScalpelToProto(const ScalpelDesc& scalpel, v1::Scalpel* out);
void SoftConstraintToProto(const SoftConstraintDesc& c, v1::SoftConstraint* out);

}  // namespace ligature
