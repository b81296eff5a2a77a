#pragma once
// The joint stiffness and damping model (eq. 18 of the oriented-strands formulation).
//
// The joint's rotation away from rest, D = rest^-1 * q (in the rest frame of the segment,
// whose y-axis is the segment axis), is split into a twist T about y followed by a swing
// (pure bend) S about an axis b perpendicular to y: D = S * T. The response is
//   bend:  Q_b = 2 K_b(b) tan(theta_b / 2) b,   K_b(b) = K_x b_x^2 + K_z b_z^2
//   twist: Q_t = 2 K_t tan(theta_t / 2) y
// and the joint torque (on the segment, in its own coordinates) is -(Q_b + Q_t), with b
// carried into segment coordinates (T^-1 b). Choices where the paper is open:
//  - theta - theta0 is read as the angle of the rotation relative to rest (angles of bends
//    about different axes do not subtract);
//  - the factor 2 makes K the small-angle slope (N m / rad), so "stiffness" keeps its usual
//    meaning, while tan still stiffens without bound towards a half turn;
//  - the anisotropic K_b(b) interpolates the two principal bend stiffnesses by the bend
//    axis' components (an ellipse in the inverse);
//  - damping is diagonal in segment coordinates: -(d_x w_x, d_y w_y, d_z w_z).
// The matching energy, exact for bending about a fixed axis and for twist alone, is
// -4 K ln cos(theta / 2) per part.

#include "server/math/types.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

struct JointDeflection {
  double bend_angle = 0.0;      // rad, in [0, pi]
  Vec3 bend_axis = Vec3::UnitX();  // unit, rest-frame coordinates, perpendicular to y
  double twist_angle = 0.0;     // rad, in (-pi, pi]
  Quat twist = Quat::Identity();
};

// The swing-twist split of rest^-1 * q.
JointDeflection Deflection(const Quat& rest, const Quat& q);

// Elastic joint torque (segment coordinates) and its energy.
Vec3 SpringTorque(const StrandSegment& seg, const Quat& q);
double SpringEnergy(const StrandSegment& seg, const Quat& q);

// Damping torque for the joint velocity w (segment coordinates).
inline Vec3 DampingTorque(const StrandSegment& seg, const Vec3& w) {
  return -seg.damping.cwiseProduct(w);
}

// d SpringTorque / d phi for q * exp(phi), by central differences (3x3, per joint).
Mat3 SpringJacobian(const StrandSegment& seg, const Quat& q);

// The joint's block of the implicit (backward Euler) system: h^2 K + h D, with K the
// symmetric positive semi-definite part of -SpringJacobian (so the block only ever adds
// inertia) and D the damping.
Mat3 ImplicitJointBlock(const StrandSegment& seg, const Quat& q, double h);

}  // namespace ligature
