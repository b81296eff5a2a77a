#include "server/constraint/joint_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "server/solver/gauss_seidel.h"

namespace ligature {
namespace {

constexpr double kH = 0.01;  // s
// Rows with drives (at velocity level): a joint's warm starts are then kept up to date.
const DriveStep kDriveStep{kH, false};

Transform Inverse(const Transform& t) {
  const Quat q = t.orientation.conjugate();
  return {-(q * t.position), q};
}

Quat AxisAngle(double angle, const Vec3& axis) {
  return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

JointSide Side(uint32_t index, const Transform& pose) { return {index, pose}; }

// A generic setting: A somewhere, turned; frames off the centres of mass and turned.
Transform PoseA() { return {Vec3(0.3, -1.2, 2.0), AxisAngle(0.7, Vec3(1, -2, 0.5))}; }
Transform FrameA() { return {Vec3(0.4, 0.1, -0.3), AxisAngle(-0.4, Vec3(0.2, 1, 0.3))}; }
Transform FrameB() { return {Vec3(-0.2, 0.5, 0.25), AxisAngle(1.1, Vec3(-1, 0.4, 0.8))}; }

// B's pose that puts B's frame exactly at `frame_world`.
Transform PoseBFor(const Transform& frame_world, const Transform& frame_b) {
  return frame_world * Inverse(frame_b);
}

Joint MakeJoint(JointKind kind) {
  Joint j;
  j.params.kind = kind;
  j.frame_a = FrameA();
  j.frame_b = FrameB();
  return j;
}

// The joint frame of A in the world, and B posed so that its frame is that frame turned
// by `rotation` about the anchor and moved by `offset` (world).
Transform PoseB(const Joint& j, const Vec3& offset, const Quat& rotation) {
  const Transform wa = PoseA() * j.frame_a;
  return PoseBFor({wa.position + offset, rotation * wa.orientation}, j.frame_b);
}

ConstraintRows Build(Joint j, const JointSide& a, const JointSide& b,
                     JointRowsResult* result = nullptr) {
  ConstraintRows rows;
  const JointRowsResult r = AppendJointRows(j, a, b, nullptr, &rows);
  if (result != nullptr) *result = r;
  EXPECT_EQ(r.blocks, static_cast<int>(rows.blocks.size()));
  return rows;
}

JointSide Moved(const JointSide& s, const Vec6& dq) {
  JointSide out = s;
  out.pose.position += dq.head<3>();
  out.pose.orientation = Rotated(s.pose.orientation, dq.tail<3>());
  return out;
}

Vec6 RandomDq(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Vec6 dq;
  for (int i = 0; i < 6; ++i) dq[i] = u(rng);
  return dq;
}

// Largest violation of the rows: |delta| of bilateral rows, max(0, -delta) of unilateral
// ones (friction rows carry no violation).
double MaxViolation(const ConstraintRows& rows) {
  double m = 0.0;
  for (const ConstraintBlock& b : rows.blocks) {
    switch (b.law) {
      case ConstraintLaw::kUnilateral:
        m = std::max(m, -b.violation_free.x());
        break;
      case ConstraintLaw::kBilateralFriction:
        m = std::max(m, b.violation_free.head<2>().cwiseAbs().maxCoeff());
        break;
      default:
        m = std::max(m, b.violation_free.head(b.dim).cwiseAbs().maxCoeff());
    }
  }
  return m;
}

// Finite-difference check: moving the bodies by small random dq changes every block's
// violation by J_a dq_a + J_b dq_b to first order.
void ExpectJacobiansMatch(const Joint& joint, const JointSide& a, const JointSide& b) {
  std::mt19937 rng(7);
  const ConstraintRows base = Build(joint, a, b);
  ASSERT_FALSE(base.blocks.empty());
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    const Vec6 dqa = a.index == kWorldBody ? Vec6::Zero() : RandomDq(rng, 1e-4);
    const Vec6 dqb = b.index == kWorldBody ? Vec6::Zero() : RandomDq(rng, 1e-4);
    const ConstraintRows moved = Build(joint, Moved(a, dqa), Moved(b, dqb));
    ASSERT_EQ(moved.blocks.size(), base.blocks.size());
    for (size_t k = 0; k < base.blocks.size(); ++k) {
      const ConstraintBlock& b0 = base.blocks[k];
      // A friction row has no violation of its own: it only opposes displacement.
      const int dim = b0.law == ConstraintLaw::kBilateralFriction ? 2 : b0.dim;
      const Vec3 predicted = b0.jacobian_a * dqa + b0.jacobian_b * dqb;
      const Vec3 actual = moved.blocks[k].violation_free - b0.violation_free;
      double err = 0.0;
      double change = 0.0;
      for (int d = 0; d < dim; ++d) {
        err = std::max(err, std::abs(predicted[d] - actual[d]));
        change = std::max(change, std::abs(actual[d]));
      }
      EXPECT_LT(err, 1e-7) << "block " << k << " trial " << trial << "\npredicted "
                           << predicted.transpose() << "\nactual " << actual.transpose();
      worst = std::max(worst, err);
      // The change is not trivially zero: the rows see the motion.
      if (trial == 0) {
        EXPECT_GT(change, 1e-6) << "block " << k;
      }
    }
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1e", worst);
  ::testing::Test::RecordProperty("worst_fd_error", buf);
}

// Newton iterations of the joint alone between two unit-mass, unit-inertia bodies: each
// builds the rows at the current poses, solves them to convergence (block Gauss-Seidel,
// compliance h^2 M^-1), and applies the displacements. Returns the violation before each
// iteration and after the last one.
std::vector<double> SolveJoint(Joint& joint, JointSide* a, JointSide* b, int iterations) {
  std::vector<BodyCompliance> compliance(2);
  for (BodyCompliance& c : compliance) {
    c.linear = kH * kH;
    c.angular = kH * kH * Mat3::Identity();
  }
  SolverOptions options;
  options.max_iterations = 5000;
  options.tolerance = 1e-16;
  options.warm_start = false;
  GaussSeidelSolver solver;
  std::vector<double> history;
  for (int it = 0; it <= iterations; ++it) {
    ConstraintRows rows;
    AppendJointRows(joint, *a, *b, nullptr, &rows);
    history.push_back(MaxViolation(rows));
    if (it == iterations) break;
    std::vector<Vec6> dq;
    solver.Solve(rows, compliance, options, &dq);
    // The linearized rows are satisfied exactly after the solve.
    for (const ConstraintBlock& blk : rows.blocks) {
      Vec3 delta = blk.violation_free;
      if (blk.body_a != kWorldBody) delta += blk.jacobian_a * dq[blk.body_a];
      if (blk.body_b != kWorldBody) delta += blk.jacobian_b * dq[blk.body_b];
      if (blk.law == ConstraintLaw::kUnilateral) {
        EXPECT_GT(delta.x(), -1e-10);
      } else {
        EXPECT_LT(delta.head(std::min(blk.dim, 2)).cwiseAbs().maxCoeff(), 1e-10);
      }
    }
    if (a->index != kWorldBody) *a = Moved(*a, dq[a->index]);
    if (b->index != kWorldBody) *b = Moved(*b, dq[b->index]);
  }
  std::string record;
  for (double v : history) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1e ", v);
    record += buf;
  }
  ::testing::Test::RecordProperty("violation_history", record);
  return history;
}

// ---------------------------------------------------------------------------------------
// Ball

TEST(JointRowsTest, BallViolationIsAnchorSeparation) {
  Joint j = MakeJoint(JointKind::kBall);
  const JointSide a = Side(0, PoseA());
  JointRowsResult r;
  ConstraintRows rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), AxisAngle(0.8, Vec3(1, 1, 0)))),
                              &r);
  ASSERT_EQ(r.blocks, 1);
  EXPECT_EQ(rows.blocks[0].law, ConstraintLaw::kBilateral);
  EXPECT_EQ(rows.blocks[0].dim, 3);
  EXPECT_LT(rows.blocks[0].violation_free.norm(), 1e-14);  // turning about the anchor is free

  rows = Build(j, a, Side(1, PoseB(j, Vec3(0.01, -0.02, 0.03), Quat::Identity())));
  EXPECT_LT((rows.blocks[0].violation_free - Vec3(0.01, -0.02, 0.03)).norm(), 1e-14);
}

TEST(JointRowsTest, BallJacobians) {
  Joint j = MakeJoint(JointKind::kBall);
  ExpectJacobiansMatch(j, Side(0, PoseA()),
                       Side(1, PoseB(j, Vec3(0.05, 0.1, -0.02), AxisAngle(0.3, Vec3(0, 1, 1)))));
}

TEST(JointRowsTest, BallSolveRemovesViolation) {
  Joint j = MakeJoint(JointKind::kBall);
  JointSide a = Side(0, PoseA());
  JointSide b = Side(1, PoseB(j, Vec3(0.05, 0.1, -0.02), AxisAngle(0.3, Vec3(0, 1, 1))));
  const std::vector<double> h = SolveJoint(j, &a, &b, 6);
  EXPECT_GT(h.front(), 0.05);
  EXPECT_LT(h.back(), 1e-8);
}

// The world as side A: frame_a is a world frame.
TEST(JointRowsTest, BallToWorld) {
  Joint j = MakeJoint(JointKind::kBall);
  j.frame_a = {Vec3(1.0, 2.0, 3.0), Quat::Identity()};
  const JointSide world;  // kWorldBody, identity
  JointSide b = Side(0, PoseBFor({Vec3(1.0, 2.1, 3.0), Quat::Identity()}, j.frame_b));
  ConstraintRows rows = Build(j, world, b);
  ASSERT_EQ(rows.blocks.size(), 1u);
  EXPECT_EQ(rows.blocks[0].body_a, kWorldBody);
  EXPECT_EQ(rows.blocks[0].body_b, 0u);
  EXPECT_LT((rows.blocks[0].violation_free - Vec3(0.0, 0.1, 0.0)).norm(), 1e-14);
  ExpectJacobiansMatch(j, world, b);
  std::vector<BodyCompliance> compliance(1);
  compliance[0].linear = kH * kH;
  compliance[0].angular = kH * kH * Mat3::Identity();
  for (int it = 0; it < 6; ++it) {
    rows = Build(j, world, b);
    std::vector<Vec6> dq;
    SolverOptions options;
    options.max_iterations = 100;
    options.tolerance = 1e-16;
    GaussSeidelSolver().Solve(rows, compliance, options, &dq);
    b = Moved(b, dq[0]);
  }
  EXPECT_LT(MaxViolation(Build(j, world, b)), 1e-8);
}

// Two bodies that take no correction (static or kinematic) get no rows.
TEST(JointRowsTest, NoRowsBetweenImmovableSides) {
  Joint j = MakeJoint(JointKind::kFixed);
  j.forces[0] = Vec3(1, 2, 3);
  ConstraintRows rows;
  const JointRowsResult r = AppendJointRows(j, Side(kWorldBody, PoseA()),
                                            Side(kWorldBody, PoseA()), &kDriveStep, &rows);
  EXPECT_EQ(r.blocks, 0);
  EXPECT_TRUE(rows.blocks.empty());
  EXPECT_EQ(j.forces[0], Vec3::Zero());
}

// ---------------------------------------------------------------------------------------
// Hinge

TEST(JointRowsTest, HingeViolations) {
  Joint j = MakeJoint(JointKind::kHinge);
  const Transform wa = PoseA() * j.frame_a;
  const Mat3 axes = wa.orientation.toRotationMatrix();
  const JointSide a = Side(0, PoseA());

  // Turning about the hinge axis is free.
  ConstraintRows rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), AxisAngle(0.9, axes.col(0)))));
  ASSERT_EQ(rows.blocks.size(), 2u);
  EXPECT_EQ(rows.blocks[1].law, ConstraintLaw::kBilateral);
  EXPECT_EQ(rows.blocks[1].dim, 2);
  EXPECT_LT(rows.blocks[0].violation_free.norm(), 1e-14);
  EXPECT_LT(rows.blocks[1].violation_free.head<2>().norm(), 1e-14);

  // Tilting the axis by alpha about A's frame Y (then Z): delta = (sin alpha, 0) (then
  // (0, sin alpha)), the rotation error projected on Y and Z.
  const double alpha = 0.02;
  rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), AxisAngle(alpha, axes.col(1)))));
  EXPECT_NEAR(rows.blocks[1].violation_free.x(), std::sin(alpha), 1e-14);
  EXPECT_NEAR(rows.blocks[1].violation_free.y(), 0.0, 1e-14);
  EXPECT_LT(rows.blocks[0].violation_free.norm(), 1e-14);
  rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), AxisAngle(alpha, axes.col(2)))));
  EXPECT_NEAR(rows.blocks[1].violation_free.x(), 0.0, 1e-14);
  EXPECT_NEAR(rows.blocks[1].violation_free.y(), std::sin(alpha), 1e-14);
  // Once aligned the rows are [0, y_a], [0, z_a] on B and their opposites on A.
  rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), Quat::Identity())));
  const ConstraintBlock& axis = rows.blocks[1];
  EXPECT_LT((axis.jacobian_b.row(0).tail<3>().transpose() - axes.col(1)).norm(), 1e-14);
  EXPECT_LT((axis.jacobian_b.row(1).tail<3>().transpose() - axes.col(2)).norm(), 1e-14);
  EXPECT_LT((axis.jacobian_a.topRows<2>() + axis.jacobian_b.topRows<2>()).norm(), 1e-14);
  EXPECT_EQ((axis.jacobian_b.topLeftCorner<2, 3>().norm()), 0.0);
}

TEST(JointRowsTest, HingeJacobians) {
  Joint j = MakeJoint(JointKind::kHinge);
  ExpectJacobiansMatch(
      j, Side(0, PoseA()),
      Side(1, PoseB(j, Vec3(0.03, -0.02, 0.04), AxisAngle(0.25, Vec3(0.3, -1, 0.6)))));
}

TEST(JointRowsTest, HingeSolveRemovesViolation) {
  Joint j = MakeJoint(JointKind::kHinge);
  JointSide a = Side(0, PoseA());
  JointSide b =
      Side(1, PoseB(j, Vec3(0.03, -0.02, 0.04), AxisAngle(0.25, Vec3(0.3, -1, 0.6))));
  const std::vector<double> h = SolveJoint(j, &a, &b, 6);
  EXPECT_GT(h.front(), 0.05);
  EXPECT_LT(h.back(), 1e-8);
}

TEST(JointRowsTest, HingeLimitAppearsNearLimits) {
  Joint j = MakeJoint(JointKind::kHinge);
  j.params.limited = true;
  j.params.lower = -0.5;
  j.params.upper = 0.4;
  const Vec3 axis = (PoseA() * j.frame_a).orientation * Vec3::UnitX();
  const JointSide a = Side(0, PoseA());
  auto at_angle = [&](double angle) {
    return Build(j, a, Side(1, PoseB(j, Vec3::Zero(), AxisAngle(angle, axis))));
  };
  EXPECT_EQ(at_angle(0.0).blocks.size(), 2u);
  EXPECT_EQ(at_angle(0.34).blocks.size(), 2u);
  // Within the slop of the upper limit: delta = upper - angle, positive.
  ConstraintRows rows = at_angle(0.37);
  ASSERT_EQ(rows.blocks.size(), 3u);
  EXPECT_EQ(rows.blocks[2].law, ConstraintLaw::kUnilateral);
  EXPECT_EQ(rows.blocks[2].dim, 1);
  EXPECT_NEAR(rows.blocks[2].violation_free.x(), 0.03, 1e-12);
  // Past it: negative; the row pushes B back, -axis on B.
  rows = at_angle(0.5);
  ASSERT_EQ(rows.blocks.size(), 3u);
  EXPECT_NEAR(rows.blocks[2].violation_free.x(), -0.1, 1e-12);
  EXPECT_LT((rows.blocks[2].jacobian_b.row(0).tail<3>().transpose() + axis).norm(), 1e-12);
  // Past the lower limit: delta = angle - lower, +axis on B.
  rows = at_angle(-0.6);
  ASSERT_EQ(rows.blocks.size(), 3u);
  EXPECT_NEAR(rows.blocks[2].violation_free.x(), -0.1, 1e-12);
  EXPECT_LT((rows.blocks[2].jacobian_b.row(0).tail<3>().transpose() - axis).norm(), 1e-12);
}

TEST(JointRowsTest, HingeLimitJacobians) {
  Joint j = MakeJoint(JointKind::kHinge);
  j.params.limited = true;
  j.params.lower = -0.5;
  j.params.upper = 0.4;
  const Vec3 axis = (PoseA() * j.frame_a).orientation * Vec3::UnitX();
  // Past the upper limit, with the axis also a little off.
  const Quat q = AxisAngle(0.1, Vec3(0.2, 1, -0.3)) * AxisAngle(0.55, axis);
  const JointSide b = Side(1, PoseB(j, Vec3(0.01, 0.0, -0.01), q));
  ASSERT_EQ(Build(j, Side(0, PoseA()), b).blocks.size(), 3u);
  ExpectJacobiansMatch(j, Side(0, PoseA()), b);
}

TEST(JointRowsTest, HingeLimitSolveReturnsToLimit) {
  Joint j = MakeJoint(JointKind::kHinge);
  j.params.limited = true;
  j.params.lower = -0.5;
  j.params.upper = 0.4;
  const Transform wa = PoseA() * j.frame_a;
  const Vec3 axis = wa.orientation * Vec3::UnitX();
  JointSide a = Side(0, PoseA());
  JointSide b = Side(1, PoseB(j, Vec3::Zero(), AxisAngle(0.55, axis)));
  const ConstraintRows before = Build(j, a, b);
  ASSERT_EQ(before.blocks.size(), 3u);
  EXPECT_LT(before.blocks[2].violation_free.x(), 0.0);
  const std::vector<double> h = SolveJoint(j, &a, &b, 6);
  EXPECT_LT(h.back(), 1e-8);
  // The hinge angle is back at the upper limit.
  const Mat3 fa = (a.pose * j.frame_a).orientation.toRotationMatrix();
  const Vec3 yb = (b.pose * j.frame_b).orientation * Vec3::UnitY();
  const double angle = std::atan2(yb.dot(fa.col(2)), yb.dot(fa.col(1)));
  EXPECT_NEAR(angle, 0.4, 1e-8);
}

// ---------------------------------------------------------------------------------------
// Slider

TEST(JointRowsTest, SliderViolations) {
  Joint j = MakeJoint(JointKind::kSlider);
  const Mat3 axes = (PoseA() * j.frame_a).orientation.toRotationMatrix();
  const JointSide a = Side(0, PoseA());

  // Sliding along the axis is free.
  ConstraintRows rows = Build(j, a, Side(1, PoseB(j, 0.7 * axes.col(0), Quat::Identity())));
  ASSERT_EQ(rows.blocks.size(), 2u);
  EXPECT_EQ(rows.blocks[0].dim, 3);
  EXPECT_EQ(rows.blocks[1].dim, 2);
  EXPECT_LT(rows.blocks[0].violation_free.norm(), 1e-14);
  EXPECT_LT(rows.blocks[1].violation_free.head<2>().norm(), 1e-14);

  // Off the line by (0.01, -0.02) in A's frame Y, Z.
  rows = Build(j, a,
               Side(1, PoseB(j, 0.3 * axes.col(0) + 0.01 * axes.col(1) - 0.02 * axes.col(2),
                             Quat::Identity())));
  EXPECT_LT((rows.blocks[1].violation_free.head<2>() - Eigen::Vector2d(0.01, -0.02)).norm(),
            1e-14);
  // Turned: the orientation violation is the rotation vector, exactly.
  const Vec3 phi(0.3, -0.2, 0.5);
  rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), AxisAngle(phi.norm(), phi))));
  EXPECT_LT((rows.blocks[0].violation_free - phi).norm(), 1e-14);
}

TEST(JointRowsTest, SliderJacobians) {
  Joint j = MakeJoint(JointKind::kSlider);
  const Mat3 axes = (PoseA() * j.frame_a).orientation.toRotationMatrix();
  ExpectJacobiansMatch(
      j, Side(0, PoseA()),
      Side(1, PoseB(j, 0.6 * axes.col(0) + Vec3(0.03, 0.05, -0.02),
                    AxisAngle(0.4, Vec3(1, 0.5, -0.7)))));
}

TEST(JointRowsTest, SliderSolveRemovesViolation) {
  Joint j = MakeJoint(JointKind::kSlider);
  const Mat3 axes = (PoseA() * j.frame_a).orientation.toRotationMatrix();
  JointSide a = Side(0, PoseA());
  JointSide b = Side(1, PoseB(j, 0.6 * axes.col(0) + Vec3(0.03, 0.05, -0.02),
                              AxisAngle(0.4, Vec3(1, 0.5, -0.7))));
  const std::vector<double> h = SolveJoint(j, &a, &b, 6);
  EXPECT_GT(h.front(), 0.05);
  EXPECT_LT(h.back(), 1e-8);
  // The frames are parallel again: orientation error zero means R_b fb = R_a fa exactly.
  const Quat qa = (a.pose * j.frame_a).orientation;
  const Quat qb = (b.pose * j.frame_b).orientation;
  EXPECT_LT(qa.angularDistance(qb), 1e-8);
}

TEST(JointRowsTest, SliderLimit) {
  Joint j = MakeJoint(JointKind::kSlider);
  j.params.limited = true;
  j.params.lower = -0.2;
  j.params.upper = 0.5;
  const Mat3 axes = (PoseA() * j.frame_a).orientation.toRotationMatrix();
  JointSide a = Side(0, PoseA());
  EXPECT_EQ(Build(j, a, Side(1, PoseB(j, 0.1 * axes.col(0), Quat::Identity()))).blocks.size(),
            2u);
  JointSide b = Side(1, PoseB(j, 0.65 * axes.col(0) + 0.01 * axes.col(2),
                              AxisAngle(0.1, Vec3(0, 0, 1))));
  ConstraintRows rows = Build(j, a, b);
  ASSERT_EQ(rows.blocks.size(), 3u);
  EXPECT_EQ(rows.blocks[2].law, ConstraintLaw::kUnilateral);
  EXPECT_NEAR(rows.blocks[2].violation_free.x(), -0.15, 1e-12);
  ExpectJacobiansMatch(j, a, b);
  // Below the lower limit too.
  rows = Build(j, a, Side(1, PoseB(j, -0.25 * axes.col(0), Quat::Identity())));
  ASSERT_EQ(rows.blocks.size(), 3u);
  EXPECT_NEAR(rows.blocks[2].violation_free.x(), -0.05, 1e-12);

  const std::vector<double> h = SolveJoint(j, &a, &b, 6);
  EXPECT_LT(h.back(), 1e-8);
  // Back at the limit: each solve lands on it to first order; the rotation it also corrects
  // may leave the anchor a hair inside, where the limit rightly pushes no more.
  const Transform wa = a.pose * j.frame_a;
  const Vec3 pb = (b.pose * j.frame_b).position;
  const double offset = (wa.orientation * Vec3::UnitX()).dot(pb - wa.position);
  EXPECT_LE(offset, 0.5 + 1e-8);
  EXPECT_GT(offset, 0.5 - 1e-5);
}

// ---------------------------------------------------------------------------------------
// Fixed

TEST(JointRowsTest, FixedViolations) {
  Joint j = MakeJoint(JointKind::kFixed);
  const JointSide a = Side(0, PoseA());
  ConstraintRows rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), Quat::Identity())));
  ASSERT_EQ(rows.blocks.size(), 2u);
  EXPECT_EQ(rows.blocks[0].dim, 3);
  EXPECT_EQ(rows.blocks[1].dim, 3);
  EXPECT_LT(rows.blocks[0].violation_free.norm(), 1e-14);
  EXPECT_LT(rows.blocks[1].violation_free.norm(), 1e-14);

  const Vec3 offset(0.01, 0.0, -0.03);
  const Vec3 phi(-0.05, 0.02, 0.01);
  rows = Build(j, a, Side(1, PoseB(j, offset, AxisAngle(phi.norm(), phi))));
  EXPECT_LT((rows.blocks[0].violation_free - offset).norm(), 1e-14);
  EXPECT_LT((rows.blocks[1].violation_free - phi).norm(), 1e-14);
  // At zero error the angular rows are [0, I] on B, [0, -I] on A.
  rows = Build(j, a, Side(1, PoseB(j, Vec3::Zero(), Quat::Identity())));
  EXPECT_LT((rows.blocks[1].jacobian_b.rightCols<3>() - Mat3::Identity()).norm(), 1e-12);
  EXPECT_LT((rows.blocks[1].jacobian_a.rightCols<3>() + Mat3::Identity()).norm(), 1e-12);
}

TEST(JointRowsTest, FixedJacobians) {
  Joint j = MakeJoint(JointKind::kFixed);
  ExpectJacobiansMatch(
      j, Side(0, PoseA()),
      Side(1, PoseB(j, Vec3(0.04, -0.03, 0.02), AxisAngle(0.6, Vec3(-0.2, 0.9, 0.4)))));
  // Large orientation error, near half a turn: the rows are still exact derivatives.
  ExpectJacobiansMatch(
      j, Side(0, PoseA()),
      Side(1, PoseB(j, Vec3::Zero(), AxisAngle(2.9, Vec3(0.5, 0.1, -0.3)))));
}

TEST(JointRowsTest, FixedSolveRemovesViolation) {
  Joint j = MakeJoint(JointKind::kFixed);
  JointSide a = Side(0, PoseA());
  JointSide b =
      Side(1, PoseB(j, Vec3(0.04, -0.03, 0.02), AxisAngle(0.6, Vec3(-0.2, 0.9, 0.4))));
  const std::vector<double> h = SolveJoint(j, &a, &b, 6);
  EXPECT_GT(h.front(), 0.1);
  EXPECT_LT(h.back(), 1e-8);
}

// ---------------------------------------------------------------------------------------
// Warm start

TEST(JointRowsTest, WarmStartFollowsEmissionOrder) {
  Joint j = MakeJoint(JointKind::kHinge);
  j.forces[0] = Vec3(1, 2, 3);
  j.forces[1] = Vec3(4, 5, 6);
  j.forces[2] = Vec3(7, 8, 9);
  ConstraintRows rows;
  rows.blocks.resize(2);  // rows already holding other blocks
  const JointRowsResult r =
      AppendJointRows(j, Side(0, PoseA()), Side(1, PoseB(j, Vec3::Zero(), Quat::Identity())),
                      &kDriveStep, &rows);
  ASSERT_EQ(r.blocks, 2);
  ASSERT_EQ(rows.blocks.size(), 4u);
  EXPECT_EQ(rows.blocks[2].force, Vec3(1, 2, 3));
  EXPECT_EQ(rows.blocks[3].force, Vec3(4, 5, 0));  // dimension 2: z dropped
  // The limit slot was not emitted: it starts cold when it appears.
  EXPECT_EQ(j.forces[2], Vec3::Zero());
}

// ---------------------------------------------------------------------------------------
// Curve

Joint CurveJoint(std::vector<Vec3> points) {
  Joint j;
  j.params.kind = JointKind::kCurve;
  j.params.curve = std::move(points);
  j.frame_b = {Vec3(0.1, -0.2, 0.05), Quat::Identity()};
  return j;
}

// B posed so that its anchor is at p.
JointSide CurveSide(const Joint& j, const Vec3& p, const Quat& q) {
  const Transform pose{Vec3::Zero(), q};
  return Side(0, {p - pose.Rotate(j.frame_b.position), q});
}

TEST(JointRowsTest, CurveViolationIsDistanceAcross) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 1, 0)});
  const JointSide world;
  const Quat q = AxisAngle(0.4, Vec3(1, 2, 3));
  ConstraintRows rows = Build(j, world, CurveSide(j, Vec3(0.5, 0.0, 0.0), q));
  ASSERT_EQ(rows.blocks.size(), 1u);
  EXPECT_EQ(rows.blocks[0].law, ConstraintLaw::kBilateral);
  EXPECT_EQ(rows.blocks[0].dim, 2);
  EXPECT_EQ(rows.blocks[0].body_a, kWorldBody);
  EXPECT_LT(rows.blocks[0].violation_free.norm(), 1e-14);

  rows = Build(j, world, CurveSide(j, Vec3(0.5, 0.03, -0.04), q));
  const ConstraintBlock& blk = rows.blocks[0];
  EXPECT_NEAR(blk.violation_free.head<2>().norm(), 0.05, 1e-14);
  // Rows across the tangent (x), on B only.
  EXPECT_NEAR(blk.jacobian_b.row(0).head<3>().dot(Vec3::UnitX()), 0.0, 1e-14);
  EXPECT_NEAR(blk.jacobian_b.row(1).head<3>().dot(Vec3::UnitX()), 0.0, 1e-14);
  const Vec3 u = blk.jacobian_b.row(0).head<3>();
  const Vec3 v = blk.jacobian_b.row(1).head<3>();
  EXPECT_LT((u.dot(Vec3(0, 0.03, -0.04)) - blk.violation_free.x()), 1e-14);
  EXPECT_LT((v.dot(Vec3(0, 0.03, -0.04)) - blk.violation_free.y()), 1e-14);
  EXPECT_EQ(blk.jacobian_a.norm(), 0.0);

  // On the second segment.
  JointRowsResult r;
  Joint j2 = j;
  ConstraintRows rows2;
  AppendJointRows(j2, world, CurveSide(j2, Vec3(1.5, 0.5, 0.0) + Vec3(0.02, -0.02, 0.01), q),
                  nullptr, &rows2);
  EXPECT_EQ(j2.curve_segment, 1u);
  EXPECT_NEAR(rows2.blocks[0].violation_free.head<2>().norm(),
              Vec3(0.02, -0.02, 0.01).norm(), 1e-14);
}

TEST(JointRowsTest, CurveFrictionBlock) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(0, 0, 2)});
  j.params.friction = 0.4;
  ConstraintRows rows = Build(j, JointSide(), CurveSide(j, Vec3(0.01, 0.0, 1.0), Quat::Identity()));
  ASSERT_EQ(rows.blocks.size(), 1u);
  const ConstraintBlock& blk = rows.blocks[0];
  EXPECT_EQ(blk.law, ConstraintLaw::kBilateralFriction);
  EXPECT_EQ(blk.dim, 3);
  EXPECT_DOUBLE_EQ(blk.friction, 0.4);
  EXPECT_EQ(blk.violation_free.z(), 0.0);
  EXPECT_LT((blk.jacobian_b.row(2).head<3>().transpose() - Vec3::UnitZ()).norm(), 1e-14);
}

TEST(JointRowsTest, CurveJacobians) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(1, 0.2, 0), Vec3(2, 1, 0.5), Vec3(3, 1, 1)});
  const Quat q = AxisAngle(0.4, Vec3(1, 2, 3));
  ExpectJacobiansMatch(j, JointSide(), CurveSide(j, Vec3(1.4, 0.6, 0.3), q));
  j.params.friction = 0.3;
  ExpectJacobiansMatch(j, JointSide(), CurveSide(j, Vec3(1.4, 0.6, 0.3), q));
  // Past the end with a stop row.
  ExpectJacobiansMatch(j, JointSide(), CurveSide(j, Vec3(3.2, 1.05, 1.1), q));
  ASSERT_EQ(Build(j, JointSide(), CurveSide(j, Vec3(3.2, 1.05, 1.1), q)).blocks.size(), 2u);
}

TEST(JointRowsTest, CurveSolveRemovesViolation) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(1, 0.2, 0), Vec3(2, 1, 0.5), Vec3(3, 1, 1)});
  j.params.friction = 0.3;
  JointSide world;
  JointSide b = CurveSide(j, Vec3(1.4, 0.7, 0.2), AxisAngle(0.4, Vec3(1, 2, 3)));
  const std::vector<double> h = SolveJoint(j, &world, &b, 6);
  EXPECT_GT(h.front(), 0.05);
  EXPECT_LT(h.back(), 1e-8);
}

TEST(JointRowsTest, CurveStopPushesBack) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)});
  JointSide world;
  JointSide b = CurveSide(j, Vec3(2.1, 0.05, 0.0), AxisAngle(0.2, Vec3(0, 0, 1)));
  ConstraintRows rows = Build(j, world, b);
  ASSERT_EQ(rows.blocks.size(), 2u);
  EXPECT_EQ(rows.blocks[1].law, ConstraintLaw::kUnilateral);
  EXPECT_NEAR(rows.blocks[1].violation_free.x(), -0.1, 1e-14);
  EXPECT_NEAR(rows.blocks[0].violation_free.head<2>().norm(), 0.05, 1e-14);
  // Before the start too.
  rows = Build(j, world, CurveSide(j, Vec3(-0.2, 0.0, 0.0), Quat::Identity()));
  ASSERT_EQ(rows.blocks.size(), 2u);
  EXPECT_NEAR(rows.blocks[1].violation_free.x(), -0.2, 1e-14);
  // Well inside: no stop row.
  EXPECT_EQ(Build(j, world, CurveSide(j, Vec3(1.5, 0.0, 0.0), Quat::Identity())).blocks.size(),
            1u);

  // Pushed back onto the curve and to the end point (a hair inside it at most: the turn
  // of the body that the solve also changes is corrected to first order).
  const std::vector<double> h = SolveJoint(j, &world, &b, 6);
  EXPECT_LT(h.back(), 1e-8);
  const Vec3 p = b.pose.Apply(j.frame_b.position);
  EXPECT_LT(p.tail<2>().norm(), 1e-8);
  EXPECT_LE(p.x(), 2.0 + 1e-8);
  EXPECT_GT(p.x(), 2.0 - 1e-4);
  // With the anchor at the centre of mass the rows are linear: one solve lands exactly.
  j.frame_b = Transform();
  JointSide c = Side(0, {Vec3(2.1, 0.05, 0.0), Quat::Identity()});
  SolveJoint(j, &world, &c, 1);
  EXPECT_LT((c.pose.position - Vec3(2.0, 0.0, 0.0)).norm(), 1e-12);
}

TEST(JointRowsTest, CurveReleasePastAnEnd) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)});
  j.params.curve_end = CurveEnd::kRelease;
  JointRowsResult r;
  ConstraintRows rows = Build(j, JointSide(), CurveSide(j, Vec3(1.99, 0.01, 0.0),
                                                        Quat::Identity()), &r);
  EXPECT_FALSE(r.released);
  EXPECT_EQ(r.blocks, 1);
  rows = Build(j, JointSide(), CurveSide(j, Vec3(2.01, 0.0, 0.0), Quat::Identity()), &r);
  EXPECT_TRUE(r.released);
  EXPECT_EQ(r.blocks, 0);
  EXPECT_TRUE(rows.blocks.empty());
}

// The segment index the joint keeps follows the point along a 50-point helix, from one end
// to the other in small steps: its projection is always the true closest point.
TEST(JointRowsTest, CurveSegmentFollowsPoint) {
  std::vector<Vec3> pts;
  for (int k = 0; k < 50; ++k) pts.emplace_back(std::cos(0.3 * k), std::sin(0.3 * k), 0.05 * k);
  Joint j = CurveJoint(pts);
  j.frame_b = Transform();
  const int steps = 2000;
  uint32_t last_segment = 0;
  for (int s = 0; s <= steps; ++s) {
    // Along the smooth helix the polyline approximates, slightly off it.
    const double phase = 0.05 + (0.3 * 49.0 - 0.1) * s / steps;
    const Vec3 p(1.02 * std::cos(phase), 1.02 * std::sin(phase), 0.05 * phase / 0.3 + 0.005);
    ConstraintRows rows;
    const JointRowsResult r = AppendJointRows(j, JointSide(), Side(0, {p, Quat::Identity()}),
                                              nullptr, &rows);
    ASSERT_EQ(r.blocks, rows.blocks.size());
    // Brute force: the closest segment.
    double best = 1e9;
    uint32_t best_k = 0;
    for (uint32_t k = 0; k + 1 < pts.size(); ++k) {
      const Vec3 d = pts[k + 1] - pts[k];
      const double t = std::clamp((p - pts[k]).dot(d) / d.squaredNorm(), 0.0, 1.0);
      const double dist = (p - (pts[k] + t * d)).norm();
      if (dist < best) {
        best = dist;
        best_k = k;
      }
    }
    const uint32_t seg = j.curve_segment;
    EXPECT_LE(seg > best_k ? seg - best_k : best_k - seg, 1u) << "step " << s;
    // The rows' distance to the curve is the true one.
    EXPECT_NEAR(rows.blocks[0].violation_free.head<2>().norm(), best, 1e-9) << "step " << s;
    EXPECT_LE(seg > last_segment ? seg - last_segment : last_segment - seg, 1u);
    last_segment = seg;
  }
  EXPECT_EQ(j.curve_segment, 48u);
}

// Smooth curves: a spline through the points, sampled once into the joint.
TEST(JointRowsTest, CurveSmoothSamplesCached) {
  Joint j = CurveJoint({Vec3(0, 0, 0), Vec3(1, 1, 0), Vec3(2, 0, 0), Vec3(3, 1, 0)});
  j.params.smooth = true;
  ConstraintRows rows;
  AppendJointRows(j, JointSide(), CurveSide(j, Vec3(1.0, 1.0, 0.0), Quat::Identity()), nullptr,
                  &rows);
  EXPECT_GT(j.curve_samples.size(), 40u);
  EXPECT_LT(rows.blocks[0].violation_free.head<2>().norm(), 1e-12);  // on a control point
}

// ---------------------------------------------------------------------------------------
// Drives

// A hinge's spring drive comes after its geometric rows, and only with drives: a kDrive row
// along the axis with compliance gamma = 1 / (k + c / h) and violation
// h u + gamma k e0 - gamma c v_target (e0: the angle's error at the tick's start, taken
// back by h u at the free-motion poses), bounded by its maximum.
TEST(JointRowsTest, HingeDriveRowIsTheImplicitSpring) {
  Joint j = MakeJoint(JointKind::kHinge);
  j.params.axis_drive = {DriveMode::kSpring, 50.0, 3.0, 7.0};
  j.params.target_position = 0.3;
  j.params.target_velocity = 0.5;
  const Vec3 axis = (PoseA() * j.frame_a).orientation * Vec3::UnitX();
  const double angle = 0.1;
  const double rate = -0.8;
  JointSide b = Side(1, PoseB(j, Vec3::Zero(), AxisAngle(angle, axis)));
  b.velocity << Vec3::Zero(), rate * axis;
  ConstraintRows geometry;
  AppendJointRows(j, Side(0, PoseA()), b, nullptr, &geometry);
  EXPECT_EQ(geometry.blocks.size(), 2u);
  const double gamma = 1.0 / (50.0 + 3.0 / kH);
  for (const bool free : {false, true}) {
    ConstraintRows rows;
    const DriveStep step{kH, free};
    ASSERT_EQ(AppendJointRows(j, Side(0, PoseA()), b, &step, &rows).blocks, 3);
    const ConstraintBlock& drive = rows.blocks[2];
    EXPECT_EQ(drive.law, ConstraintLaw::kDrive);
    EXPECT_NEAR(drive.compliance, gamma, 1e-15);
    EXPECT_EQ(drive.friction, 7.0);
    const double e0 = angle - 0.3 - (free ? kH * rate : 0.0);
    EXPECT_NEAR(drive.violation_free.x(), kH * rate + gamma * 50.0 * e0 - gamma * 3.0 * 0.5,
                1e-12);
    EXPECT_NEAR((drive.jacobian_b.row(0).tail<3>().transpose() - axis).norm(), 0.0, 1e-9);
  }
}

// A motor's row asks for its target rate over the step: h (u - v_target), no compliance.
TEST(JointRowsTest, SliderMotorRowAsksForItsRate) {
  Joint j = MakeJoint(JointKind::kSlider);
  j.params.axis_drive.mode = DriveMode::kVelocity;
  j.params.target_velocity = 0.25;
  const Vec3 axis = (PoseA() * j.frame_a).orientation * Vec3::UnitX();
  JointSide b = Side(1, PoseB(j, 0.2 * axis, Quat::Identity()));
  b.velocity << 0.75 * axis, Vec3::Zero();
  ConstraintRows rows;
  const DriveStep step{kH, false};
  ASSERT_EQ(AppendJointRows(j, Side(0, PoseA()), b, &step, &rows).blocks, 3);
  EXPECT_EQ(rows.blocks[2].law, ConstraintLaw::kDrive);
  EXPECT_EQ(rows.blocks[2].compliance, 0.0);
  EXPECT_NEAR(rows.blocks[2].violation_free.x(), kH * (0.75 - 0.25), 1e-12);
}

// A 6-DOF drive has only drive rows: none in a position pass, one per driven axis else.
TEST(JointRowsTest, SixDofDriveHasARowPerDrivenAxis) {
  Joint j = MakeJoint(JointKind::kDrive);
  j.params.linear_drive = {DriveMode::kSpring, 100.0, 5.0};
  ConstraintRows rows;
  const JointSide a = Side(0, PoseA());
  const JointSide b = Side(1, PoseB(j, Vec3(0.1, 0.2, -0.3), AxisAngle(0.2, Vec3::UnitX())));
  EXPECT_EQ(AppendJointRows(j, a, b, nullptr, &rows).blocks, 0);
  const DriveStep step{kH, false};
  EXPECT_EQ(AppendJointRows(j, a, b, &step, &rows).blocks, 3);
  // The linear rows' errors: A's anchor minus B's, along B's frame axes.
  const Transform fa = PoseA() * j.frame_a;
  const Transform fb = b.pose * j.frame_b;
  const double gamma = 1.0 / (100.0 + 5.0 / kH);
  for (int k = 0; k < 3; ++k) {
    const double e = (fb.orientation * Vec3::Unit(k)).dot(fa.position - fb.position);
    EXPECT_NEAR(rows.blocks[k].violation_free.x(), gamma * 100.0 * e, 1e-12);
  }
  j.params.angular_drive = {DriveMode::kVelocity};
  rows.Clear();
  EXPECT_EQ(AppendJointRows(j, a, b, &step, &rows).blocks, 6);
}

TEST(JointRowsTest, WrapAngleTakesTheShortWayRound) {
  EXPECT_NEAR(WrapAngle(0.5), 0.5, 1e-15);
  EXPECT_NEAR(WrapAngle(2.0 * std::numbers::pi + 0.5), 0.5, 1e-12);
  EXPECT_NEAR(WrapAngle(-3.0 * std::numbers::pi / 2.0), std::numbers::pi / 2.0, 1e-12);
  EXPECT_NEAR(WrapAngle(-std::numbers::pi), std::numbers::pi, 1e-12);
}

}  // namespace
}  // namespace ligature
