#include "server/scene/rod_proto.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/scene/field_error.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

constexpr int kMaxRodPoints = 10000;

// An optional positive value, or its default.
absl::StatusOr<double> PositiveOr(bool present, double value, double fallback,
                                  const std::string& field) {
  if (!present) return fallback;
  if (!std::isfinite(value) || value <= 0.0) return InvalidField(field, "must be > 0");
  return value;
}
absl::StatusOr<double> NonNegative(double value, const std::string& field) {
  if (!std::isfinite(value) || value < 0.0) return InvalidField(field, "must be >= 0");
  return value;
}

absl::StatusOr<RodMaterial> RodMaterialFromProto(const v1::RodMaterial& m,
                                                 const std::string& field) {
  RodMaterial out;
  auto radius = PositiveOr(m.has_radius(), m.radius(), out.radius, field + ".radius");
  auto density = PositiveOr(m.has_density(), m.density(), out.density, field + ".density");
  auto young = PositiveOr(m.has_young_modulus(), m.young_modulus(), out.young,
                          field + ".young_modulus");
  auto shear = PositiveOr(m.has_shear_modulus(), m.shear_modulus(), out.shear,
                          field + ".shear_modulus");
  auto damping = NonNegative(m.damping(), field + ".damping");
  auto stiffness_damping = NonNegative(m.stiffness_damping(), field + ".stiffness_damping");
  for (const auto* v : {&radius, &density, &young, &shear, &damping, &stiffness_damping}) {
    if (!v->ok()) return v->status();
  }
  out.radius = *radius;
  out.density = *density;
  out.young = *young;
  out.shear = *shear;
  out.damping = *damping;
  out.stiffness_damping = *stiffness_damping;
  return out;
}

absl::StatusOr<RodPointRef> RodPointFromProto(const v1::RodPoint& p, const std::string& field) {
  if (auto s = ValidateId(p.body(), field + ".body"); !s.ok()) return s;
  if (!std::isfinite(p.u()) || p.u() < 0.0) return InvalidField(field + ".u", "must be >= 0 m");
  return RodPointRef{p.body(), p.u()};
}

absl::StatusOr<RodConstraintKind> KindFromProto(v1::RodConstraintKind kind,
                                                const std::string& field) {
  switch (kind) {
    case v1::ROD_CONSTRAINT_KIND_POSITION: return RodConstraintKind::kPosition;
    case v1::ROD_CONSTRAINT_KIND_ORIENTATION: return RodConstraintKind::kOrientation;
    case v1::ROD_CONSTRAINT_KIND_PLANE: return RodConstraintKind::kPlane;
    case v1::ROD_CONSTRAINT_KIND_AXIS: return RodConstraintKind::kAxis;
    case v1::ROD_CONSTRAINT_KIND_SPHERE: return RodConstraintKind::kSphere;
    case v1::ROD_CONSTRAINT_KIND_KEYHOLE: return RodConstraintKind::kKeyhole;
    case v1::ROD_CONSTRAINT_KIND_FUSION: return RodConstraintKind::kFusion;
    case v1::ROD_CONSTRAINT_KIND_DISTANCE: return RodConstraintKind::kDistance;
    case v1::ROD_CONSTRAINT_KIND_RELATIVE_PLANE: return RodConstraintKind::kRelativePlane;
    case v1::ROD_CONSTRAINT_KIND_RELATIVE_KEYHOLE: return RodConstraintKind::kRelativeKeyhole;
    default: return InvalidField(field, "a rod constraint kind is required");
  }
}

v1::RodConstraintKind KindToProto(RodConstraintKind kind) {
  switch (kind) {
    case RodConstraintKind::kPosition: return v1::ROD_CONSTRAINT_KIND_POSITION;
    case RodConstraintKind::kOrientation: return v1::ROD_CONSTRAINT_KIND_ORIENTATION;
    case RodConstraintKind::kPlane: return v1::ROD_CONSTRAINT_KIND_PLANE;
    case RodConstraintKind::kAxis: return v1::ROD_CONSTRAINT_KIND_AXIS;
    case RodConstraintKind::kSphere: return v1::ROD_CONSTRAINT_KIND_SPHERE;
    case RodConstraintKind::kKeyhole: return v1::ROD_CONSTRAINT_KIND_KEYHOLE;
    case RodConstraintKind::kFusion: return v1::ROD_CONSTRAINT_KIND_FUSION;
    case RodConstraintKind::kDistance: return v1::ROD_CONSTRAINT_KIND_DISTANCE;
    case RodConstraintKind::kRelativePlane: return v1::ROD_CONSTRAINT_KIND_RELATIVE_PLANE;
    case RodConstraintKind::kRelativeKeyhole: return v1::ROD_CONSTRAINT_KIND_RELATIVE_KEYHOLE;
  }
  return v1::ROD_CONSTRAINT_KIND_UNSPECIFIED;
}

}  // namespace

absl::StatusOr<RodDesc> RodFromProto(const v1::Rod& rod, const std::string& field) {
  RodDesc out;
  if (rod.points_size() < 2 || rod.points_size() > kMaxRodPoints) {
    return InvalidField(field + ".points",
                        absl::StrCat("must hold 2 to ", kMaxRodPoints, " points"));
  }
  for (int i = 0; i < rod.points_size(); ++i) {
    auto p = PositionFromProto(rod.points(i), absl::StrCat(field, ".points[", i, "]"));
    if (!p.ok()) return p.status();
    out.points.push_back(*p);
  }
  if (rod.control_points() != 0 && (rod.control_points() < 4 || rod.control_points() > 4000)) {
    return InvalidField(field + ".control_points", "must be 0 (automatic) or in [4, 4000]");
  }
  out.control_points = rod.control_points();
  if (rod.rest_points_size() == 1 || rod.rest_points_size() > kMaxRodPoints) {
    return InvalidField(field + ".rest_points",
                   absl::StrCat("must be empty or hold 2 to ", kMaxRodPoints, " points"));
  }
  for (int i = 0; i < rod.rest_points_size(); ++i) {
    auto p = PositionFromProto(rod.rest_points(i), absl::StrCat(field, ".rest_points[", i, "]"));
    if (!p.ok()) return p.status();
    out.rest_points.push_back(*p);
  }
  if (!std::isfinite(rod.rest_twist()))
    return InvalidField(field + ".rest_twist", "must be finite");
  out.rest_twist = rod.rest_twist();
  out.rod_contact = rod.rod_contact();
  if (rod.has_friction()) {
    auto friction = NonNegative(rod.friction(), field + ".friction");
    if (!friction.ok()) return friction.status();
    out.friction = *friction;
  }
  auto material = RodMaterialFromProto(rod.material(), field + ".material");
  if (!material.ok()) return material.status();
  out.material = *material;
  // The shape itself (length > 0) is checked when the model is built.
  if (auto model = RodModel::Make(out); !model.ok()) {
    const bool rest = absl::StartsWith(model.status().message(), "rest_points");
    return InvalidField(field + (rest ? ".rest_points" : ".points"), model.status().message());
  }
  return out;
}

absl::StatusOr<RodConstraintDesc> RodConstraintFromProto(const v1::RodConstraint& c,
                                                         const std::string& field) {
  RodConstraintDesc out;
  auto kind = KindFromProto(c.kind(), field + ".kind");
  if (!kind.ok()) return kind.status();
  out.kind = *kind;
  auto a = RodPointFromProto(c.a(), field + ".a");
  if (!a.ok()) return a.status();
  out.a = *a;
  if (IsRelative(out.kind)) {
    auto b = RodPointFromProto(c.b(), field + ".b");
    if (!b.ok()) return b.status();
    out.b = *b;
  }
  auto target = PositionFromProto(c.target(), field + ".target");
  if (!target.ok()) return target.status();
  out.target = *target;
  auto direction = Vec3FromProto(c.direction(), field + ".direction");
  if (!direction.ok()) return direction.status();
  out.direction = *direction;
  if (!std::isfinite(c.distance())) return InvalidField(field + ".distance", "not finite");
  out.distance = c.distance();
  if (c.has_twist()) {
    if (!std::isfinite(c.twist())) return InvalidField(field + ".twist", "not finite");
    out.twist = c.twist();
  }
  out.unilateral = c.unilateral();
  out.normal_from_tangent = c.normal_from_tangent();
  out.oriented = c.oriented();
  auto friction = NonNegative(c.friction(), field + ".friction");
  if (!friction.ok()) return friction.status();
  out.friction = *friction;
  if (!c.follow_body().empty()) {
    if (IsRelative(out.kind)) {
      return InvalidField(field + ".follow_body", "only absolute constraints follow a body");
    }
    if (auto s = ValidateId(c.follow_body(), field + ".follow_body"); !s.ok()) return s;
  }
  out.follow_body = c.follow_body();
  return out;
}

absl::StatusOr<PearlDesc> PearlFromProto(const v1::Pearl& p, const std::string& field) {
  PearlDesc out;
  auto at = RodPointFromProto(p.at(), field + ".at");
  if (!at.ok()) return at.status();
  out.rod = at->rod;
  out.u = at->u;
  if (!std::isfinite(p.mass()) || p.mass() <= 0.0)
    return InvalidField(field + ".mass", "must be > 0");
  out.mass = p.mass();
  auto radius = NonNegative(p.radius(), field + ".radius");
  auto friction = NonNegative(p.friction(), field + ".friction");
  auto viscous = NonNegative(p.viscous(), field + ".viscous");
  for (const auto* v : {&radius, &friction, &viscous}) {
    if (!v->ok()) return v->status();
  }
  out.radius = *radius;
  out.friction = *friction;
  out.viscous = *viscous;
  if (!std::isfinite(p.speed()) || std::abs(p.speed()) > 1e5) {
    return InvalidField(field + ".speed", "must be finite, at most 1e5 m/s");
  }
  out.speed = p.speed();
  return out;
}

void RodToProto(const RodDesc& rod, v1::Rod* out) {
  for (const Vec3& p : rod.points) Vec3ToProto(p, out->add_points());
  out->set_control_points(rod.control_points);
  for (const Vec3& p : rod.rest_points) Vec3ToProto(p, out->add_rest_points());
  out->set_rest_twist(rod.rest_twist);
  out->set_rod_contact(rod.rod_contact);
  out->set_friction(rod.friction);
  v1::RodMaterial* m = out->mutable_material();
  m->set_radius(rod.material.radius);
  m->set_density(rod.material.density);
  m->set_young_modulus(rod.material.young);
  m->set_shear_modulus(rod.material.shear);
  m->set_damping(rod.material.damping);
  m->set_stiffness_damping(rod.material.stiffness_damping);
}

void RodConstraintToProto(const RodConstraintDesc& c, v1::RodConstraint* out) {
  out->set_kind(KindToProto(c.kind));
  out->mutable_a()->set_body(c.a.rod);
  out->mutable_a()->set_u(c.a.u);
  if (IsRelative(c.kind)) {
    out->mutable_b()->set_body(c.b.rod);
    out->mutable_b()->set_u(c.b.u);
  }
  Vec3ToProto(c.target, out->mutable_target());
  Vec3ToProto(c.direction, out->mutable_direction());
  out->set_distance(c.distance);
  if (c.twist) out->set_twist(*c.twist);
  out->set_unilateral(c.unilateral);
  out->set_normal_from_tangent(c.normal_from_tangent);
  out->set_oriented(c.oriented);
  out->set_friction(c.friction);
  out->set_follow_body(c.follow_body);
}

void PearlToProto(const PearlDesc& p, v1::Pearl* out) {
  out->mutable_at()->set_body(p.rod);
  out->mutable_at()->set_u(p.u);
  out->set_mass(p.mass);
  out->set_radius(p.radius);
  out->set_friction(p.friction);
  out->set_viscous(p.viscous);
  out->set_speed(p.speed);
}

}  // namespace ligature
