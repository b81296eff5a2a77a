#pragma once
// Spatial (6D) algebra in Featherstone's notation, for the strand's reduced-coordinate
// dynamics. A motion vector is [angular; linear] = [w; v], v being the velocity of the
// body-fixed point at the frame's origin; a force vector is [moment about the origin; force]
// = [n; f]. All vectors are expressed in the coordinates of one link frame.

#include "server/math/types.h"

namespace ligature::spatial {

inline Vec3 Top(const Vec6& x) { return x.head<3>(); }
inline Vec3 Bottom(const Vec6& x) { return x.tail<3>(); }
inline Vec6 Join(const Vec3& top, const Vec3& bottom) {
  Vec6 out;
  out << top, bottom;
  return out;
}

// v x m for motion vectors (how a motion vector changes when carried by velocity v).
inline Vec6 CrossMotion(const Vec6& v, const Vec6& m) {
  const Vec3 w = Top(v), u = Bottom(v);
  return Join(w.cross(Top(m)), w.cross(Bottom(m)) + u.cross(Top(m)));
}

// v x* f for force vectors.
inline Vec6 CrossForce(const Vec6& v, const Vec6& f) {
  const Vec3 w = Top(v), u = Bottom(v);
  return Join(w.cross(Top(f)) + u.cross(Bottom(f)), w.cross(Bottom(f)));
}

// The coordinate transform from a parent frame to a child frame whose origin sits at `r`
// (parent coordinates) and whose axes are the columns of E^T: E maps parent coordinates
// to child coordinates.
struct Transform6 {
  Mat3 E = Mat3::Identity();
  Vec3 r = Vec3::Zero();

  // A motion vector from parent to child coordinates.
  Vec6 Motion(const Vec6& m) const {
    return Join(E * Top(m), E * (Bottom(m) - r.cross(Top(m))));
  }
  // A motion vector from child to parent coordinates.
  Vec6 InverseMotion(const Vec6& m) const {
    const Vec3 w = E.transpose() * Top(m);
    return Join(w, E.transpose() * Bottom(m) + r.cross(w));
  }
  // A force vector from child to parent coordinates (X^T f).
  Vec6 ForceToParent(const Vec6& f) const {
    const Vec3 n = E.transpose() * Top(f), g = E.transpose() * Bottom(f);
    return Join(n + r.cross(g), g);
  }
  // The 6x6 matrix of Motion().
  Mat6 MotionMatrix() const {
    Mat6 x = Mat6::Zero();
    x.topLeftCorner<3, 3>() = E;
    x.bottomRightCorner<3, 3>() = E;
    x.bottomLeftCorner<3, 3>() = -E * Skew(r);
    return x;
  }
};

// A 6x6 articulated inertia seen from the parent: X^T I X.
inline Mat6 InertiaToParent(const Transform6& x, const Mat6& inertia) {
  const Mat6 m = x.MotionMatrix();
  return m.transpose() * inertia * m;
}

// The spatial inertia, about the frame origin, of a point mass (or of a linear drag/spring
// acting at a point, which has the same shape) of size `m` at `c`.
inline Mat6 PointInertia(double m, const Vec3& c) {
  const Mat3 cx = Skew(c);
  Mat6 out;
  out.topLeftCorner<3, 3>() = -m * cx * cx;
  out.topRightCorner<3, 3>() = m * cx;
  out.bottomLeftCorner<3, 3>() = -m * cx;
  out.bottomRightCorner<3, 3>() = m * Mat3::Identity();
  return out;
}

// The spatial inertia about the frame origin of a body of mass m, centre of mass c and
// rotational inertia ic about its centre of mass.
inline Mat6 BodyInertia(double m, const Vec3& c, const Mat3& ic) {
  Mat6 out = PointInertia(m, c);
  out.topLeftCorner<3, 3>() += ic;
  return out;
}

// The spatial force, about the frame origin, of a force `f` acting at point `p`.
inline Vec6 ForceAt(const Vec3& p, const Vec3& f) { return Join(p.cross(f), f); }

// Classical (non-spatial) velocity of the body point p, from the spatial velocity v.
inline Vec3 PointVelocity(const Vec6& v, const Vec3& p) { return Bottom(v) + Top(v).cross(p); }

// Classical acceleration of the body point p, from the spatial velocity v and acceleration a.
inline Vec3 PointAcceleration(const Vec6& v, const Vec6& a, const Vec3& p) {
  return Bottom(a) + Top(a).cross(p) + Top(v).cross(PointVelocity(v, p));
}

}  // namespace ligature::spatial
