#include "server/constraint/contact_rows.h"

#include <algorithm>
#include <cmath>

namespace ligature {

double ContactGap(double distance) {
  if (distance >= 0.0) return distance;
  return kPenetrationRecovery * std::min(0.0, distance + kPenetrationSlop);
}

void TangentBasis(const Vec3& n, Vec3* t1, Vec3* t2) {
  // Cross with the world axis least aligned with n: well conditioned and deterministic.
  const Vec3 helper = std::abs(n.x()) < 0.57735 ? Vec3::UnitX()
                      : std::abs(n.y()) < 0.57735 ? Vec3::UnitY()
                                                  : Vec3::UnitZ();
  *t1 = n.cross(helper).normalized();
  *t2 = n.cross(*t1);
}

ConstraintBlock MakeContactBlock(const ContactPoint& p, const ContactBody& a,
                                 const ContactBody& b, double friction, double h) {
  ConstraintBlock block;
  block.body_a = a.index;
  block.body_b = b.index;
  const Vec3 ra = p.position - a.origin;
  const Vec3 rb = p.position - b.origin;
  const Vec3 v_rel = (b.linear_velocity + b.angular_velocity.cross(rb)) -
                     (a.linear_velocity + a.angular_velocity.cross(ra));

  // The tangents only when there is friction to carry (a frictionless row is the normal's).
  Vec3 dirs[3];
  dirs[0] = p.normal;
  if (friction > 0.0) TangentBasis(p.normal, &dirs[1], &dirs[2]);
  block.dim = friction > 0.0 ? 3 : 1;
  block.law = friction > 0.0 ? ConstraintLaw::kFrictionContact : ConstraintLaw::kUnilateral;
  block.friction = friction;
  for (int d = 0; d < block.dim; ++d) {
    block.jacobian_a.row(d) = -PointRow(dirs[d], ra);
    block.jacobian_b.row(d) = PointRow(dirs[d], rb);
    block.violation_free[d] = h * v_rel.dot(dirs[d]);
  }
  block.violation_free[0] += ContactGap(p.distance);
  // Rows [-u, -(ra x u)] and [u, rb x u]: those of one point with l = -u.
  block.point = true;
  block.arm_a = ra;
  block.arm_b = rb;
  return block;
}

}  // namespace ligature
