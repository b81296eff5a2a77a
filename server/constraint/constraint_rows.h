#pragma once
// Constraint rows: what every constraint kind hands the solvers. A block is one generalized
// constraint (dimension 1 to 3) between two bodies: its directions as Jacobian rows on each
// body's six displacement DOFs (linear then angular, world frame), its violation after free
// motion, and the law that turns a violation into a force.

#include <cstdint>
#include <vector>

#include "server/math/types.h"

namespace ligature {

enum class ConstraintLaw : uint8_t {
  kBilateral = 0,        // violation driven to zero in every dimension
  kUnilateral = 1,       // dimension 1: violation >= 0, force >= 0, complementary
  kFrictionContact = 2,  // dimension 3: unilateral normal (row 0) + Coulomb friction (rows 1-2)
  // Dimension 3: rows 0-1 bilateral, row 2 Coulomb friction bounded by mu |(f0, f1)| (a
  // point sliding on a curve with friction along the tangent).
  kBilateralFriction = 3,
  // Dimension 1 or 2: angular rows of a contact (its rolling resistance about the two
  // tangents, or its spinning resistance about the normal) whose torque is bounded by
  // `friction` (a lever arm, m) times the normal force of the contact block `normal_block`:
  // |f| <= friction f_n, a disc for two rows. The contact block comes first in the rows.
  kRollingFriction = 4,
  // Dimension 1: a drive (motor or PD spring) on one joint coordinate, with compliance
  // `compliance` (m/N: the spring's, 0 for a motor) and |f| <= friction (its maximum force):
  // the force solves delta + compliance f = 0 within that bound.
  kDrive = 5,
};

// Body index meaning "the immovable world".
inline constexpr uint32_t kWorldBody = UINT32_MAX;

using BlockJacobian = Eigen::Matrix<double, 3, 6>;

struct ConstraintBlock {
  ConstraintLaw law = ConstraintLaw::kBilateral;
  int dim = 1;
  uint32_t body_a = kWorldBody;
  uint32_t body_b = kWorldBody;
  BlockJacobian jacobian_a = BlockJacobian::Zero();  // rows [0, dim)
  BlockJacobian jacobian_b = BlockJacobian::Zero();
  Vec3 violation_free = Vec3::Zero();  // m, delta_free per dimension
  Vec3 force = Vec3::Zero();           // N; warm start on input, solution on output
  double friction = 0.0;  // Coulomb coefficient (kFrictionContact); m (kRollingFriction);
                          // N, the maximum force (kDrive; may be infinite)
  double compliance = 0.0;  // m/N (kDrive)
  uint32_t normal_block = 0;  // kRollingFriction: index of the contact block bounding it
  // Set when the rows all move one point of each body (a contact): row d is
  // [l_d, arm_a x l_d] on body a and [-l_d, -(arm_b x l_d)] on body b, the arms reaching
  // from each body's origin to the point. Solvers may then take the rows' products through
  // the point's relative motion, which costs about half the arithmetic.
  bool point = false;
  Vec3 arm_a = Vec3::Zero();
  Vec3 arm_b = Vec3::Zero();
};

struct ConstraintRows {
  std::vector<ConstraintBlock> blocks;

  void Clear() { blocks.clear(); }
  int Dimensions() const {
    int n = 0;
    for (const auto& b : blocks) n += b.dim;
    return n;
  }
};

// Jacobian row of a world point attached to a body at lever arm r (point - body origin),
// moving along direction d: d . (dx + dtheta x r) = [d, r x d] . [dx, dtheta].
inline Eigen::Matrix<double, 1, 6> PointRow(const Vec3& d, const Vec3& r) {
  Eigen::Matrix<double, 1, 6> row;
  row << d.transpose(), r.cross(d).transpose();
  return row;
}

}  // namespace ligature
