// The eq. 18 stiffness model: swing-twist split, small-angle slope equal to the stiffness,
// the tan response at large angles, anisotropy, energy consistency, the implicit block.

#include "server/model/strand/stiffness.h"

#include <gtest/gtest.h>

#include <cmath>

#include <Eigen/Eigenvalues>

#include "server/model/strand/strand_state.h"

namespace ligature {
namespace {

StrandSegment Segment(const Quat& rest) {
  StrandSegment s;
  s.length = 0.1;
  s.rest = rest;
  s.stiffness = Vec3(2.0, 0.5, 5.0);
  s.damping = Vec3(0.1, 0.2, 0.3);
  return s;
}

TEST(StiffnessTest, DeflectionSplitsSwingAndTwist) {
  const Quat rest(Eigen::AngleAxisd(0.4, Vec3(1, 0, 1).normalized()));
  const Quat twist(Eigen::AngleAxisd(0.3, Vec3::UnitY()));
  const Quat swing(Eigen::AngleAxisd(0.7, Vec3(0.6, 0, 0.8)));
  const JointDeflection d = Deflection(rest, rest * swing * twist);
  EXPECT_NEAR(d.twist_angle, 0.3, 1e-12);
  EXPECT_NEAR(d.bend_angle, 0.7, 1e-12);
  EXPECT_LT((d.bend_axis - Vec3(0.6, 0, 0.8)).norm(), 1e-12);
}

TEST(StiffnessTest, ResponseIsTanOfHalfAngleWithStiffnessAsSlope) {
  const Quat rest(Eigen::AngleAxisd(0.4, Vec3::UnitZ()));
  const StrandSegment seg = Segment(rest);
  for (double angle : {1e-4, 0.5, 2.0}) {
    // Bend about x, about z, twist about y.
    const Vec3 tx = SpringTorque(seg, rest * Quat(Eigen::AngleAxisd(angle, Vec3::UnitX())));
    const Vec3 tz = SpringTorque(seg, rest * Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ())));
    const Vec3 ty = SpringTorque(seg, rest * Quat(Eigen::AngleAxisd(angle, Vec3::UnitY())));
    const double t = 2.0 * std::tan(0.5 * angle);
    EXPECT_LT((tx - Vec3(-2.0 * t, 0, 0)).norm(), 1e-12 * (1 + t));
    EXPECT_LT((tz - Vec3(0, 0, -5.0 * t)).norm(), 1e-12 * (1 + t));
    EXPECT_LT((ty - Vec3(0, -0.5 * t, 0)).norm(), 1e-12 * (1 + t));
    if (angle < 1e-3) {
      EXPECT_NEAR(tx.x() / angle, -2.0, 1e-6);
    }
  }
  // Anisotropic: about the diagonal, K_b = 2 * 0.5 + 5 * 0.5.
  const Vec3 diag = Vec3(1, 0, 1).normalized();
  const Vec3 td = SpringTorque(seg, rest * Quat(Eigen::AngleAxisd(0.2, diag)));
  EXPECT_LT((td + 3.5 * 2.0 * std::tan(0.1) * diag).norm(), 1e-12);
  // Finite near a half turn.
  EXPECT_TRUE(SpringTorque(seg, rest * Quat(Eigen::AngleAxisd(M_PI, Vec3::UnitX()))).allFinite());
}

TEST(StiffnessTest, TorqueIsMinusEnergyGradientForBendingAboutAFixedAxis) {
  const StrandSegment seg = Segment(Quat::Identity());
  const Vec3 axis(0.6, 0, 0.8);
  for (double angle : {0.1, 1.0}) {
    const Quat q(Eigen::AngleAxisd(angle, axis));
    const double h = 1e-6;
    const double de = (SpringEnergy(seg, ComposeLocal(q, h * axis)) -
                       SpringEnergy(seg, ComposeLocal(q, -h * axis))) / (2 * h);
    EXPECT_NEAR(SpringTorque(seg, q).dot(axis), -de, 1e-6);
  }
}

TEST(StiffnessTest, ImplicitBlockIsSymmetricPositiveAndScalesWithStep) {
  const StrandSegment seg = Segment(Quat::Identity());
  const Quat q = Quat(Eigen::AngleAxisd(0.8, Vec3(1, 2, 3).normalized()));
  const double h = 0.01;
  const Mat3 block = ImplicitJointBlock(seg, q, h);
  EXPECT_LT((block - block.transpose()).norm(), 1e-12);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat3>(block).eigenvalues().minCoeff(), 0.0);
  // At rest: h^2 diag(K) + h diag(D).
  const Mat3 rest_block = ImplicitJointBlock(seg, Quat::Identity(), h);
  const Vec3 expect = h * h * seg.stiffness + h * seg.damping;
  EXPECT_LT((rest_block - Mat3(expect.asDiagonal())).norm(), 1e-8);
}

}  // namespace
}  // namespace ligature
