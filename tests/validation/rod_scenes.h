#pragma once
// Helpers for the rod validation tests: straight rods, constraints and measurements.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "server/world/rod/rod_world.h"

namespace ligature::testing {

inline const Vec3 kGravity(0.0, -9.81, 0.0);

// A straight rod from a to b.
inline RodDesc StraightRod(const std::string& id, const Vec3& a, const Vec3& b, int points,
                           const RodMaterial& material) {
  RodDesc d;
  d.id = id;
  d.points = {a, b};
  d.control_points = points;
  d.material = material;
  return d;
}

inline RodConstraintDesc Hold(const std::string& id, const std::string& rod, double u,
                              const Vec3& target) {
  RodConstraintDesc c;
  c.id = id;
  c.kind = RodConstraintKind::kPosition;
  c.a = {rod, u};
  c.target = target;
  return c;
}

// A point of a rod at u, from the world.
inline Vec3 RodPoint(const RodWorld& world, const std::string& rod, double u) {
  const RodWorld::Rod* r = world.FindRod(rod);
  return r->state.Position(r->model.spline().Sample(u));
}
inline Vec3 RodSlope(const RodWorld& world, const std::string& rod, double u) {
  const RodWorld::Rod* r = world.FindRod(rod);
  return r->state.Tangent(r->model.spline().Sample(u));
}

// The violation of one rod constraint (m; unit-free for tangents), recomputed from the rods'
// geometry rather than taken from the solver's report: the rod point at the constraint's
// arc length against its target, or against the other rod's point. `follow` is the pose of
// the body the target follows (nullptr: the target is in the world). A relative plane's
// normal is the one fixed for the step (c.direction); twist is not measured.
inline double RodConstraintViolation(const RodWorld& world, const RodConstraint& c,
                                     const Transform* follow = nullptr) {
  const RodConstraintDesc& d = c.desc;
  const Vec3 target = follow ? follow->Apply(d.target) : d.target;
  const Vec3 direction = (follow ? follow->Rotate(d.direction) : d.direction).normalized();
  const Vec3 xa = RodPoint(world, d.a.rod, c.u_a);
  auto tangent_error = [&] {
    return RodSlope(world, d.a.rod, c.u_a).normalized().cross(direction).norm();
  };
  switch (d.kind) {
    case RodConstraintKind::kPosition:
      return (xa - target).norm();
    case RodConstraintKind::kOrientation:
      return tangent_error();
    case RodConstraintKind::kPlane:
      return std::abs(direction.dot(xa - target));
    case RodConstraintKind::kAxis:
      return (xa - target).cross(direction).norm();
    case RodConstraintKind::kSphere:
      return std::abs((xa - target).norm() - d.distance);
    case RodConstraintKind::kKeyhole:
      return (xa - target).norm() + (d.oriented ? tangent_error() : 0.0);
    case RodConstraintKind::kFusion:
      return (xa - RodPoint(world, d.b.rod, c.u_b)).norm();
    case RodConstraintKind::kDistance: {
      const double g = (xa - RodPoint(world, d.b.rod, c.u_b)).norm() - d.distance;
      return d.unilateral ? std::max(0.0, -g) : std::abs(g);
    }
    case RodConstraintKind::kRelativePlane: {
      const double g = c.direction.dot(xa - RodPoint(world, d.b.rod, c.u_b)) - d.distance;
      return d.unilateral ? std::max(0.0, -g) : std::abs(g);
    }
    case RodConstraintKind::kRelativeKeyhole:
      return (xa - RodPoint(world, d.b.rod, c.u_b)).norm();
  }
  return 0.0;
}

// Linear momentum of a rod under its consistent mass: sum_i (M v)_i = sum_i m_i v_i with
// m_i = rho A int b_i du (the rows of M sum to the basis integrals).
inline Vec3 RodMomentum(const RodWorld& world, const std::string& id) {
  const RodWorld::Rod* rod = world.FindRod(id);
  const double line_density = rod->model.material().density * rod->model.area();
  std::vector<double> weight(rod->model.control_points(), 0.0);
  for (const RodQuadrature& q : rod->model.quadrature()) {
    for (int a = 0; a < 4; ++a) weight[q.basis.first + a] += q.weight * q.basis.b[a];
  }
  Vec3 p = Vec3::Zero();
  for (size_t i = 0; i < weight.size(); ++i) p += line_density * weight[i] * rod->state.v[i];
  return p;
}

// Current arc length of a rod (Gauss quadrature of |x'|).
inline double RodLength(const RodWorld& world, const std::string& rod) {
  const RodWorld::Rod* r = world.FindRod(rod);
  double length = 0.0;
  for (const RodQuadrature& q : r->model.quadrature()) {
    length += q.weight * r->state.Tangent(q.basis).norm();
  }
  return length;
}

// Sag of the inextensible catenary of length L hung between two points `span` apart at
// the same height: solve 2 a sinh(span / 2a) = L for a, sag = a (cosh(span / 2a) - 1).
inline double CatenarySag(double length, double span) {
  double lo = 1e-6, hi = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double a = std::sqrt(lo * hi);
    if (2.0 * a * std::sinh(span / (2.0 * a)) > length) lo = a; else hi = a;
  }
  const double a = std::sqrt(lo * hi);
  return a * (std::cosh(span / (2.0 * a)) - 1.0);
}

}  // namespace ligature::testing
