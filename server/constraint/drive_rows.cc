#include "server/constraint/drive_rows.h"

#include <cassert>
#include <cmath>
#include <numbers>

namespace ligature {

ConstraintBlock MakeDriveBlock(const DriveGains& gains, const DriveCoordinate& q,
                               const DriveStep& step) {
  assert(gains.on() && step.h > 0.0);
  ConstraintBlock block;
  block.law = ConstraintLaw::kDrive;
  block.dim = 1;
  block.body_a = q.body_a;
  block.body_b = q.body_b;
  block.jacobian_a.row(0) = q.jacobian_a;
  block.jacobian_b.row(0) = q.jacobian_b;
  block.friction = gains.max_force;
  const double h = step.h;
  if (gains.mode == DriveMode::kVelocity) {
    block.violation_free.x() = h * (q.rate - q.target_rate);
    return block;
  }
  // The error at the start of the tick: the rows' own, or, at the free-motion poses, what
  // the current rate had added to it.
  const double e0 = step.free_poses ? q.error - h * q.rate : q.error;
  const double gamma = 1.0 / (gains.stiffness + gains.damping / h);
  block.compliance = gamma;
  block.violation_free.x() =
      h * q.rate + gamma * gains.stiffness * e0 - gamma * gains.damping * q.target_rate;
  return block;
}

double WrapAngle(double angle) {
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  double wrapped = std::remainder(angle, kTwoPi);  // in [-pi, pi]
  if (wrapped <= -std::numbers::pi) wrapped += kTwoPi;
  return wrapped;
}

}  // namespace ligature
