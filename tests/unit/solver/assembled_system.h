#pragma once
// Test helper: the dense form of a set of constraint rows, to check the matrix-free
// solvers against direct linear algebra.

#include <Eigen/Dense>
#include <random>
#include <vector>

#include "server/constraint/constraint_rows.h"
#include "server/solver/compliance.h"

namespace ligature::testing {

using MatX = Eigen::MatrixXd;
using VecX = Eigen::VectorXd;

// H (rows x 6 bodies), C (block-diagonal), W = H C H^T and the stacked free violations.
struct AssembledSystem {
  MatX h, c, w;
  VecX delta;
};

// 6x6 compliance matrix of a body, [dx, dtheta] per [f, torque].
inline Mat6 DenseCompliance(const BodyCompliance& c) {
  Mat6 m = Mat6::Zero();
  m.topLeftCorner<3, 3>() = c.linear * Mat3::Identity();
  m.bottomRightCorner<3, 3>() = c.angular;
  return m;
}

inline AssembledSystem Assemble(const ConstraintRows& rows,
                                const std::vector<BodyCompliance>& bodies) {
  const int n = rows.Dimensions();
  const int m = 6 * static_cast<int>(bodies.size());
  AssembledSystem a;
  a.h = MatX::Zero(n, m);
  a.c = MatX::Zero(m, m);
  a.delta = VecX::Zero(n);
  for (size_t i = 0; i < bodies.size(); ++i) {
    a.c.block<6, 6>(6 * i, 6 * i) = DenseCompliance(bodies[i]);
  }
  int row = 0;
  for (const ConstraintBlock& b : rows.blocks) {
    if (b.body_a != kWorldBody) {
      a.h.block(row, 6 * b.body_a, b.dim, 6) = b.jacobian_a.topRows(b.dim);
    }
    if (b.body_b != kWorldBody) {
      a.h.block(row, 6 * b.body_b, b.dim, 6) = b.jacobian_b.topRows(b.dim);
    }
    a.delta.segment(row, b.dim) = b.violation_free.head(b.dim);
    row += b.dim;
  }
  a.w = a.h * a.c * a.h.transpose();
  return a;
}

// A block's rows with entries drawn uniformly from [-1, 1]: generic directions.
inline BlockJacobian RandomJacobian(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  BlockJacobian j;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 6; ++c) j(r, c) = u(rng);
  }
  return j;
}

// The rows' forces, stacked in row order.
inline VecX StackedForces(const ConstraintRows& rows) {
  VecX f(rows.Dimensions());
  int row = 0;
  for (const ConstraintBlock& b : rows.blocks) {
    f.segment(row, b.dim) = b.force.head(b.dim);
    row += b.dim;
  }
  return f;
}

inline VecX StackedDisplacements(const std::vector<Vec6>& dq) {
  VecX out(6 * dq.size());
  for (size_t i = 0; i < dq.size(); ++i) out.segment<6>(6 * i) = dq[i];
  return out;
}

}  // namespace ligature::testing
