#include "server/scene/constraint_proto.h"

#include <cmath>

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
      break;
    case v1::Constraint::kSlider:
      out.params.kind = JointKind::kSlider;
      status = FramesFromProto(c.slider().frames(), field + ".slider.frames", &out);
      if (status.ok()) {
        status = LimitsFromProto(c.slider().has_limits(), c.slider().limits(),
                                 field + ".slider.limits", &out.params);
      }
      break;
    case v1::Constraint::kFixed:
      out.params.kind = JointKind::kFixed;
      status = FramesFromProto(c.fixed().frames(), field + ".fixed.frames", &out);
      break;
    case v1::Constraint::kCurve:
      status = CurveFromProto(c.curve(), field + ".curve", &out);
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
                     "a constraint kind (point, hinge, slider, fixed, curve, rod, pearl, soft, "
                     "strand) "
                     "is required");
  }
  if (!status.ok()) return status;
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
  switch (p.kind) {
    case JointKind::kBall: {
      v1::PointConstraint* point = out.mutable_point();
      point->set_body_a(c.body_a);
      Vec3ToProto(c.frame_a.position, point->mutable_anchor_a());
      point->set_body_b(c.body_b);
      Vec3ToProto(c.frame_b.position, point->mutable_anchor_b());
      break;
    }
    case JointKind::kHinge:
      FramesToProto(c, out.mutable_hinge()->mutable_frames());
      if (p.limited) LimitsToProto(p, out.mutable_hinge()->mutable_limits());
      break;
    case JointKind::kSlider:
      FramesToProto(c, out.mutable_slider()->mutable_frames());
      if (p.limited) LimitsToProto(p, out.mutable_slider()->mutable_limits());
      break;
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
