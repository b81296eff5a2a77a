#pragma once
// The rows of joint drives: motors and PD springs on one joint coordinate each, solved with
// the joint's other rows at velocity level.

#include <cstdint>

#include "server/constraint/constraint_rows.h"
#include "server/constraint/joint.h"

namespace ligature {

// What a drive's row needs of the step: its length, and whether the rows are built at the
// free-motion poses (then the coordinate at the start of the tick is taken back by h times
// its rate) or at the poses the tick starts from.
struct DriveStep {
  double h = 0.0;
  bool free_poses = false;
};

// One coordinate q of a joint as a drive sees it: its rows on A's and B's displacements
// (dq per unit displacement), its error q - q_target at the rows' poses, its rate dq/dt
// now, and the rate the drive aims for.
struct DriveCoordinate {
  uint32_t body_a = kWorldBody;
  uint32_t body_b = kWorldBody;
  Eigen::Matrix<double, 1, 6> jacobian_a = Eigen::Matrix<double, 1, 6>::Zero();
  Eigen::Matrix<double, 1, 6> jacobian_b = Eigen::Matrix<double, 1, 6>::Zero();
  double error = 0.0;
  double rate = 0.0;
  double target_rate = 0.0;
};

// The drive's block (law kDrive, dimension 1). With e0 the error at the start of the tick
// and u the rate at its end, the drive's force is
//   motor:  the force that makes u = target_rate (compliance 0);
//   spring: f = -k (e0 + h u) - c (u - target_rate), implicit in the tick;
// both within max_force. In the solvers' terms (delta = h u after the solve, delta_free its
// value without the block's force) that is delta + gamma f = 0 with gamma = 1 / (k + c / h)
// and delta_free = h u_now + gamma k e0 - gamma c target_rate (a motor: gamma = 0 and
// delta_free = h (u_now - target_rate)). Gains must be >= 0 with k + c > 0 for a spring.
ConstraintBlock MakeDriveBlock(const DriveGains& gains, const DriveCoordinate& q,
                               const DriveStep& step);

// An angle wrapped into (-pi, pi]: an angular error the short way round.
double WrapAngle(double angle);

}  // namespace ligature
