#pragma once
// Per-body compliance in constraint resolution: C = (M / h^2)^-1 = h^2 M^-1 for a rigid body
// (no stiffness, no damping), split into its linear and angular parts. Solvers see only
// this and the rows, never the bodies themselves.

#include <span>
#include <vector>

#include "server/math/types.h"

namespace ligature {

struct BodyCompliance {
  double linear = 0.0;            // m/N
  Mat3 angular = Mat3::Zero();    // rad/(N m), world frame

  // Displacement [dx, dtheta] caused by generalized force [f, torque].
  Vec6 Apply(const Vec6& wrench) const {
    Vec6 out;
    out << linear * wrench.head<3>(), angular * wrench.tail<3>();
    return out;
  }
  // j . C j: the displacement along a unit generalized force j per unit force.
  double Quadratic(const Vec6& j) const {
    return linear * j.head<3>().squaredNorm() + j.tail<3>().dot(angular * j.tail<3>());
  }
};

// Points of one deformable body that constraints act on, coupled through that body: under
// forces f_j on the points, point i moves by sum_j C_ij f_j over the step (for an implicit
// body C = h^2 A^-1 restricted to the points, A its step's system matrix). The points are
// the solver's bodies [first, first + count), with linear DOFs only; their BodyCompliance
// entries are not used.
struct CoupledPoints {
  uint32_t first = 0;
  int count = 0;
  Eigen::MatrixXd compliance;  // 3 count x 3 count, m/N, symmetric positive semi-definite
};

}  // namespace ligature
