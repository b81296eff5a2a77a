#include "server/scene/strand_proto.h"

#include <cmath>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "server/scene/field_error.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

constexpr int kMaxPoints = 10000;
constexpr double kMaxTimeScale = 100.0;

// A finite value >= 0 (> 0 when `positive`).
absl::Status CheckValue(double value, bool positive, const std::string& field) {
  if (!std::isfinite(value) || value < 0.0 || (positive && value == 0.0)) {
    return InvalidField(field, positive ? "must be finite and > 0" : "must be finite and >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<StrandMaterial> MaterialFromProto(const v1::StrandMaterial& m,
                                                 const std::string& field) {
  StrandMaterial out;
  if (m.has_mass_per_length()) out.mass_per_length = m.mass_per_length();
  if (m.has_radius()) out.radius = m.radius();
  out.bend_rigidity_x = m.bend_stiffness_x();
  out.bend_rigidity_z = m.bend_stiffness_y();
  out.bend_damping_x = out.bend_damping_z = m.bend_damping();
  out.twist_rigidity = m.twist_stiffness();
  out.twist_damping = m.twist_damping();
  out.drag = m.air_drag();
  const struct {
    double value;
    bool positive;
    const char* name;
  } fields[] = {
      {out.mass_per_length, true, "mass_per_length"},
      {out.radius, true, "radius"},
      {m.bend_stiffness_x(), false, "bend_stiffness_x"},
      {m.bend_stiffness_y(), false, "bend_stiffness_y"},
      {m.bend_damping(), false, "bend_damping"},
      {m.twist_stiffness(), false, "twist_stiffness"},
      {m.twist_damping(), false, "twist_damping"},
      {m.air_drag(), false, "air_drag"},
  };
  for (const auto& f : fields) {
    if (absl::Status s = CheckValue(f.value, f.positive, absl::StrCat(field, ".", f.name));
        !s.ok()) {
      return s;
    }
  }
  return out;
}

void MaterialToProto(const StrandMaterial& m, v1::StrandMaterial* out) {
  out->set_mass_per_length(m.mass_per_length);
  out->set_radius(m.radius);
  out->set_bend_stiffness_x(m.bend_rigidity_x);
  out->set_bend_stiffness_y(m.bend_rigidity_z);
  out->set_bend_damping(m.bend_damping_x);
  out->set_twist_stiffness(m.twist_rigidity);
  out->set_twist_damping(m.twist_damping);
  out->set_air_drag(m.drag);
}

}  // namespace

absl::StatusOr<StrandBodyDesc> StrandFromProto(const v1::Strand& s, const Transform& pose,
                                               const std::string& field) {
  StrandBodyDesc out;
  out.pose = pose;
  // The rest curve and its tree.
  if (s.points_size() < 2 || s.points_size() > kMaxPoints) {
    return InvalidField(field + ".points", absl::StrCat("must hold 2 to ", kMaxPoints, " points"));
  }
  for (int i = 0; i < s.points_size(); ++i) {
    auto p = PositionFromProto(s.points(i), absl::StrCat(field, ".points[", i, "]"));
    if (!p.ok()) return p.status();
    out.strand.points.push_back(*p);
  }
  const int segments = s.points_size() - 1;
  if (s.parents_size() != 0 && s.parents_size() != segments) {
    return InvalidField(field + ".parents",
                   absl::StrCat("must be empty or hold one parent per segment (", segments, ")"));
  }
  for (int i = 0; i < s.parents_size(); ++i) {
    if (s.parents(i) < -1 || s.parents(i) >= i) {
      return InvalidField(absl::StrCat(field, ".parents[", i, "]"),
                     "must be -1 (the base) or a smaller segment index");
    }
    out.strand.parents.push_back(s.parents(i));
  }
  // Materials: one for all, or one per segment.
  if (s.segment_materials_size() == 0) {
    auto m = MaterialFromProto(s.material(), field + ".material");
    if (!m.ok()) return m.status();
    out.strand.materials = {*m};
  } else {
    if (s.segment_materials_size() != segments) {
      return InvalidField(field + ".segment_materials",
                     absl::StrCat("must be empty or hold one material per segment (", segments,
                                  ")"));
    }
    out.strand.materials.clear();
    for (int i = 0; i < segments; ++i) {
      auto m = MaterialFromProto(s.segment_materials(i),
                                 absl::StrCat(field, ".segment_materials[", i, "]"));
      if (!m.ok()) return m.status();
      out.strand.materials.push_back(*m);
    }
  }
  // The model's own checks (zero-length segments) name points and parents like the proto.
  if (absl::StatusOr<StrandModel> model = StrandModel::Make(out.strand); !model.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".", model.status().message()));
  }
  // Art direction.
  out.time_scale = s.has_time_scale() ? s.time_scale() : 1.0;
  if (!std::isfinite(out.time_scale) || out.time_scale < 0.0 || out.time_scale > kMaxTimeScale) {
    return InvalidField(field + ".time_scale", absl::StrCat("must be in [0, ", kMaxTimeScale, "]"));
  }
  if (!(s.local_dynamics() >= 0.0 && s.local_dynamics() <= 1.0)) {
    return InvalidField(field + ".local_dynamics", "must be in [0, 1]");
  }
  out.local_dynamics = s.local_dynamics();
  if (!s.local_dynamics_body().empty()) {
    if (auto st = ValidateId(s.local_dynamics_body(), field + ".local_dynamics_body"); !st.ok()) {
      return st;
    }
  }
  out.local_dynamics_body = s.local_dynamics_body();
  if (auto st = CheckValue(s.pose_strength(), false, field + ".pose_strength"); !st.ok()) return st;
  if (auto st = CheckValue(s.pose_damping(), false, field + ".pose_damping"); !st.ok()) return st;
  out.pose_strength = s.pose_strength();
  out.pose_damping = s.pose_damping();
  out.zero_gravity_rest_shape = s.zero_gravity_rest_shape();
  // The base and contacts.
  if (!s.follow_body().empty()) {
    if (auto st = ValidateId(s.follow_body(), field + ".follow_body"); !st.ok()) return st;
  }
  out.follow_body = s.follow_body();
  if (s.has_friction()) {
    if (auto st = CheckValue(s.friction(), false, field + ".friction"); !st.ok()) return st;
    out.friction = s.friction();
  }
  if (!(s.restitution() >= 0.0 && s.restitution() <= 1.0)) {
    return InvalidField(field + ".restitution", "must be in [0, 1]");
  }
  out.restitution = s.restitution();
  if (s.has_wind()) {
    absl::StatusOr<Vec3> wind = Vec3FromProto(s.wind(), field + ".wind");
    if (!wind.ok()) return wind.status();
    out.wind = *wind;
  }
  return out;
}

void StrandToProto(const StrandBodyDesc& d, v1::Strand* out) {
  for (const Vec3& p : d.strand.points) Vec3ToProto(p, out->add_points());
  for (const int p : d.strand.parents) out->add_parents(p);
  if (d.strand.materials.size() == 1) {
    MaterialToProto(d.strand.materials.front(), out->mutable_material());
  } else {
    for (const StrandMaterial& m : d.strand.materials) {
      MaterialToProto(m, out->add_segment_materials());
    }
  }
  out->set_time_scale(d.time_scale);
  out->set_local_dynamics(d.local_dynamics);
  out->set_local_dynamics_body(d.local_dynamics_body);
  out->set_pose_strength(d.pose_strength);
  out->set_pose_damping(d.pose_damping);
  out->set_zero_gravity_rest_shape(d.zero_gravity_rest_shape);
  out->set_follow_body(d.follow_body);
  out->set_friction(d.friction);
  out->set_restitution(d.restitution);
  if (!d.wind.isZero(0.0)) Vec3ToProto(d.wind, out->mutable_wind());
}

absl::StatusOr<StrandConstraintDesc> StrandConstraintFromProto(const v1::StrandConstraint& c,
                                                               const std::string& field) {
  StrandConstraintDesc out;
  if (absl::Status s = ValidateId(c.body(), field + ".body"); !s.ok()) return s;
  out.body = c.body();
  if (c.segment() < 0) return InvalidField(field + ".segment", "must be >= 0");
  out.segment = c.segment();
  absl::StatusOr<Vec3> point = PositionFromProto(c.point(), field + ".point");
  if (!point.ok()) return point.status();
  out.point = *point;
  switch (c.kind()) {
    case v1::STRAND_CONSTRAINT_KIND_POINT: {
      out.kind = StrandConstraintKind::kPoint;
      absl::StatusOr<Vec3> target = PositionFromProto(c.target(), field + ".target");
      if (!target.ok()) return target.status();
      out.target = *target;
      if (!c.follow_body().empty()) {
        if (absl::Status s = ValidateId(c.follow_body(), field + ".follow_body"); !s.ok()) {
          return s;
        }
      }
      out.follow_body = c.follow_body();
      break;
    }
    case v1::STRAND_CONSTRAINT_KIND_CURVE:
      out.kind = StrandConstraintKind::kCurve;
      if (c.curve_size() < 2 || c.curve_size() > kMaxPoints) {
        return InvalidField(field + ".curve",
                            absl::StrCat("must hold 2 to ", kMaxPoints, " points"));
      }
      for (int i = 0; i < c.curve_size(); ++i) {
        const std::string at = absl::StrCat(field, ".curve[", i, "]");
        absl::StatusOr<Vec3> p = PositionFromProto(c.curve(i), at);
        if (!p.ok()) return p.status();
        if (i > 0 && (*p - out.curve.back()).norm() < 1e-9) {
          return InvalidField(at, "repeats the previous point: segments need a length");
        }
        out.curve.push_back(*p);
      }
      break;
    case v1::STRAND_CONSTRAINT_KIND_JOINT_VALUE: {
      out.kind = StrandConstraintKind::kJointValue;
      absl::StatusOr<Quat> joint = QuatFromProto(c.joint(), field + ".joint");
      if (!joint.ok()) return joint.status();
      out.joint = *joint;
      break;
    }
    case v1::STRAND_CONSTRAINT_KIND_JOINT_LIMIT:
      out.kind = StrandConstraintKind::kJointLimit;
      if (!(c.max_bend() > 0.0 && c.max_bend() < std::numbers::pi)) {
        return InvalidField(field + ".max_bend", "must be in (0, pi) rad");
      }
      out.max_bend = c.max_bend();
      if (c.has_margin()) {
        if (absl::Status s = CheckValue(c.margin(), false, field + ".margin"); !s.ok()) return s;
        out.margin = c.margin();
      }
      break;
    default:
      return InvalidField(field + ".kind", "must be POINT, CURVE, JOINT_VALUE or JOINT_LIMIT");
  }
  return out;
}

void StrandConstraintToProto(const StrandConstraintDesc& c, v1::StrandConstraint* out) {
  out->set_body(c.body);
  out->set_segment(c.segment);
  if (!c.point.isZero(0.0)) Vec3ToProto(c.point, out->mutable_point());
  switch (c.kind) {
    case StrandConstraintKind::kPoint:
      out->set_kind(v1::STRAND_CONSTRAINT_KIND_POINT);
      Vec3ToProto(c.target, out->mutable_target());
      out->set_follow_body(c.follow_body);
      break;
    case StrandConstraintKind::kCurve:
      out->set_kind(v1::STRAND_CONSTRAINT_KIND_CURVE);
      for (const Vec3& p : c.curve) Vec3ToProto(p, out->add_curve());
      break;
    case StrandConstraintKind::kJointValue: {
      out->set_kind(v1::STRAND_CONSTRAINT_KIND_JOINT_VALUE);
      v1::Quaternion* q = out->mutable_joint();
      q->set_x(c.joint.x());
      q->set_y(c.joint.y());
      q->set_z(c.joint.z());
      q->set_w(c.joint.w());
      break;
    }
    case StrandConstraintKind::kJointLimit:
      out->set_kind(v1::STRAND_CONSTRAINT_KIND_JOINT_LIMIT);
      out->set_max_bend(c.max_bend);
      out->set_margin(c.margin);
      break;
  }
}

}  // namespace ligature
