#pragma once
// The constraint-specific treatment of the modified Gauss-Seidel: given the local compliance
// block W_bb and the violation the block would have with its own force removed, each law
// returns its new force. Laws know nothing of bodies or of the other constraints.

#include "server/constraint/constraint_rows.h"

namespace ligature {

// W: dim x dim block (upper-left of a 3x3); w_inv: its inverse; wt_inv: the inverse of its
// tangential 2x2 block (rows and columns 1-2); free: violation without the block's own
// force; previous: the block's force before this update. Returns the new force.
Vec3 SolveBilateral(int dim, const Mat3& w_inv, const Vec3& free);
Vec3 SolveUnilateral(const Mat3& w, const Vec3& free);
Vec3 SolveBilateralFriction(const Mat3& w, const Vec3& previous, const Vec3& free, double mu);
Vec3 SolveFrictionContact(const Mat3& w, const Eigen::Matrix2d& wt_inv, const Vec3& previous,
                          const Vec3& free, double mu);
// A contact's rolling (dim 2) or spinning (dim 1) resistance, with bound = its lever arm
// times the contact's current normal force (N m).
Vec3 SolveRollingFriction(int dim, const Mat3& w, const Mat3& w_inv, const Vec3& free,
                          double bound);
// A drive (dimension 1): the force that makes delta + compliance f = 0, within
// |f| <= max_force (which may be infinite).
Vec3 SolveDrive(double w, double compliance, double free, double max_force);

}  // namespace ligature
