#include "server/constraint/contact_rows.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace ligature {

double ContactGap(double distance, PenetrationRecovery recovery) {
  if (distance >= 0.0) return distance;
  return recovery.rate * std::min(0.0, distance + recovery.slop);
}

void TangentBasis(const Vec3& n, Vec3* t1, Vec3* t2) {
  // Cross with the world axis least aligned with n: well conditioned and deterministic.
  const Vec3 helper = std::abs(n.x()) < 0.57735 ? Vec3::UnitX()
                      : std::abs(n.y()) < 0.57735 ? Vec3::UnitY()
                                                  : Vec3::UnitZ();
  *t1 = n.cross(helper).normalized();
  *t2 = n.cross(*t1);
}

ConstraintBlock MakeContactBlock(const ContactPoint& p, const ContactBody& a, const ContactBody& b,
                                 double friction, double h, PenetrationRecovery recovery) {
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
  block.violation_free[0] += ContactGap(p.distance, recovery);
  // Rows [-u, -(ra x u)] and [u, rb x u]: those of one point with l = -u.
  block.point = true;
  block.arm_a = ra;
  block.arm_b = rb;
  return block;
}

namespace {

// A block of angular rows about `axes` between the contact's bodies, bounded by `arm` times
// the normal force of block `contact`.
ConstraintBlock TorqueBlock(const ContactBody& a, const ContactBody& b, uint32_t contact,
                            double arm, std::initializer_list<Vec3> axes, double h) {
  ConstraintBlock block;
  block.law = ConstraintLaw::kRollingFriction;
  block.body_a = a.index;
  block.body_b = b.index;
  block.friction = arm;
  block.normal_block = contact;
  block.dim = static_cast<int>(axes.size());
  const Vec3 w_rel = b.angular_velocity - a.angular_velocity;
  int d = 0;
  for (const Vec3& axis : axes) {
    block.jacobian_a.row(d) << 0.0, 0.0, 0.0, -axis.transpose();
    block.jacobian_b.row(d) << 0.0, 0.0, 0.0, axis.transpose();
    block.violation_free[d] = h * w_rel.dot(axis);
    ++d;
  }
  return block;
}

}  // namespace

// Rolling about the tangents and spinning about the normal, each its own block so that each
// has a single bound (a disc for rolling, an interval for spinning).
void AppendContactTorqueBlocks(const ContactPoint& p, const ContactBody& a,
                               const ContactBody& b, uint32_t contact,
                               const ContactTorqueFriction& arms, double h,
                               ConstraintRows* rows) {
  if (arms.rolling > 0.0) {
    Vec3 t1, t2;
    TangentBasis(p.normal, &t1, &t2);
    rows->blocks.push_back(TorqueBlock(a, b, contact, arms.rolling, {t1, t2}, h));
  }
  if (arms.spinning > 0.0) {
    rows->blocks.push_back(TorqueBlock(a, b, contact, arms.spinning, {p.normal}, h));
  }
}

}  // namespace ligature
