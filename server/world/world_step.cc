// The step pipeline of a world, one function per stage, in the order Step() runs them.

#include <algorithm>
#include <chrono>
#include <cmath>

#include "server/collision/narrowphase.h"
#include "server/constraint/contact_rows.h"
#include "server/constraint/point_constraint_rows.h"
#include "server/world/world.h"

namespace ligature {

void World::Step() {
  const auto start = std::chrono::steady_clock::now();
  ApplyDeviceTargets();
  AccumulateForces();
  IntegrateFreeMotion();
  DetectCollisions();
  BuildConstraintRows();
  SolveConstraints();
  ApplyCorrectionMotion();
  // Constraints removed by this tick's edits are reported in this tick's frame.
  tick_removed_constraints_ = std::move(removed_constraints_);
  removed_constraints_.clear();
  ++tick_;
  sim_time_ = static_cast<double>(tick_) * settings_.dt();
  stats_.step_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
}

// Device poses set the velocity that carries each kinematic body to its target in one
// tick. A body whose device sent nothing this tick holds still at its last target.
void World::ApplyDeviceTargets() {
  const double h = settings_.dt();
  for (const BodyHandle& handle : device_driven_) {
    if (!bodies_.IsValid(handle)) continue;
    const uint32_t i = bodies_.Index(handle);
    if (bodies_.kind[i] != BodyKind::kKinematic) continue;
    bodies_.linear_velocity[i].setZero();
    bodies_.angular_velocity[i].setZero();
  }
  device_driven_.clear();
  for (const auto& [handle, target] : device_targets_) {
    if (!bodies_.IsValid(handle)) continue;
    const uint32_t i = bodies_.Index(handle);
    if (bodies_.kind[i] != BodyKind::kKinematic) continue;
    bodies_.linear_velocity[i] = (target.position - bodies_.position[i]) / h;
    // Shortest rotation from the current orientation to the target's.
    Quat delta = target.orientation * bodies_.orientation[i].conjugate();
    if (delta.w() < 0.0) delta.coeffs() = -delta.coeffs();
    const Eigen::AngleAxisd rot(delta);
    bodies_.angular_velocity[i] = rot.axis() * (rot.angle() / h);
    device_driven_.push_back(handle);
  }
  device_targets_.clear();
}

// External forces: gravity on dynamic bodies.
void World::AccumulateForces() {
  const int n = bodies_.size();
  force_.assign(n, Vec3::Zero());
  for (int i = 0; i < n; ++i) {
    if (bodies_.inv_mass[i] > 0.0) force_[i] = settings_.gravity / bodies_.inv_mass[i];
  }
}

// Free motion (semi-implicit Euler): velocities take the external forces, and the poses the
// bodies would reach unconstrained are kept for the constraints' violations.
void World::IntegrateFreeMotion() {
  const int n = bodies_.size();
  const double h = settings_.dt();
  free_position_.resize(n);
  free_orientation_.resize(n);
  for (int i = 0; i < n; ++i) {
    if (bodies_.kind[i] == BodyKind::kStatic) {
      free_position_[i] = bodies_.position[i];
      free_orientation_[i] = bodies_.orientation[i];
      continue;
    }
    bodies_.linear_velocity[i] += h * bodies_.inv_mass[i] * force_[i];
    free_position_[i] = bodies_.position[i] + h * bodies_.linear_velocity[i];
    free_orientation_[i] = Rotated(bodies_.orientation[i], h * bodies_.angular_velocity[i]);
  }
}

// Broadphase over bounds grown by the contact margin and the step's motion (speculative
// contacts, so fast bodies do not tunnel), then the narrowphase table on each candidate.
void World::DetectCollisions() {
  const int n = bodies_.size();
  const double h = settings_.dt();
  const double margin = settings_.contact_margin;
  aabbs_.resize(n);
  for (int i = 0; i < n; ++i) {
    const double reach = 0.5 * margin + h * bodies_.linear_velocity[i].norm();
    aabbs_[i] = ComputeAabb(bodies_.shape[i], {bodies_.position[i], bodies_.orientation[i]},
                            reach);
  }
  broadphase_.FindPairs(aabbs_, &pairs_);

  contacts_.clear();
  ContactManifold manifold;
  for (const auto& [a, b] : pairs_) {
    if (!bodies_.IsDynamic(a) && !bodies_.IsDynamic(b)) continue;
    const double pair_margin = margin + h * (bodies_.linear_velocity[a].norm() +
                                             bodies_.linear_velocity[b].norm());
    manifold.count = 0;
    Collide(bodies_.shape[a], {bodies_.position[a], bodies_.orientation[a]}, bodies_.shape[b],
            {bodies_.position[b], bodies_.orientation[b]}, pair_margin, &manifold);
    for (int k = 0; k < manifold.count; ++k) contacts_.push_back({a, b, manifold.points[k]});
  }
}

// Rows for every contact (warm-started from the cache) and every user constraint
// (evaluated at the free-motion poses).
void World::BuildConstraintRows() {
  const double h = settings_.dt();
  rows_.Clear();
  contact_cache_.BeginTick();
  // Static and kinematic bodies take no correction (index kWorldBody) but keep their motion.
  auto side = [&](uint32_t i) {
    ContactBody s;
    s.index = bodies_.IsDynamic(i) ? i : kWorldBody;
    s.origin = bodies_.position[i];
    s.linear_velocity = bodies_.linear_velocity[i];
    s.angular_velocity = bodies_.angular_velocity[i];
    return s;
  };
  for (const Contact& c : contacts_) {
    const double mu = std::sqrt(bodies_.material[c.a].friction * bodies_.material[c.b].friction);
    ConstraintBlock block = MakeContactBlock(c.point, side(c.a), side(c.b), mu, h);
    const Vec3 local_a = Transform{bodies_.position[c.a], bodies_.orientation[c.a]}
                             .InverseApply(c.point.position);
    block.force = contact_cache_.Lookup(bodies_.HandleAt(c.a), bodies_.HandleAt(c.b), local_a);
    rows_.blocks.push_back(block);
  }
  stats_.contacts = static_cast<int>(contacts_.size());

  auto point_side = [&](BodyHandle handle, const Vec3& anchor) {
    PointSide s;
    if (handle.IsNull()) {
      s.point = anchor;
      return s;
    }
    const uint32_t i = bodies_.Index(handle);
    const Vec3 arm = free_orientation_[i] * anchor;
    s.point = free_position_[i] + arm;
    s.arm = arm;
    s.index = bodies_.IsDynamic(i) ? i : kWorldBody;
    return s;
  };
  for (const PointConstraint& c : constraints_.points()) {
    rows_.blocks.push_back(MakePointBlock(point_side(c.body_a, c.anchor_a),
                                          point_side(c.body_b, c.anchor_b), c.force));
  }
  stats_.constraint_rows = rows_.Dimensions();
}

// Compliance h^2 M^-1 of every body at its free orientation, then the chosen solver.
void World::SolveConstraints() {
  const int n = bodies_.size();
  const double h2 = settings_.dt() * settings_.dt();
  compliance_.resize(n);
  for (int i = 0; i < n; ++i) {
    const Mat3 r = free_orientation_[i].toRotationMatrix();
    compliance_[i].linear = h2 * bodies_.inv_mass[i];
    compliance_[i].angular = h2 * r * bodies_.inv_inertia_local[i].asDiagonal() * r.transpose();
  }
  GaussSeidelOptions options;
  options.max_iterations = settings_.solver.max_iterations;
  options.tolerance = settings_.solver.tolerance;
  options.warm_start = settings_.solver.warm_start;
  const SolveResult result = solver_.Solve(rows_, compliance_, options, &displacements_);
  stats_.iterations = result.iterations;
  stats_.residual = result.residual;

  // Remember the forces for the next tick's warm start.
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    const Vec3 local_a = Transform{bodies_.position[c.a], bodies_.orientation[c.a]}
                             .InverseApply(c.point.position);
    contact_cache_.Store(bodies_.HandleAt(c.a), bodies_.HandleAt(c.b), local_a,
                         rows_.blocks[k].force);
  }
  auto& points = constraints_.points();
  for (size_t k = 0; k < points.size(); ++k) {
    points[k].force = rows_.blocks[contacts_.size() + k].force;
  }
}

// Correction motion: the free poses plus the constraint displacements dq, with velocities
// made consistent (v = v_free + dq / h). Orientations are renormalized by Rotated(). A body
// whose new state is not finite (a numerical failure) is held where it was, at rest, and
// counted, so that one bad body never poisons the world.
void World::ApplyCorrectionMotion() {
  const int n = bodies_.size();
  const double h = settings_.dt();
  stats_.recovered_bodies = 0;
  for (int i = 0; i < n; ++i) {
    if (bodies_.kind[i] == BodyKind::kStatic) continue;
    const Vec6& dq = displacements_[i];
    const Vec3 position = free_position_[i] + dq.head<3>();
    const Quat orientation = Rotated(free_orientation_[i], dq.tail<3>());
    const Vec3 v = bodies_.linear_velocity[i] + dq.head<3>() / h;
    const Vec3 w = bodies_.angular_velocity[i] + dq.tail<3>() / h;
    if (!position.allFinite() || !orientation.coeffs().allFinite() || !v.allFinite() ||
        !w.allFinite()) {
      bodies_.linear_velocity[i].setZero();
      bodies_.angular_velocity[i].setZero();
      ++stats_.recovered_bodies;
      continue;
    }
    bodies_.position[i] = position;
    bodies_.orientation[i] = orientation;
    bodies_.linear_velocity[i] = v;
    bodies_.angular_velocity[i] = w;
  }
}

}  // namespace ligature
