#include "server/solver/constraint_laws.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace ligature {

// Bilateral: the force that cancels the violation, f = -W^-1 delta.
Vec3 SolveBilateral(int dim, const Mat3& w_inv, const Vec3& free) {
  Vec3 f = Vec3::Zero();
  if (dim == 1) {
    f.x() = -free.x() * w_inv(0, 0);
  } else {
    f = -w_inv * free;
  }
  return f;
}

// Unilateral: push only while the violation is negative (penetration); never pull.
Vec3 SolveUnilateral(const Mat3& w, const Vec3& free) {
  Vec3 f = Vec3::Zero();
  if (free.x() < 0.0 && w(0, 0) > 0.0) f.x() = -free.x() / w(0, 0);
  return f;
}

namespace {

// The sliding force of a contact on the cone border, |f_t| = r, exactly opposite to the
// tangential displacement it leaves: a + B f_t = lambda * u with f_t = -r u, |u| = 1,
// lambda >= 0 (a: tangential displacement without friction, B: the 2x2 tangential
// compliance). Then u = (lambda I + r B)^-1 a; lambda solves |u| = 1, found by Newton's
// method on a convex decreasing function of lambda, starting from 0.
Eigen::Vector2d SlidingForce(const Eigen::Vector2d& a, const Eigen::Matrix2d& b, double r) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eig(b);
  const Eigen::Vector2d ap = eig.eigenvectors().transpose() * a;
  const Eigen::Vector2d k = r * eig.eigenvalues().cwiseMax(0.0);
  double lambda = 0.0;
  for (int it = 0; it < 20; ++it) {
    const Eigen::Vector2d d = (k.array() + lambda).matrix();
    const Eigen::Vector2d q = ap.cwiseQuotient(d);
    const double g = q.squaredNorm() - 1.0;
    if (g <= 1e-12) break;
    const double dg = -2.0 * q.cwiseAbs2().cwiseQuotient(d).sum();
    lambda -= g / dg;
  }
  Eigen::Vector2d u = eig.eigenvectors() * ap.cwiseQuotient((k.array() + lambda).matrix());
  const double n = u.norm();
  if (!(n > 0.0) || !std::isfinite(n)) return Eigen::Vector2d::Zero();
  return -(r / n) * u;
}

}  // namespace

// Coulomb friction in displacement, as a normal sub-block then a tangential one (a
// Gauss-Seidel sweep inside the block, which keeps strongly coupled corner contacts
// stable): the normal force cancels the normal violation given the current friction force
// and never pulls; the friction force sticks (zero tangential displacement) when that lies
// inside the cone, and otherwise slides on the cone's border, exactly opposite to the
// sliding it leaves.
Vec3 SolveFrictionContact(const Mat3& w, const Eigen::Matrix2d& wt_inv, const Vec3& previous,
                          const Vec3& free, double mu) {
  const Eigen::Vector2d ft_prev = previous.tail<2>();
  const double fn =
      std::max(0.0, -(free.x() + w.block<1, 2>(0, 1).dot(ft_prev)) / w(0, 0));
  if (fn == 0.0 || mu == 0.0) return Vec3(fn, 0.0, 0.0);
  const Eigen::Vector2d a = free.tail<2>() + w.block<2, 1>(1, 0) * fn;
  Eigen::Vector2d ft = -wt_inv * a;
  if (ft.norm() > mu * fn) ft = SlidingForce(a, w.block<2, 2>(1, 1), mu * fn);
  return Vec3(fn, ft.x(), ft.y());
}

// Rolling or spinning resistance: the torque sticks (no relative rotation about the block's
// axes) when that lies within the bound, and otherwise sits on the bound exactly against
// the rotation it leaves: an interval for spinning, a disc for rolling (solved as the
// Coulomb disc is, SlidingForce). Without a normal force there is no torque.
Vec3 SolveRollingFriction(int dim, const Mat3& w, const Mat3& w_inv, const Vec3& free,
                          double bound) {
  if (!(bound > 0.0)) return Vec3::Zero();
  if (dim == 1) return Vec3(std::clamp(-free.x() / w(0, 0), -bound, bound), 0.0, 0.0);
  const Eigen::Vector2d a = free.head<2>();
  Eigen::Vector2d f = -w_inv.block<2, 2>(0, 0) * a;
  if (f.norm() > bound) f = SlidingForce(a, w.block<2, 2>(0, 0), bound);
  return Vec3(f.x(), f.y(), 0.0);
}

// A drive: its own compliance adds to the block's, and the force stops at its maximum.
Vec3 SolveDrive(double w, double compliance, double free, double max_force) {
  return Vec3(std::clamp(-free / (w + compliance), -max_force, max_force), 0.0, 0.0);
}

// A bilateral pair of rows with friction on the third: the bilateral rows cancel their
// violation given the current friction force; the friction row sticks if it can within
// mu |(f0, f1)|, else sits on that bound against its displacement.
Vec3 SolveBilateralFriction(const Mat3& w, const Vec3& previous, const Vec3& free, double mu) {
  const Eigen::Vector2d rhs = free.head<2>() + w.block<2, 1>(0, 2) * previous.z();
  const Eigen::Vector2d f01 = -w.block<2, 2>(0, 0).inverse() * rhs;
  const double limit = mu * f01.norm();
  const double stick = -(free.z() + w.block<1, 2>(2, 0).dot(f01)) / w(2, 2);
  return Vec3(f01.x(), f01.y(), std::clamp(stick, -limit, limit));
}

}  // namespace ligature
