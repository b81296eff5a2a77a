#include "server/solver/constraint_laws.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ligature {
namespace {

// A symmetric positive definite contact compliance (m/N) with normal-tangent coupling and
// a strongly non-isotropic tangential 2x2 block (eigenvalues about 3.25 and 0.45, x 1e-3).
Mat3 ContactCompliance() {
  Mat3 w;
  w << 2.0, 0.3, -0.2,  //
      0.3, 3.0, 0.8,    //
      -0.2, 0.8, 0.7;
  return 1e-3 * w;
}

// The friction law with its tangential inverse computed from w, as the solver supplies it.
Vec3 Friction(const Mat3& w, const Vec3& previous, const Vec3& free, double mu) {
  const Eigen::Matrix2d wt_inv = w.block<2, 2>(1, 1).inverse();
  return SolveFrictionContact(w, wt_inv, previous, free, mu);
}

// Displacement the block is left with: delta = W f + free.
Vec3 Displacement(const Mat3& w, const Vec3& f, const Vec3& free) { return w * f + free; }

// The fixture is a valid compliance block.
TEST(ContactComplianceTest, FixtureIsPositiveDefinite) {
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(ContactCompliance());
  EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0);
}

// The bilateral force cancels the violation in every dimension.
TEST(SolveBilateralTest, CancelsViolation) {
  const Mat3 w = ContactCompliance();
  const Vec3 free(0.01, -0.02, 0.005);
  const Vec3 f = SolveBilateral(3, w.inverse(), free);
  EXPECT_LT(Displacement(w, f, free).norm(), 1e-15);
  // Against an independent solve.
  EXPECT_LT((f - w.ldlt().solve(-free)).norm(), 1e-9 * f.norm());
}

// In one dimension only the first component is used: f = -delta / w.
TEST(SolveBilateralTest, OneDimension) {
  Mat3 w = Mat3::Identity();
  w(0, 0) = 4e-4;
  const Vec3 f = SolveBilateral(1, w.inverse(), Vec3(-0.002, 7.0, 9.0));
  EXPECT_NEAR(f.x(), 5.0, 1e-12);
  EXPECT_EQ(f.y(), 0.0);
  EXPECT_EQ(f.z(), 0.0);
}

// Unilateral: pushes exactly enough to close a penetration, never pulls on a separation.
TEST(SolveUnilateralTest, PushesButNeverPulls) {
  Mat3 w = Mat3::Identity();
  w(0, 0) = 2e-4;
  const Vec3 push = SolveUnilateral(w, Vec3(-0.001, 0.0, 0.0));
  EXPECT_NEAR(push.x(), 5.0, 1e-12);
  EXPECT_NEAR(w(0, 0) * push.x() - 0.001, 0.0, 1e-16);
  EXPECT_TRUE(SolveUnilateral(w, Vec3(0.001, 0.0, 0.0)).isZero());
  EXPECT_TRUE(SolveUnilateral(w, Vec3(0.0, 0.0, 0.0)).isZero());
  // Tangential components play no part.
  EXPECT_TRUE(SolveUnilateral(w, Vec3(1e-6, -5.0, 3.0)).isZero());
}

// Separating contact: no force at all, whatever the friction.
TEST(SolveFrictionContactTest, SeparatingContactHasNoForce) {
  const Mat3 w = ContactCompliance();
  EXPECT_TRUE(Friction(w, Vec3::Zero(), Vec3(0.01, 0.05, -0.02), 1.0).isZero());
}

// The normal force cancels the normal violation given the previous friction force (the
// normal-tangent coupling counts), and is clamped at zero.
TEST(SolveFrictionContactTest, NormalForceUsesPreviousFriction) {
  const Mat3 w = ContactCompliance();
  const Vec3 free(-0.01, 0.0, 0.0);
  const Vec3 previous(0.0, 1.0, -2.0);
  const Vec3 f = Friction(w, previous, free, 10.0);
  const double expected = -(free.x() + w(0, 1) * 1.0 + w(0, 2) * -2.0) / w(0, 0);
  EXPECT_NEAR(f.x(), expected, 1e-12 * expected);
  // Friction pulling the contact open enough leaves no normal force.
  EXPECT_EQ(Friction(w, Vec3(0, 0, -100.0), free, 10.0).x(), 0.0);
}

// Frictionless: normal force only.
TEST(SolveFrictionContactTest, ZeroFrictionGivesNormalForceOnly) {
  const Mat3 w = ContactCompliance();
  const Vec3 f = Friction(w, Vec3::Zero(), Vec3(-0.004, 0.03, -0.01), 0.0);
  EXPECT_NEAR(f.x(), 0.004 / w(0, 0), 1e-12);
  EXPECT_EQ(f.y(), 0.0);
  EXPECT_EQ(f.z(), 0.0);
}

// Sticking: the friction force the contact needs lies inside the cone, and the contact is
// left with zero tangential displacement.
TEST(SolveFrictionContactTest, SticksInsideConeWithZeroTangentialDisplacement) {
  const Mat3 w = ContactCompliance();
  const Vec3 free(-0.01, 0.0008, -0.0005);
  const double mu = 1.0;
  const Vec3 f = Friction(w, Vec3::Zero(), free, mu);
  ASSERT_GT(f.x(), 0.0);
  EXPECT_LT(f.tail<2>().norm(), mu * f.x());
  EXPECT_LT(Displacement(w, f, free).tail<2>().norm(), 1e-15);
}

// Repeating the block law (its inner Gauss-Seidel) converges, in the sticking case, to the
// exact solution of the whole 3x3 system: zero displacement in all three directions.
TEST(SolveFrictionContactTest, StickingFixedPointSolvesTheBlock) {
  const Mat3 w = ContactCompliance();
  const Vec3 free(-0.01, 0.0008, -0.0005);
  Vec3 f = Vec3::Zero();
  for (int i = 0; i < 200; ++i) f = Friction(w, f, free, 1.0);
  const Vec3 exact = w.ldlt().solve(-free);
  ASSERT_LT(exact.tail<2>().norm(), exact.x());  // inside the cone
  EXPECT_LT((f - exact).norm(), 1e-9 * exact.norm());
  EXPECT_LT(Displacement(w, f, free).norm(), 1e-14);
}

// Checks the sliding conditions: |f_t| = mu f_n and f_t exactly opposite the tangential
// displacement left.
void ExpectSliding(const Mat3& w, const Vec3& f, const Vec3& free, double mu) {
  const Eigen::Vector2d ft = f.tail<2>();
  const Eigen::Vector2d slide = Displacement(w, f, free).tail<2>();
  EXPECT_NEAR(ft.norm(), mu * f.x(), 1e-9 * mu * f.x());
  ASSERT_GT(slide.norm(), 1e-6);
  EXPECT_LT((ft.normalized() + slide.normalized()).norm(), 1e-8)
      << "friction " << ft.transpose() << " sliding " << slide.transpose();
}

// Sliding: on the cone border, exactly opposite the resulting sliding displacement. With
// the non-isotropic tangential block, the force opposite the frictionless tangential
// displacement would be wrong; the check below makes sure the case tells them apart.
TEST(SolveFrictionContactTest, SlidesOnConeBorderOppositeSliding) {
  const Mat3 w = ContactCompliance();
  const Vec3 free(-0.01, 0.02, -0.015);
  const double mu = 0.3;
  const Vec3 f = Friction(w, Vec3::Zero(), free, mu);
  EXPECT_NEAR(f.x(), 0.01 / w(0, 0), 1e-12 * f.x());
  ExpectSliding(w, f, free, mu);

  // The naive direction (opposite the tangential displacement without friction) differs.
  const Eigen::Vector2d a = free.tail<2>() + w.block<2, 1>(1, 0) * f.x();
  const double angle =
      std::acos(std::clamp(f.tail<2>().normalized().dot(-a.normalized()), -1.0, 1.0));
  EXPECT_GT(angle, 0.05);
}

// Several sliding directions and friction coefficients.
TEST(SolveFrictionContactTest, SlidingInManyDirections) {
  const Mat3 w = ContactCompliance();
  for (int k = 0; k < 16; ++k) {
    const double phi = 2.0 * std::numbers::pi * k / 16.0;
    for (double mu : {0.1, 0.5, 0.9}) {
      SCOPED_TRACE(testing::Message() << "phi=" << phi << " mu=" << mu);
      const Vec3 free(-0.005, 0.03 * std::cos(phi), 0.03 * std::sin(phi));
      const Vec3 f = Friction(w, Vec3::Zero(), free, mu);
      ExpectSliding(w, f, free, mu);
    }
  }
}

// Repeating the block law in a sliding case converges to a full sliding solution: zero
// normal displacement as well.
TEST(SolveFrictionContactTest, SlidingFixedPointClosesNormalGap) {
  const Mat3 w = ContactCompliance();
  const Vec3 free(-0.01, 0.02, -0.015);
  const double mu = 0.3;
  Vec3 f = Vec3::Zero();
  for (int i = 0; i < 200; ++i) f = Friction(w, f, free, mu);
  EXPECT_NEAR(Displacement(w, f, free).x(), 0.0, 1e-14);
  ExpectSliding(w, f, free, mu);
}

// Rolling resistance (two angular rows, a disc of radius `bound`): the stick torque
// cancels the rotation when it lies inside the disc; otherwise the torque lies on the disc's
// border, exactly against the rotation it leaves (W f + free parallel to -f).
TEST(SolveRollingFrictionTest, SticksInsideAndSlidesOnTheDisc) {
  Mat3 w = Mat3::Identity();
  w.topLeftCorner<2, 2>() << 2.0, 0.6, 0.6, 1.0;  // rad/(N m), non-isotropic
  w.topLeftCorner<2, 2>() *= 1e-2;
  const Vec3 free(0.003, -0.001, 0.0);
  const Vec3 stick = SolveRollingFriction(2, w, w.inverse(), free, 10.0);
  EXPECT_LT(Displacement(w, stick, free).head<2>().norm(), 1e-15);
  EXPECT_EQ(stick.z(), 0.0);

  const double bound = 0.5 * stick.head<2>().norm();
  const Vec3 slide = SolveRollingFriction(2, w, w.inverse(), free, bound);
  EXPECT_NEAR(slide.head<2>().norm(), bound, 1e-12 * bound);
  const Eigen::Vector2d left = Displacement(w, slide, free).head<2>();
  EXPECT_GT(left.norm(), 0.0);
  EXPECT_NEAR(left.normalized().dot(-slide.head<2>().normalized()), 1.0, 1e-9);
}

// Spinning resistance (one angular row): the stick torque clamped to [-bound, bound]; no
// normal force (bound 0) means no torque.
TEST(SolveRollingFrictionTest, SpinningClampsAndNeedsANormalForce) {
  Mat3 w = Mat3::Identity();
  w(0, 0) = 0.02;
  const Vec3 free(-0.004, 5.0, 5.0);  // only row 0 is the block's
  EXPECT_NEAR(SolveRollingFriction(1, w, w.inverse(), free, 1.0).x(), 0.2, 1e-15);
  const Vec3 clamped = SolveRollingFriction(1, w, w.inverse(), free, 0.05);
  EXPECT_EQ(clamped, Vec3(0.05, 0.0, 0.0));
  EXPECT_EQ(SolveRollingFriction(1, w, w.inverse(), free, 0.0), Vec3::Zero());
  EXPECT_EQ(SolveRollingFriction(2, w, w.inverse(), free, 0.0), Vec3::Zero());
}

// A drive's force cancels its violation through the block's and its own compliance, and
// stops at its maximum either way.
TEST(ConstraintLawsTest, DriveAddsItsComplianceAndStopsAtItsMaximum) {
  EXPECT_DOUBLE_EQ(SolveDrive(2.0, 0.0, 1.0, 10.0).x(), -0.5);
  EXPECT_DOUBLE_EQ(SolveDrive(2.0, 2.0, 1.0, 10.0).x(), -0.25);
  EXPECT_DOUBLE_EQ(SolveDrive(2.0, 0.0, -100.0, 10.0).x(), 10.0);
  EXPECT_DOUBLE_EQ(SolveDrive(2.0, 0.0, 100.0, 10.0).x(), -10.0);
  EXPECT_DOUBLE_EQ(SolveDrive(2.0, 0.0, 100.0, std::numeric_limits<double>::infinity()).x(),
                   -50.0);
}

}  // namespace
}  // namespace ligature
