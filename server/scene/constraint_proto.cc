#include "server/scene/constraint_proto.h"

#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "server/scene/field_error.h"
#include "server/scene/rod_proto.h"
#include "server/scene/scene_proto.h"
#include "server/scene/soft_proto.h"
#include "server/scene/strand_proto.h"

namespace ligature {
namespace {

constexpr int kMaxCurvePoints = 10000;

// The two frames of a joint: body ids and poses (in the bodies' frames, or the world's).
absl::Status FramesFromProto(const v1::JointFrames& f, const std::string& field,
                             ConstraintDesc* out) {
  if (auto s = ValidateId(f.body_a(), field + ".body_a"); !s.ok()) return s;
  if (!f.body_b().empty()) {
    if (auto s = ValidateId(f.body_b(), field + ".body_b"); !s.ok()) return s;
  }
  auto frame_a = PoseFromProto(f.frame_a(), field + ".frame_a");
  if (!frame_a.ok()) return frame_a.status();
  auto frame_b = PoseFromProto(f.frame_b(), field + ".frame_b");
  if (!frame_b.ok()) return frame_b.status();
  out->body_a = f.body_a();
  out->frame_a = *frame_a;
  out->body_b = f.body_b();
  out->frame_b = *frame_b;
  return absl::OkStatus();
}

// Optional limits: finite, lower <= upper.
absl::Status LimitsFromProto(bool present, const v1::JointLimits& l, const std::string& field,
                             JointParams* params) {
  if (!present) return absl::OkStatus();
  if (!std::isfinite(l.lower()) || !std::isfinite(l.upper()) || l.lower() > l.upper()) {
    return InvalidField(field, "lower and upper must be finite with lower <= upper");
  }
  params->limited = true;
  params->lower = l.lower();
  params->upper = l.upper();
  return absl::OkStatus();
}

// A drive's mode and gains: a known mode, finite gains >= 0 (a spring's not both zero), and
// a maximum force > 0 when given.
absl::Status GainsFromProto(v1::DriveMode mode, double stiffness, double damping,
                            std::optional<double> max_force, const std::string& field,
                            DriveGains* out) {
  switch (mode) {
    case v1::DRIVE_MODE_VELOCITY:
      out->mode = DriveMode::kVelocity;
      break;
    case v1::DRIVE_MODE_SPRING:
      out->mode = DriveMode::kSpring;
      break;
    default:
      return InvalidField(field + ".mode", "must be VELOCITY or SPRING");
  }
  if (!std::isfinite(stiffness) || stiffness < 0.0) {
    return InvalidField(field + ".stiffness", "must be finite and >= 0");
  }
  if (!std::isfinite(damping) || damping < 0.0) {
    return InvalidField(field + ".damping", "must be finite and >= 0");
  }
  if (out->mode == DriveMode::kSpring && stiffness + damping <= 0.0) {
    return InvalidField(field + ".stiffness", "a spring needs stiffness or damping above 0");
  }
  if (max_force && !(std::isfinite(*max_force) && *max_force > 0.0)) {
    return InvalidField(field + ".max_force", "must be finite and > 0 (unset: unbounded)");
  }
  out->stiffness = stiffness;
  out->damping = damping;
  if (max_force) out->max_force = *max_force;
  return absl::OkStatus();
}

std::optional<double> MaxForce(bool present, double value) {
  return present ? std::optional<double>(value) : std::nullopt;
}

// A hinge's or slider's drive, if given: its gains and finite targets.
absl::Status JointDriveFromProto(bool present, const v1::JointDrive& d, const std::string& field,
                                 JointParams* params) {
  if (!present) return absl::OkStatus();
  if (auto s = GainsFromProto(d.mode(), d.stiffness(), d.damping(),
                              MaxForce(d.has_max_force(), d.max_force()), field,
                              &params->axis_drive);
      !s.ok()) {
    return s;
  }
  if (!std::isfinite(d.target_position())) {
    return InvalidField(field + ".target_position", "must be finite");
  }
  if (!std::isfinite(d.target_velocity())) {
    return InvalidField(field + ".target_velocity", "must be finite");
  }
  params->target_position = d.target_position();
  params->target_velocity = d.target_velocity();
  return absl::OkStatus();
}

// A drive on each axis of a frame, if given.
absl::Status AxesDriveFromProto(bool present, const v1::AxesDrive& d, const std::string& field,
                                DriveGains* out) {
  if (!present) return absl::OkStatus();
  return GainsFromProto(d.mode(), d.stiffness(), d.damping(),
                        MaxForce(d.has_max_force(), d.max_force()), field, out);
}

// A ball joint's orientation drive and its targets.
absl::Status OrientationDriveFromProto(const v1::PointConstraint& p, const std::string& field,
                                       JointParams* params) {
  if (auto s = AxesDriveFromProto(p.has_orientation_drive(), p.orientation_drive(),
                                  field + ".orientation_drive", &params->angular_drive);
      !s.ok()) {
    return s;
  }
  if (p.has_target_orientation()) {
    auto q = QuatFromProto(p.target_orientation(), field + ".target_orientation");
    if (!q.ok()) return q.status();
    params->target_orientation = *q;
  }
  auto w = VelocityFromProto(p.target_angular_velocity(), field + ".target_angular_velocity");
  if (!w.ok()) return w.status();
  params->target_angular_velocity = *w;
  return absl::OkStatus();
}

// A 6-DOF drive joint: frames and at least one of its drives.
absl::Status DriveJointFromProto(const v1::DriveJoint& d, const std::string& field,
                                 ConstraintDesc* out) {
  out->params.kind = JointKind::kDrive;
  if (auto s = FramesFromProto(d.frames(), field + ".frames", out); !s.ok()) return s;
  if (!d.has_linear() && !d.has_angular()) {
    return InvalidField(field, "needs a linear or an angular drive");
  }
  if (auto s = AxesDriveFromProto(d.has_linear(), d.linear(), field + ".linear",
                                  &out->params.linear_drive);
      !s.ok()) {
    return s;
  }
  return AxesDriveFromProto(d.has_angular(), d.angular(), field + ".angular",
                            &out->params.angular_drive);
}

// Break thresholds, when given: finite and > 0.
absl::Status BreakFromProto(const v1::Constraint& c, const std::string& field,
                            JointParams* params) {
  if (c.has_break_force()) {
    if (!(std::isfinite(c.break_force()) && c.break_force() > 0.0)) {
      return InvalidField(field + ".break_force", "must be finite and > 0 (unset: unbreakable)");
    }
    params->break_force = c.break_force();
  }
  if (c.has_break_torque()) {
    if (!(std::isfinite(c.break_torque()) && c.break_torque() > 0.0)) {
      return InvalidField(field + ".break_torque",
                          "must be finite and > 0 (unset: unbreakable)");
    }
    params->break_torque = c.break_torque();
  }
  return absl::OkStatus();
}

absl::Status CurveFromProto(const v1::CurveConstraint& c, const std::string& field,
                            ConstraintDesc* out) {
  if (auto s = ValidateId(c.body(), field + ".body"); !s.ok()) return s;
  auto anchor = PositionFromProto(c.anchor(), field + ".anchor");
  if (!anchor.ok()) return anchor.status();
  if (c.points_size() < 2 || c.points_size() > kMaxCurvePoints) {
    return InvalidField(field + ".points",
                        absl::StrCat("must hold 2 to ", kMaxCurvePoints, " points"));
  }
  JointParams& p = out->params;
  for (int i = 0; i < c.points_size(); ++i) {
    auto point = PositionFromProto(c.points(i), absl::StrCat(field, ".points[", i, "]"));
    if (!point.ok()) return point.status();
    if (i > 0 && (*point - p.curve.back()).norm() < 1e-9) {
      return InvalidField(absl::StrCat(field, ".points[", i, "]"),
                     "repeats the previous point: segments need a length");
    }
    p.curve.push_back(*point);
  }
  if (!std::isfinite(c.friction()) || c.friction() < 0.0) {
    return InvalidField(field + ".friction", "must be finite and >= 0");
  }
  switch (c.end()) {
    case v1::CURVE_END_UNSPECIFIED:
    case v1::CURVE_END_STOP:
      p.curve_end = CurveEnd::kStop;
      break;
    case v1::CURVE_END_RELEASE:
      p.curve_end = CurveEnd::kRelease;
      break;
    default:
      return InvalidField(field + ".end", "unknown curve end");
  }
  p.kind = JointKind::kCurve;
  p.smooth = c.smooth();
  p.friction = c.friction();
  out->body_b = c.body();
  out->frame_b = Transform{*anchor, Quat::Identity()};
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConstraintDesc> ConstraintFromProto(const v1::Constraint& c,
                                                   const std::string& field) {
  ConstraintDesc out;
  if (!c.id().empty()) {
    if (auto s = ValidateId(c.id(), field + ".id"); !s.ok()) return s;
  }
  out.id = c.id();
  absl::Status status;
  switch (c.kind_case()) {
    case v1::Constraint::kPoint: {
      const v1::PointConstraint& p = c.point();
      const std::string at = field + ".point";
      out.params.kind = JointKind::kBall;
      status = ValidateId(p.body_a(), at + ".body_a");
      if (status.ok() && !p.body_b().empty()) status = ValidateId(p.body_b(), at + ".body_b");
      auto anchor_a = PositionFromProto(p.anchor_a(), at + ".anchor_a");
      auto anchor_b = PositionFromProto(p.anchor_b(), at + ".anchor_b");
      if (status.ok() && !anchor_a.ok()) status = anchor_a.status();
      if (status.ok() && !anchor_b.ok()) status = anchor_b.status();
      if (status.ok()) status = OrientationDriveFromProto(p, at, &out.params);
      if (status.ok()) {
        out.body_a = p.body_a();
        out.frame_a.position = *anchor_a;
        out.body_b = p.body_b();
        out.frame_b.position = *anchor_b;
      }
      break;
    }
    case v1::Constraint::kHinge:
      out.params.kind = JointKind::kHinge;
      status = FramesFromProto(c.hinge().frames(), field + ".hinge.frames", &out);
      if (status.ok()) {
        status = LimitsFromProto(c.hinge().has_limits(), c.hinge().limits(),
                                 field + ".hinge.limits", &out.params);
      }
      if (status.ok()) {
        status = JointDriveFromProto(c.hinge().has_drive(), c.hinge().drive(),
                                     field + ".hinge.drive", &out.params);
      }
      break;
    case v1::Constraint::kSlider:
      out.params.kind = JointKind::kSlider;
      status = FramesFromProto(c.slider().frames(), field + ".slider.frames", &out);
      if (status.ok()) {
        status = LimitsFromProto(c.slider().has_limits(), c.slider().limits(),
                                 field + ".slider.limits", &out.params);
      }
      if (status.ok()) {
        status = JointDriveFromProto(c.slider().has_drive(), c.slider().drive(),
                                     field + ".slider.drive", &out.params);
      }
      break;
    case v1::Constraint::kFixed:
      out.params.kind = JointKind::kFixed;
      status = FramesFromProto(c.fixed().frames(), field + ".fixed.frames", &out);
      break;
    case v1::Constraint::kCurve:
      status = CurveFromProto(c.curve(), field + ".curve", &out);
      break;
    case v1::Constraint::kDrive:
      status = DriveJointFromProto(c.drive(), field + ".drive", &out);
      break;
    case v1::Constraint::kRod: {
      auto rod = RodConstraintFromProto(c.rod(), field + ".rod");
      if (!rod.ok()) return rod.status();
      out.rod = *std::move(rod);
      out.rod->id = out.id;
      break;
    }
    case v1::Constraint::kSoft: {
      auto soft = SoftConstraintFromProto(c.soft(), field + ".soft");
      if (!soft.ok()) return soft.status();
      out.soft = *std::move(soft);
      out.soft->id = out.id;
      break;
    }
    case v1::Constraint::kStrand: {
      auto strand = StrandConstraintFromProto(c.strand(), field + ".strand");
      if (!strand.ok()) return strand.status();
      out.strand = *std::move(strand);
      out.strand->id = out.id;
      break;
    }
    case v1::Constraint::kPearl: {
      auto pearl = PearlFromProto(c.pearl(), field + ".pearl");
      if (!pearl.ok()) return pearl.status();
      out.pearl = *std::move(pearl);
      out.pearl->id = out.id;
      break;
    }
    case v1::Constraint::KIND_NOT_SET:
      return InvalidField(field,
                          "a constraint kind (point, hinge, slider, fixed, drive, curve, rod, "
                          "pearl, soft, strand) is required");
  }
  if (!status.ok()) return status;
  const bool joint = !(out.rod || out.pearl || out.soft || out.strand ||
                       out.params.kind == JointKind::kCurve);
  if (!joint && (c.has_break_force() || c.has_break_torque())) {
    return InvalidField(field + (c.has_break_force() ? ".break_force" : ".break_torque"),
                        "only a point, hinge, slider, fixed or drive joint can break");
  }
  if (auto s = BreakFromProto(c, field, &out.params); !s.ok()) return s;
  if (c.collide_connected() && (out.rod || out.pearl || out.soft || out.strand ||
                                out.params.kind == JointKind::kCurve)) {
    return InvalidField(field + ".collide_connected",
                        "only a joint between two rigid bodies can keep them colliding");
  }
  out.collide_connected = c.collide_connected();
  return out;
}

namespace {

void FramesToProto(const ConstraintDesc& c, v1::JointFrames* f) {
  f->set_body_a(c.body_a);
  PoseToProto(c.frame_a, f->mutable_frame_a());
  f->set_body_b(c.body_b);
  PoseToProto(c.frame_b, f->mutable_frame_b());
}

void LimitsToProto(const JointParams& p, v1::JointLimits* l) {
  l->set_lower(p.lower);
  l->set_upper(p.upper);
}

v1::DriveMode ModeToProto(DriveMode mode) {
  return mode == DriveMode::kVelocity ? v1::DRIVE_MODE_VELOCITY : v1::DRIVE_MODE_SPRING;
}

void JointDriveToProto(const JointParams& p, v1::JointDrive* d) {
  d->set_mode(ModeToProto(p.axis_drive.mode));
  d->set_target_position(p.target_position);
  d->set_target_velocity(p.target_velocity);
  d->set_stiffness(p.axis_drive.stiffness);
  d->set_damping(p.axis_drive.damping);
  if (std::isfinite(p.axis_drive.max_force)) d->set_max_force(p.axis_drive.max_force);
}

void AxesDriveToProto(const DriveGains& g, v1::AxesDrive* d) {
  d->set_mode(ModeToProto(g.mode));
  d->set_stiffness(g.stiffness);
  d->set_damping(g.damping);
  if (std::isfinite(g.max_force)) d->set_max_force(g.max_force);
}

}  // namespace

v1::Constraint ConstraintToProto(const ConstraintDesc& c) {
  v1::Constraint out;
  out.set_id(c.id);
  if (c.rod) {
    RodConstraintToProto(*c.rod, out.mutable_rod());
    return out;
  }
  if (c.pearl) {
    PearlToProto(*c.pearl, out.mutable_pearl());
    return out;
  }
  if (c.soft) {
    SoftConstraintToProto(*c.soft, out.mutable_soft());
    return out;
  }
  if (c.strand) {
    StrandConstraintToProto(*c.strand, out.mutable_strand());
    return out;
  }
  out.set_collide_connected(c.collide_connected);
  const JointParams& p = c.params;
  if (std::isfinite(p.break_force)) out.set_break_force(p.break_force);
  if (std::isfinite(p.break_torque)) out.set_break_torque(p.break_torque);
  switch (p.kind) {
    case JointKind::kBall: {
      v1::PointConstraint* point = out.mutable_point();
      point->set_body_a(c.body_a);
      Vec3ToProto(c.frame_a.position, point->mutable_anchor_a());
      point->set_body_b(c.body_b);
      Vec3ToProto(c.frame_b.position, point->mutable_anchor_b());
      if (p.angular_drive.on()) {
        AxesDriveToProto(p.angular_drive, point->mutable_orientation_drive());
      }
      if (!p.target_orientation.coeffs().isApprox(Quat::Identity().coeffs(), 0.0)) {
        QuatToProto(p.target_orientation, point->mutable_target_orientation());
      }
      if (!p.target_angular_velocity.isZero()) {
        Vec3ToProto(p.target_angular_velocity, point->mutable_target_angular_velocity());
      }
      break;
    }
    case JointKind::kHinge:
      FramesToProto(c, out.mutable_hinge()->mutable_frames());
      if (p.limited) LimitsToProto(p, out.mutable_hinge()->mutable_limits());
      if (p.axis_drive.on()) JointDriveToProto(p, out.mutable_hinge()->mutable_drive());
      break;
    case JointKind::kSlider:
      FramesToProto(c, out.mutable_slider()->mutable_frames());
      if (p.limited) LimitsToProto(p, out.mutable_slider()->mutable_limits());
      if (p.axis_drive.on()) JointDriveToProto(p, out.mutable_slider()->mutable_drive());
      break;
    case JointKind::kDrive: {
      v1::DriveJoint* drive = out.mutable_drive();
      FramesToProto(c, drive->mutable_frames());
      if (p.linear_drive.on()) AxesDriveToProto(p.linear_drive, drive->mutable_linear());
      if (p.angular_drive.on()) AxesDriveToProto(p.angular_drive, drive->mutable_angular());
      break;
    }
    case JointKind::kFixed:
      FramesToProto(c, out.mutable_fixed()->mutable_frames());
      break;
    case JointKind::kCurve: {
      v1::CurveConstraint* curve = out.mutable_curve();
      curve->set_body(c.body_b);
      Vec3ToProto(c.frame_b.position, curve->mutable_anchor());
      for (const Vec3& point : p.curve) Vec3ToProto(point, curve->add_points());
      curve->set_smooth(p.smooth);
      curve->set_friction(p.friction);
      curve->set_end(p.curve_end == CurveEnd::kRelease ? v1::CURVE_END_RELEASE
                                                       : v1::CURVE_END_STOP);
      break;
    }
  }
  return out;
}

}  // namespace ligature
