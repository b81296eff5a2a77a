#pragma once
// Helpers shared by the collision tests: poses, rotations and manifold sanity checks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "server/collision/contact.h"
#include "server/math/transform.h"

namespace ligature::collision_testing {

inline constexpr double kTol = 1e-9;

inline Quat AxisAngleDeg(const Vec3& axis, double degrees) {
  return Quat(Eigen::AngleAxisd(degrees * std::numbers::pi / 180.0, axis.normalized()));
}

inline Transform Pose(const Vec3& position, const Quat& orientation = Quat::Identity()) {
  Transform t;
  t.position = position;
  t.orientation = orientation;
  return t;
}

// A capsule lying along world X (its local Y turned onto X).
inline Quat AlongX() { return AxisAngleDeg(Vec3::UnitZ(), -90.0); }
// A capsule lying along world Z.
inline Quat AlongZ() { return AxisAngleDeg(Vec3::UnitX(), 90.0); }

// Every point finite with a unit normal and a distance below the margin.
inline void ExpectWellFormed(const ContactManifold& m, double margin) {
  ASSERT_GE(m.count, 0);
  ASSERT_LE(m.count, ContactManifold::kMaxPoints);
  for (int i = 0; i < m.count; ++i) {
    const ContactPoint& p = m.points[i];
    EXPECT_TRUE(p.position.allFinite()) << "point " << i;
    EXPECT_TRUE(p.normal.allFinite()) << "point " << i;
    EXPECT_TRUE(std::isfinite(p.distance)) << "point " << i;
    EXPECT_NEAR(p.normal.norm(), 1.0, 1e-9) << "point " << i;
    EXPECT_LT(p.distance, margin) << "point " << i;
  }
}

// The point of `m` closest to `position`, or nullptr when there are none.
inline const ContactPoint* NearestPoint(const ContactManifold& m, const Vec3& position) {
  const ContactPoint* best = nullptr;
  for (int i = 0; i < m.count; ++i) {
    if (best == nullptr ||
        (m.points[i].position - position).norm() < (best->position - position).norm()) {
      best = &m.points[i];
    }
  }
  return best;
}

// Expects a point at `position` (within tol) with the given normal and distance.
inline void ExpectHasPoint(const ContactManifold& m, const Vec3& position, const Vec3& normal,
                           double distance, double tol = 1e-9) {
  const ContactPoint* p = NearestPoint(m, position);
  ASSERT_NE(p, nullptr) << "no points";
  EXPECT_LT((p->position - position).norm(), tol)
      << "expected point at " << position.transpose() << ", nearest is " << p->position.transpose();
  EXPECT_LT((p->normal - normal).norm(), tol)
      << "normal " << p->normal.transpose() << " expected " << normal.transpose();
  EXPECT_NEAR(p->distance, distance, tol);
}

inline double MinDistance(const ContactManifold& m) {
  double d = std::numeric_limits<double>::infinity();
  for (int i = 0; i < m.count; ++i) d = std::min(d, m.points[i].distance);
  return d;
}

// Reference distance between two convex sets given by their projection functions, by
// alternating projections (converges to a closest pair; zero when they intersect).
template <typename ProjectA, typename ProjectB>
double AlternatingProjectionDistance(ProjectA project_a, ProjectB project_b, Vec3 start,
                                     int iterations = 20000) {
  Vec3 on_b = project_b(start);
  Vec3 on_a = project_a(on_b);
  for (int i = 0; i < iterations; ++i) {
    const Vec3 next_b = project_b(on_a);
    const Vec3 next_a = project_a(next_b);
    const bool settled = (next_a - on_a).norm() + (next_b - on_b).norm() < 1e-15;
    on_a = next_a;
    on_b = next_b;
    if (settled) break;  // a fixed point: the sets' closest pair (or a common point)
  }
  return (on_b - on_a).norm();
}

// Projection onto a solid box (half extents `half`) at `pose`.
inline Vec3 ProjectOntoBox(const Vec3& p, const Vec3& half, const Transform& pose) {
  return pose.Apply(pose.InverseApply(p).cwiseMax(-half).cwiseMin(half));
}

// Projection onto the segment [a, b].
inline Vec3 ProjectOntoSegment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double len2 = d.squaredNorm();
  if (len2 == 0.0) return a;
  return a + std::clamp((p - a).dot(d) / len2, 0.0, 1.0) * d;
}

}  // namespace ligature::collision_testing
