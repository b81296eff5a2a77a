#pragma once
// Test helper: the dense form of a set of constraint rows, to check the matrix-free
// solvers against direct linear algebra.

#include <Eigen/Dense>
#include <random>
#include <span>
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

// The same for bodies some of which are points of coupled groups (their own entries in
// `bodies` zero): each group's 3x3 blocks join C on its points' linear DOFs.
inline AssembledSystem Assemble(const ConstraintRows& rows,
                                const std::vector<BodyCompliance>& bodies,
                                std::span<const CoupledPoints> coupled) {
  AssembledSystem a = Assemble(rows, bodies);
  for (const CoupledPoints& g : coupled) {
    for (int p = 0; p < g.count; ++p) {
      for (int q = 0; q < g.count; ++q) {
        a.c.block<3, 3>(6 * (g.first + p), 6 * (g.first + q)) =
            g.compliance.block<3, 3>(3 * p, 3 * q);
      }
    }
  }
  a.w = a.h * a.c * a.h.transpose();
  return a;
}

// A symmetric positive definite compliance of `points` coupled points (m/N): random, with
// strong off-diagonal coupling.
inline MatX RandomGroupCompliance(std::mt19937& rng, int points) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 3 * points;
  MatX a(n, n);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) a(r, c) = u(rng);
  }
  return 1e-5 * (a * a.transpose() + n * MatX::Identity(n, n));
}

// Three points of one deformable body (bodies 1-3), coupled through it, each held by a
// bilateral 3D block against the world in a random frame, and a fourth block tying point 0
// to rigid body 0 (compliance `rigid`).
struct CoupledPointsProblem {
  ConstraintRows rows;
  std::vector<BodyCompliance> bodies;
  std::vector<CoupledPoints> coupled;
};

inline CoupledPointsProblem MakeCoupledPointsProblem(const BodyCompliance& rigid) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  CoupledPointsProblem out;
  out.coupled = {{1, 3, RandomGroupCompliance(rng, 3)}};
  out.bodies = {rigid, {}, {}, {}};
  for (uint32_t p = 0; p < 3; ++p) {
    ConstraintBlock b;
    b.law = ConstraintLaw::kBilateral;
    b.dim = 3;
    b.body_b = 1 + p;
    b.jacobian_b.leftCols<3>() =
        Eigen::AngleAxisd(3.0 * u(rng), Vec3(u(rng), u(rng), 1.0).normalized()).toRotationMatrix();
    b.violation_free = Vec3(u(rng), u(rng), u(rng)) * 0.01;
    out.rows.blocks.push_back(b);
  }
  ConstraintBlock tie;
  tie.law = ConstraintLaw::kBilateral;
  tie.dim = 3;
  tie.body_a = 0;
  tie.body_b = 1;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 6; ++c) tie.jacobian_a(r, c) = u(rng);
  }
  tie.jacobian_b.leftCols<3>() = Mat3::Identity();
  tie.violation_free = Vec3(0.003, -0.001, 0.002);
  out.rows.blocks.push_back(tie);
  return out;
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
