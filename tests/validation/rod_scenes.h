#pragma once
// Helpers for the rod validation tests: straight rods, constraints and measurements.

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
