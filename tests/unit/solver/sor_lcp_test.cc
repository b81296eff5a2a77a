// Algorithm 2 with bounds: a plain SPD system (bilateral), complementarity of unilateral
// rows, the friction bound, and a finite answer on a singular matrix.

#include "server/solver/sor_lcp.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

namespace ligature {
namespace {

TEST(SorLcpTest, BilateralRowsSolveTheLinearSystem) {
  Eigen::MatrixXd a(3, 3);
  a << 4, 1, 0, 1, 3, 1, 0, 1, 2;
  const Eigen::VectorXd b = Eigen::Vector3d(1, -2, 3);
  std::vector<LcpBound> bounds(3, {LcpBound::Kind::kBilateral, -1, 0.0});
  Eigen::VectorXd x;
  SorLcpOptions options;
  options.iterations = 200;
  options.epsilon = 0.0;
  SorLcp(a, b, bounds, options, &x);
  EXPECT_LT((a * x - b).norm(), 1e-10);
}

TEST(SorLcpTest, UnilateralRowsAreComplementary) {
  Eigen::MatrixXd a(3, 3);
  a << 2, 0.5, 0.2, 0.5, 2, 0.3, 0.2, 0.3, 1;
  const Eigen::VectorXd b = Eigen::Vector3d(1, -1, 0.5);
  std::vector<LcpBound> bounds(3);
  Eigen::VectorXd x;
  SorLcpOptions options;
  options.iterations = 300;
  options.omega = 1.2;
  options.epsilon = 0.0;
  SorLcp(a, b, bounds, options, &x);
  const Eigen::VectorXd w = a * x - b;
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(x[i], 0.0);
    EXPECT_GE(w[i], -1e-9);
    EXPECT_NEAR(x[i] * w[i], 0.0, 1e-9);
  }
  EXPECT_EQ(x[1], 0.0);  // pulled, not pushed
}

TEST(SorLcpTest, FrictionIsCappedByMuTimesNormal) {
  // Row 0 a normal needing 1 N, row 1 a friction row asking for far more than mu * 1 N.
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(2, 2);
  const Eigen::VectorXd b = Eigen::Vector2d(1.0, 10.0);
  std::vector<LcpBound> bounds = {{LcpBound::Kind::kUnilateral, -1, 0.0},
                                  {LcpBound::Kind::kFriction, 0, 0.4}};
  Eigen::VectorXd x;
  SorLcp(a, b, bounds, {}, &x);
  EXPECT_NEAR(x[0], 1.0, 1e-6);
  EXPECT_NEAR(x[1], 0.4, 1e-6);
}

TEST(SorLcpTest, SingularMatrixGivesFiniteEvenForces) {
  // Two identical constraints on one link: any split works; the answer stays finite and
  // the sum meets the target.
  Eigen::MatrixXd a = Eigen::MatrixXd::Ones(2, 2);
  const Eigen::VectorXd b = Eigen::Vector2d(1.0, 1.0);
  std::vector<LcpBound> bounds(2);
  Eigen::VectorXd x;
  SorLcp(a, b, bounds, {}, &x);
  EXPECT_TRUE(x.allFinite());
  EXPECT_NEAR(x.sum(), 1.0, 1e-6);
}

}  // namespace
}  // namespace ligature
