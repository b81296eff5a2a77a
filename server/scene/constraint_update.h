#pragma once
// Changes to a joint in place: UpdateConstraint's masked paths, and Interact's drive
// targets, applied to the joint's description and validated as a new joint would be.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/field_mask.pb.h"
#include "ligature/v1/scene.pb.h"
#include "ligature/v1/session_service.pb.h"
#include "server/world/scene_desc.h"

namespace ligature {

// The mask alone: at least one path, each one UpdateConstraint accepts (errors name
// `field`.paths[i]).
absl::Status CheckConstraintMask(const google::protobuf::FieldMask& mask, const std::string& field);

// `current` with the masked paths of `from` applied. A path of another joint kind than
// current's, or a value a new joint could not have, is INVALID_ARGUMENT naming
// `field` (the mask's paths as `mask_field`.paths[i]).
absl::StatusOr<ConstraintDesc> UpdatedConstraint(const ConstraintDesc& current,
                                                 const v1::Constraint& from,
                                                 const google::protobuf::FieldMask& mask,
                                                 const std::string& field,
                                                 const std::string& mask_field);

// `current` with a drive target's fields applied: target_position and target_velocity to a
// hinge's or slider's drive, target_orientation to a ball joint, frame_b to a drive joint.
absl::StatusOr<ConstraintDesc> RetargetedConstraint(const ConstraintDesc& current,
                                                    const v1::DriveTarget& target,
                                                    const std::string& field);

}  // namespace ligature
