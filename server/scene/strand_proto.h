#pragma once
// ligature.v1 Strand <-> engine description, with validation: every error is
// INVALID_ARGUMENT naming the field (e.g. "bodies[0].strand.points[3]"). References to
// other bodies (follow_body, local_dynamics_body) are checked by the world.

#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"
#include "server/constraint/strand/strand_constraint_desc.h"
#include "server/model/strand/strand_body_desc.h"

namespace ligature {

// `pose` is the body's pose: the base frame (in the world, or in follow_body's frame).
absl::StatusOr<StrandBodyDesc> StrandFromProto(const v1::Strand& strand, const Transform& pose,
                                               const std::string& field);
void StrandToProto(const StrandBodyDesc& strand, v1::Strand* out);

// A constraint on a strand; the strand and the segment's range are checked by the world.
absl::StatusOr<StrandConstraintDesc> StrandConstraintFromProto(const v1::StrandConstraint& c,
                                                               const std::string& field);
void StrandConstraintToProto(const StrandConstraintDesc& c, v1::StrandConstraint* out);

}  // namespace ligature
