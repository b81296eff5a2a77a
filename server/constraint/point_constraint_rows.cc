#include "server/constraint/point_constraint_rows.h"

namespace ligature {

ConstraintBlock MakePointBlock(const PointSide& a, const PointSide& b, const Vec3& warm_force) {
  ConstraintBlock block;
  block.law = ConstraintLaw::kBilateral;
  block.dim = 3;
  block.body_a = a.index;
  block.body_b = b.index;
  for (int d = 0; d < 3; ++d) {
    const Vec3 axis = Vec3::Unit(d);
    block.jacobian_a.row(d) = -PointRow(axis, a.arm);
    block.jacobian_b.row(d) = PointRow(axis, b.arm);
  }
  block.violation_free = b.point - a.point;
  block.force = warm_force;
  return block;
}

}  // namespace ligature
