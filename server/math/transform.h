#pragma once
// A rigid transform (rotation then translation) and the small-rotation update used by integrators.

#include "server/math/types.h"

namespace ligature {

struct Transform {
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();

  Vec3 Apply(const Vec3& local) const { return position + orientation * local; }
  Vec3 Rotate(const Vec3& local) const { return orientation * local; }
  Vec3 InverseApply(const Vec3& world) const {
    return orientation.conjugate() * (world - position);
  }
  Vec3 InverseRotate(const Vec3& world) const { return orientation.conjugate() * world; }
  Transform operator*(const Transform& child) const {
    return {Apply(child.position), orientation * child.orientation};
  }
};

// Rotates q by the rotation vector theta (axis * angle, rad) and renormalizes.
inline Quat Rotated(const Quat& q, const Vec3& theta) {
  const double angle = theta.norm();
  if (angle < 1e-12) return q;
  Quat r(Eigen::AngleAxisd(angle, theta / angle));
  Quat out = r * q;
  out.normalize();
  return out;
}

// The rotation vector (axis * angle, rad, the angle in [0, pi]) that turns `from` into
// `to`: Rotated(from, RotationBetween(from, to)) is `to`.
inline Vec3 RotationBetween(const Quat& from, const Quat& to) {
  Quat delta = to * from.conjugate();
  if (delta.w() < 0.0) delta.coeffs() = -delta.coeffs();
  const Eigen::AngleAxisd turn(delta);
  return turn.angle() * turn.axis();
}

}  // namespace ligature
