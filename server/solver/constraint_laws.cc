#include "server/solver/constraint_laws.h"

#include <algorithm>

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

// Coulomb friction in displacement: first try sticking (zero tangential displacement) and
// keep it if the force lies inside the cone. Otherwise the contact slides: the tangential
// force sits on the cone's border, opposite to the tangential displacement the contact
// would have under its normal force alone, and the normal force is recomputed with it.
// A separating contact carries no force.
Vec3 SolveFrictionContact(const Mat3& w, const Mat3& w_inv, const Vec3& free, double mu) {
  const Vec3 stick = -w_inv * free;
  if (stick.x() > 0.0 && stick.tail<2>().norm() <= mu * stick.x()) return stick;

  double fn = w(0, 0) > 0.0 ? -free.x() / w(0, 0) : 0.0;
  if (fn <= 0.0) return Vec3::Zero();
  Eigen::Vector2d ft = Eigen::Vector2d::Zero();
  // Two fixed-point passes between the normal force and the sliding direction.
  for (int pass = 0; pass < 2; ++pass) {
    const Eigen::Vector2d slide = free.tail<2>() + w.block<2, 1>(1, 0) * fn;
    const double len = slide.norm();
    if (len < 1e-300) break;
    ft = -(mu * fn / len) * slide;
    fn = std::max(0.0, -(free.x() + w(0, 1) * ft.x() + w(0, 2) * ft.y()) / w(0, 0));
    ft *= fn > 0.0 ? 1.0 : 0.0;
  }
  if (ft.norm() > mu * fn) ft *= mu * fn / ft.norm();
  return Vec3(fn, ft.x(), ft.y());
}

}  // namespace ligature
