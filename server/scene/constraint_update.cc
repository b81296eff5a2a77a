#include "server/scene/constraint_update.h"

#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/field_mask_util.h"
#include "server/scene/constraint_proto.h"
#include "server/scene/field_error.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

using Kind = v1::Constraint::KindCase;

// The paths UpdateConstraint accepts, and the joint kind each belongs to (KIND_NOT_SET:
// any joint).
struct PathRule {
  const char* path;
  Kind kind;
};

constexpr std::array<PathRule, 17> kPaths = {{
    {"hinge.drive", Kind::kHinge},
    {"hinge.drive.target_position", Kind::kHinge},
    {"hinge.drive.target_velocity", Kind::kHinge},
    {"hinge.limits", Kind::kHinge},
    {"slider.drive", Kind::kSlider},
    {"slider.drive.target_position", Kind::kSlider},
    {"slider.drive.target_velocity", Kind::kSlider},
    {"slider.limits", Kind::kSlider},
    {"point.orientation_drive", Kind::kPoint},
    {"point.target_orientation", Kind::kPoint},
    {"point.target_angular_velocity", Kind::kPoint},
    {"drive.linear", Kind::kDrive},
    {"drive.angular", Kind::kDrive},
    {"drive.frames.frame_a", Kind::kDrive},
    {"drive.frames.frame_b", Kind::kDrive},
    {"break_force", Kind::KIND_NOT_SET},
    {"break_torque", Kind::KIND_NOT_SET},
}};

const PathRule* FindPath(const std::string& path) {
  for (const PathRule& rule : kPaths) {
    if (path == rule.path) return &rule;
  }
  return nullptr;
}

// The oneof's own name for a kind, as paths spell it.
const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kPoint:
      return "point";
    case Kind::kHinge:
      return "hinge";
    case Kind::kSlider:
      return "slider";
    case Kind::kFixed:
      return "fixed";
    case Kind::kDrive:
      return "drive";
    case Kind::kCurve:
      return "curve";
    default:
      return "deformable";
  }
}

// Validates the joint's new proto form as a new joint, and keeps its id.
absl::StatusOr<ConstraintDesc> Reparsed(const ConstraintDesc& current, const v1::Constraint& c,
                                        const std::string& field) {
  auto desc = ConstraintFromProto(c, field);
  if (!desc.ok()) return desc.status();
  desc->id = current.id;
  return desc;
}

// The joint kinds UpdateConstraint changes: the rigid bodies' joints, not curves or the
// constraints of deformable bodies.
bool IsRigidJoint(const ConstraintDesc& c) {
  return !(c.rod || c.pearl || c.soft || c.strand || c.params.kind == JointKind::kCurve);
}

}  // namespace

absl::Status CheckConstraintMask(const google::protobuf::FieldMask& mask,
                                 const std::string& field) {
  if (mask.paths_size() == 0) return InvalidField(field, "must name at least one field");
  for (int i = 0; i < mask.paths_size(); ++i) {
    if (FindPath(mask.paths(i)) == nullptr) {
      return InvalidField(absl::StrCat(field, ".paths[", i, "]"),
                          absl::StrCat("cannot update \"", mask.paths(i), "\""));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ConstraintDesc> UpdatedConstraint(const ConstraintDesc& current,
                                                 const v1::Constraint& from,
                                                 const google::protobuf::FieldMask& mask,
                                                 const std::string& field,
                                                 const std::string& mask_field) {
  if (auto s = CheckConstraintMask(mask, mask_field); !s.ok()) return s;
  if (!IsRigidJoint(current)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "constraint ", current.id, " is not a joint between rigid bodies: delete it instead"));
  }
  v1::Constraint updated = ConstraintToProto(current);
  for (int i = 0; i < mask.paths_size(); ++i) {
    const PathRule& rule = *FindPath(mask.paths(i));
    if (rule.kind != Kind::KIND_NOT_SET && rule.kind != updated.kind_case()) {
      return InvalidField(
          absl::StrCat(mask_field, ".paths[", i, "]"),
          absl::StrCat("constraint ", current.id, " is a ", KindName(updated.kind_case()),
                       ", not a ", KindName(rule.kind)));
    }
  }
  // The masked fields replace the joint's: a message or an optional number unset in the
  // request is cleared.
  google::protobuf::util::FieldMaskUtil::MergeOptions options;
  options.set_replace_message_fields(true);
  options.set_replace_repeated_fields(true);
  google::protobuf::util::FieldMaskUtil::MergeMessageTo(from, mask, options, &updated);
  return Reparsed(current, updated, field);
}

absl::StatusOr<ConstraintDesc> RetargetedConstraint(const ConstraintDesc& current,
                                                    const v1::DriveTarget& target,
                                                    const std::string& field) {
  if (!IsRigidJoint(current)) {
    return InvalidField(field + ".constraint_id",
                        absl::StrCat("constraint ", current.id, " has no drive"));
  }
  // The target's own values first, so that errors name its fields.
  if (target.has_target_position() && !std::isfinite(target.target_position())) {
    return InvalidField(field + ".target_position", "must be finite");
  }
  if (target.has_target_velocity() && !std::isfinite(target.target_velocity())) {
    return InvalidField(field + ".target_velocity", "must be finite");
  }
  if (target.has_target_orientation()) {
    auto q = QuatFromProto(target.target_orientation(), field + ".target_orientation");
    if (!q.ok()) return q.status();
  }
  if (target.has_frame_b()) {
    auto pose = PoseFromProto(target.frame_b(), field + ".frame_b");
    if (!pose.ok()) return pose.status();
  }
  v1::Constraint updated = ConstraintToProto(current);
  const bool axis = target.has_target_position() || target.has_target_velocity();
  // Each field belongs to one kind of joint; another kind's is refused by name.
  const auto refuse = [&](const char* name) {
    return InvalidField(
        absl::StrCat(field, ".", name),
        absl::StrCat("constraint ", current.id, " is a ", KindName(updated.kind_case())));
  };
  v1::JointDrive* drive = nullptr;
  if (updated.has_hinge() && updated.hinge().has_drive()) {
    drive = updated.mutable_hinge()->mutable_drive();
  } else if (updated.has_slider() && updated.slider().has_drive()) {
    drive = updated.mutable_slider()->mutable_drive();
  }
  if (axis && drive == nullptr) {
    return refuse(target.has_target_position() ? "target_position" : "target_velocity");
  }
  if (target.has_target_position()) drive->set_target_position(target.target_position());
  if (target.has_target_velocity()) drive->set_target_velocity(target.target_velocity());
  if (target.has_target_orientation()) {
    if (!updated.has_point()) return refuse("target_orientation");
    *updated.mutable_point()->mutable_target_orientation() = target.target_orientation();
  }
  if (target.has_frame_b()) {
    if (!updated.has_drive()) return refuse("frame_b");
    *updated.mutable_drive()->mutable_frames()->mutable_frame_b() = target.frame_b();
  }
  return Reparsed(current, updated, field);
}

}  // namespace ligature
