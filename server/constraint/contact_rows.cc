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
  // The cross product with a unit axis is a signed permutation of n, written out.
  Vec3 c;
  if (std::abs(n.x()) < 0.57735) {
    c = Vec3(0.0, n.z(), -n.y());
  } else if (std::abs(n.y()) < 0.57735) {
    c = Vec3(-n.z(), 0.0, n.x());
  } else {
    c = Vec3(n.y(), -n.x(), 0.0);
  }
  *t1 = c * (1.0 / std::sqrt(c.squaredNorm()));
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
    const Vec3 ca = ra.cross(dirs[d]);
    const Vec3 cb = rb.cross(dirs[d]);
    for (int k = 0; k < 3; ++k) {
      block.jacobian_a(d, k) = -dirs[d][k];
      block.jacobian_a(d, 3 + k) = -ca[k];
      block.jacobian_b(d, k) = dirs[d][k];
      block.jacobian_b(d, 3 + k) = cb[k];
    }
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
