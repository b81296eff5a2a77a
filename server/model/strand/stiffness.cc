#include "server/model/strand/stiffness.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "server/model/strand/strand_state.h"

namespace ligature {
namespace {

// Half-angle tangents are capped so a joint driven to a half turn gives a huge but finite
// torque instead of an infinity.
constexpr double kMaxHalfTangent = 1e4;

double CappedRatio(double num, double den) {
  if (std::abs(num) >= kMaxHalfTangent * std::abs(den)) {
    return num >= 0.0 ? kMaxHalfTangent : -kMaxHalfTangent;
  }
  return num / den;
}

// Bend stiffness for bending about the rest-frame axis b.
double BendStiffness(const StrandSegment& seg, const Vec3& b) {
  return seg.stiffness.x() * b.x() * b.x() + seg.stiffness.z() * b.z() * b.z();
}

}  // namespace

JointDeflection Deflection(const Quat& rest, const Quat& q) {
  Quat d = rest.conjugate() * q;
  if (d.w() < 0.0) d.coeffs() = -d.coeffs();
  JointDeflection out;
  const double tn = std::hypot(d.w(), d.y());
  if (tn > 1e-12) {
    out.twist = Quat(d.w() / tn, 0.0, d.y() / tn, 0.0);
  }
  out.twist_angle = 2.0 * std::atan2(out.twist.y(), out.twist.w());
  const Quat swing = d * out.twist.conjugate();
  const Vec3 sv = swing.vec();
  const double sn = sv.norm();
  out.bend_angle = 2.0 * std::atan2(sn, std::abs(swing.w()));
  if (sn > 1e-15) out.bend_axis = (swing.w() >= 0.0 ? sv : Vec3(-sv)) / sn;
  return out;
}

Vec3 SpringTorque(const StrandSegment& seg, const Quat& q) {
  Quat d = seg.rest.conjugate() * q;
  if (d.w() < 0.0) d.coeffs() = -d.coeffs();
  const double tn = std::hypot(d.w(), d.y());
  Quat twist = Quat::Identity();
  if (tn > 1e-12) twist = Quat(d.w() / tn, 0.0, d.y() / tn, 0.0);
  const Quat swing = d * twist.conjugate();  // swing.w() >= 0 by construction
  const Vec3 sv = swing.vec();
  // tan(theta/2) times the axis is sv / w for the swing; the twist part likewise.
  const double sn = sv.norm();
  Vec3 torque = Vec3::Zero();
  if (sn > 0.0) {
    const Vec3 b = sv / sn;
    const double tan_half = CappedRatio(sn, swing.w());
    torque -= 2.0 * BendStiffness(seg, b) * tan_half * (twist.conjugate() * b);
  }
  const double twist_tan = CappedRatio(twist.y(), twist.w());
  torque.y() -= 2.0 * seg.stiffness.y() * twist_tan;
  return torque;
}

double SpringEnergy(const StrandSegment& seg, const Quat& q) {
  const JointDeflection d = Deflection(seg.rest, q);
  const double cb = std::max(std::cos(0.5 * d.bend_angle), 1e-12);
  const double ct = std::max(std::cos(0.5 * d.twist_angle), 1e-12);
  return -4.0 * BendStiffness(seg, d.bend_axis) * std::log(cb) -
         4.0 * seg.stiffness.y() * std::log(ct);
}

Mat3 SpringJacobian(const StrandSegment& seg, const Quat& q) {
  constexpr double kStep = 1e-6;
  Mat3 jac;
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = kStep * Vec3::Unit(k);
    jac.col(k) = (SpringTorque(seg, ComposeLocal(q, e)) - SpringTorque(seg, ComposeLocal(q, -e))) /
                 (2.0 * kStep);
  }
  return jac;
}

Mat3 ImplicitJointBlock(const StrandSegment& seg, const Quat& q, double h) {
  Mat3 block = Mat3::Zero();
  if (seg.stiffness.squaredNorm() > 0.0) {
    const Mat3 jac = SpringJacobian(seg, q);
    const Mat3 k = -0.5 * (jac + jac.transpose());
    Eigen::SelfAdjointEigenSolver<Mat3> eig(k);
    const Vec3 lambda = eig.eigenvalues().cwiseMax(0.0);
    block += h * h * (eig.eigenvectors() * lambda.asDiagonal() * eig.eigenvectors().transpose());
  }
  block.diagonal() += h * seg.damping;
  return block;
}

}  // namespace ligature
