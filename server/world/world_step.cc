// The step pipeline of a world, one function per stage, in the order Step() runs them.
//
// Two solver pipelines share the stages:
//  - Gauss-Seidel (default): contacts are found at the start-of-tick poses with a
//    speculative margin, every row is a position-level constraint on the free-motion poses
//    (delta = gap + h v), one solve gives displacements dq, and the correction motion sets
//    x = x_free + dq, v = v_free + dq / h.
//  - Tunable LCP (post-stabilized, after the tunable-LCP paper): contacts are found at the
//    free-motion poses; a position pass removes penetration and joint drift by
//    displacements alone; a velocity pass solves contact and joint rows on velocities
//    (delta = h J v) with Coulomb friction and Poisson restitution; the time budget is
//    split between the passes.

#include <algorithm>
#include <chrono>
#include <cmath>

#include "server/collision/narrowphase.h"
#include "server/constraint/contact_rows.h"
#include "server/constraint/joint_rows.h"
#include "server/solver/solve_clock.h"
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
  StabilizeJoints();
  RemoveReleasedJoints();
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
    // The target is the body frame's pose; the state is the centre of mass's.
    const Vec3 center = target.position + target.orientation * bodies_.center_local[i];
    bodies_.linear_velocity[i] = (center - bodies_.position[i]) / h;
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

// Broadphase over each body's bounds (the union of its shapes'), then the narrowphase
// table on every pair of shapes of the candidate pairs. Gauss-Seidel looks at the
// start-of-tick poses with bounds grown by the step's motion (speculative contacts, so fast
// bodies do not tunnel); the tunable pipeline looks at the free-motion poses.
void World::DetectCollisions() {
  const int n = bodies_.size();
  const double h = settings_.dt();
  const double margin = settings_.contact_margin;
  const bool speculative = settings_.solver.kind == SolverKind::kGaussSeidel;
  const std::vector<Vec3>& positions = speculative ? bodies_.position : free_position_;
  const std::vector<Quat>& orientations = speculative ? bodies_.orientation : free_orientation_;
  auto reach = [&](int i) {
    return speculative ? h * bodies_.linear_velocity[i].norm() : 0.0;
  };
  aabbs_.resize(n);
  for (int i = 0; i < n; ++i) {
    const Transform pose{positions[i], orientations[i]};
    const double grow = 0.5 * margin + reach(i);
    const std::vector<ChildShape>& shapes = bodies_.shapes[i];
    aabbs_[i] = ComputeAabb(shapes[0].shape, pose * shapes[0].local, grow);
    for (size_t k = 1; k < shapes.size(); ++k) {
      const Aabb box = ComputeAabb(shapes[k].shape, pose * shapes[k].local, grow);
      aabbs_[i].min = aabbs_[i].min.cwiseMin(box.min);
      aabbs_[i].max = aabbs_[i].max.cwiseMax(box.max);
    }
  }
  broadphase_.FindPairs(aabbs_, &pairs_);

  // Bodies joined by a constraint do not collide with each other (a chain's links touch at
  // their joints by design).
  jointed_.clear();
  for (const Joint& j : constraints_.joints()) {
    if (j.body_a.IsNull() || j.body_b.IsNull()) continue;
    const uint32_t a = bodies_.Index(j.body_a), b = bodies_.Index(j.body_b);
    jointed_.push_back({std::min(a, b), std::max(a, b)});
  }
  std::sort(jointed_.begin(), jointed_.end());

  contacts_.clear();
  ContactManifold manifold;
  for (const auto& [a, b] : pairs_) {
    if (!bodies_.IsDynamic(a) && !bodies_.IsDynamic(b)) continue;
    if (std::binary_search(jointed_.begin(), jointed_.end(), ProxyPair{a, b})) continue;
    const double pair_margin = margin + reach(a) + reach(b);
    const Transform pa{positions[a], orientations[a]};
    const Transform pb{positions[b], orientations[b]};
    for (const ChildShape& ca : bodies_.shapes[a]) {
      for (const ChildShape& cb : bodies_.shapes[b]) {
        manifold.count = 0;
        Collide(ca.shape, pa * ca.local, cb.shape, pb * cb.local, pair_margin, &manifold);
        for (int k = 0; k < manifold.count; ++k) contacts_.push_back({a, b, manifold.points[k]});
      }
    }
  }
  stats_.contacts = static_cast<int>(contacts_.size());
}

// Gauss-Seidel rows: every contact (warm-started from the cache, position level with a
// speculative gap) and every joint at velocity level; joint drift is removed afterwards by
// StabilizeJoints. The tunable pipeline builds its rows pass by pass (SolveTunable).
void World::BuildConstraintRows() {
  contact_cache_.BeginTick();
  rows_.Clear();
  if (settings_.solver.kind != SolverKind::kGaussSeidel) return;
  BuildContactRows(bodies_.position, bodies_.orientation, true, true);
  BuildJointRows(bodies_.position, bodies_.orientation, JointLevel::kVelocity);
  stats_.constraint_rows = rows_.Dimensions();
}

// Contact blocks at `positions` (lever arms), warm-started from the cache. With the
// Gauss-Seidel pipeline the gap term follows ContactGap (speculative, slow recovery).
void World::BuildContactRows(const std::vector<Vec3>& positions,
                             const std::vector<Quat>& orientations, bool with_friction,
                             bool warm) {
  const double h = settings_.dt();
  for (const Contact& c : contacts_) {
    const double mu =
        with_friction
            ? std::sqrt(bodies_.material[c.a].friction * bodies_.material[c.b].friction)
            : 0.0;
    auto side = [&](uint32_t i) {
      ContactBody s;
      s.index = bodies_.IsDynamic(i) ? i : kWorldBody;
      s.origin = positions[i];
      s.linear_velocity = bodies_.linear_velocity[i];
      s.angular_velocity = bodies_.angular_velocity[i];
      return s;
    };
    ConstraintBlock block = MakeContactBlock(c.point, side(c.a), side(c.b), mu, h);
    if (warm) {
      const Vec3 local_a =
          Transform{positions[c.a], orientations[c.a]}.InverseApply(c.point.position);
      block.force =
          contact_cache_.Lookup(bodies_.HandleAt(c.a), bodies_.HandleAt(c.b), local_a);
    }
    rows_.blocks.push_back(block);
  }
}

// Joint blocks at the given centre-of-mass poses. At JointLevel::kPosition their
// violations are the joints' geometric errors there; at JointLevel::kVelocity they are the
// relative motion the current velocities would cause over the step, h J v (a limit keeps
// its remaining room, so it is speculative). A curve constraint whose point left the curve
// through a releasing end emits nothing and is removed at the end of the step
// (RemoveReleasedJoints), which reports it in this tick's frame.
void World::BuildJointRows(const std::vector<Vec3>& positions,
                           const std::vector<Quat>& orientations, JointLevel level) {
  const double h = settings_.dt();
  joint_blocks_.clear();
  auto side = [&](BodyHandle handle) {
    JointSide s;
    if (handle.IsNull()) return s;
    const uint32_t i = bodies_.Index(handle);
    s.index = bodies_.IsDynamic(i) ? i : kWorldBody;
    s.pose = {positions[i], orientations[i]};
    return s;
  };
  auto velocity = [&](uint32_t i) {
    Vec6 v = Vec6::Zero();
    if (i != kWorldBody) v << bodies_.linear_velocity[i], bodies_.angular_velocity[i];
    return v;
  };
  auto& joints = constraints_.joints();
  for (uint32_t k = 0; k < joints.size(); ++k) {
    if (std::find(released_.begin(), released_.end(), k) != released_.end()) continue;
    const uint32_t first = static_cast<uint32_t>(rows_.blocks.size());
    const JointRowsResult r =
        AppendJointRows(joints[k], side(joints[k].body_a), side(joints[k].body_b), &rows_);
    if (r.released) released_.push_back(k);
    if (r.blocks == 0) continue;
    joint_blocks_.push_back({k, first, r.blocks});
    if (level == JointLevel::kPosition) continue;
    for (int m = 0; m < r.blocks; ++m) {
      ConstraintBlock& b = rows_.blocks[first + m];
      const Vec3 hjv = h * (b.jacobian_a * velocity(b.body_a) + b.jacobian_b * velocity(b.body_b));
      if (b.law == ConstraintLaw::kUnilateral) {
        b.violation_free.x() = std::max(b.violation_free.x(), 0.0) + hjv.x();
      } else {
        b.violation_free = hjv;
      }
    }
  }
}

// Removes the curve constraints released during the step and reports them in its frame.
void World::RemoveReleasedJoints() {
  std::vector<std::string> ids;
  for (uint32_t k : released_) ids.push_back(constraints_.joints()[k].id);
  released_.clear();
  for (std::string& id : ids) {
    constraints_.Remove(id);
    removed_constraints_.push_back(std::move(id));
  }
}

// Per-body compliance h^2 M^-1 at the given orientations.
void World::UpdateCompliance(const std::vector<Quat>& orientations) {
  const int n = bodies_.size();
  const double h2 = settings_.dt() * settings_.dt();
  compliance_.resize(n);
  for (int i = 0; i < n; ++i) {
    const Mat3 r = orientations[i].toRotationMatrix();
    compliance_[i].linear = h2 * bodies_.inv_mass[i];
    compliance_[i].angular = h2 * r * bodies_.inv_inertia_local[i] * r.transpose();
  }
}

// Remembers the solved forces for the next tick's warm start: contact blocks first in
// rows_ (matched by their point in A's frame at the poses the rows were built on), then the
// joints' blocks as recorded in joint_blocks_.
void World::StoreWarmStart(const std::vector<Vec3>& positions,
                           const std::vector<Quat>& orientations) {
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    const Vec3 local_a =
        Transform{positions[c.a], orientations[c.a]}.InverseApply(c.point.position);
    contact_cache_.Store(bodies_.HandleAt(c.a), bodies_.HandleAt(c.b), local_a,
                         rows_.blocks[k].force);
  }
  auto& joints = constraints_.joints();
  for (const JointBlocks& jb : joint_blocks_) {
    for (int m = 0; m < jb.count; ++m) {
      joints[jb.joint].forces[m] = rows_.blocks[jb.first + m].force;
    }
  }
}

// The solve stage, timed on its own: the time budget covers it and the frame reports it.
void World::SolveConstraints() {
  const SolveClock clock(0.0);
  stats_.budget_exhausted = false;
  if (settings_.solver.kind == SolverKind::kTunableLcp) {
    SolveTunable();
  } else {
    SolveGaussSeidel();
  }
  stats_.solve_ms = clock.ElapsedUs() / 1000.0;
}

// One position-level solve of every row on the free-motion poses.
void World::SolveGaussSeidel() {
  UpdateCompliance(free_orientation_);
  SolverOptions options;
  options.max_iterations = settings_.solver.max_iterations;
  options.tolerance = settings_.solver.tolerance;
  options.warm_start = settings_.solver.warm_start;
  options.time_budget_us = settings_.solver.time_budget_us;
  const SolveResult result = gauss_seidel_.Solve(rows_, compliance_, options, &displacements_);
  stats_.iterations = result.iterations;
  stats_.residual = result.residual;
  stats_.budget_exhausted = result.budget_exhausted;
  StoreWarmStart(bodies_.position, bodies_.orientation);
}

// Post-stabilized passes of the tunable pipeline. Position pass: contact normals and joint
// rows at the free-motion poses, solved for displacements that are applied to the poses
// alone. Velocity pass: the same constraints on velocities (delta = h J v), with friction
// and restitution; its displacements become velocity changes in the correction motion.
void World::SolveTunable() {
  constexpr int kMaxPositionRounds = 4;
  const SolverSettings& s = settings_.solver;
  const double h = settings_.dt();
  const int n = bodies_.size();
  UpdateCompliance(free_orientation_);
  SolverOptions options;
  options.tolerance = s.tolerance;
  const double share = std::clamp(s.position_share, 0.0, 1.0);
  const SolveClock tick_clock(s.time_budget_us);

  // Position pass: remove penetration beyond the slop and joint drift, from zero forces.
  // The rows are linear in the displacements while the joints are not, so with joints the
  // pass repeats, re-linearized at the corrected poses (Newton steps), until the joints'
  // error is within the tolerance, for at most kMaxPositionRounds rounds; each round may
  // use the pass's share of the iterations, and together they keep to its share of the
  // budget.
  // Nothing to correct (no joints, no contact deeper than the slop): no position pass.
  bool penetrating = false;
  for (const Contact& c : contacts_) penetrating |= c.point.distance < -kPenetrationSlop;
  const int rounds = constraints_.size() > 0 ? kMaxPositionRounds : (penetrating ? 1 : 0);
  SolveResult position;
  double deepest = 0.0;
  for (const Contact& c : contacts_) deepest = std::max(deepest, -c.point.distance);
  for (int round = 0; round < rounds; ++round) {
    // Another round only when the pass's share of the budget is not spent.
    if (round > 0 && s.time_budget_us > 0.0 &&
        tick_clock.ElapsedUs() >= s.time_budget_us * share) {
      position.budget_exhausted = true;
      break;
    }
    rows_.Clear();
    BuildContactRows(free_position_, free_orientation_, false, false);
    for (size_t k = 0; k < contacts_.size(); ++k) {
      rows_.blocks[k].violation_free.x() = contacts_[k].point.distance + kPenetrationSlop;
    }
    BuildJointRows(free_position_, free_orientation_, JointLevel::kPosition);
    if (round > 0) {
      double error = 0.0;
      for (size_t k = contacts_.size(); k < rows_.blocks.size(); ++k) {
        const ConstraintBlock& b = rows_.blocks[k];
        for (int d = 0; d < b.dim; ++d) {
          const double v = b.violation_free[d];
          error = std::max(error, b.law == ConstraintLaw::kUnilateral ? -v : std::abs(v));
        }
      }
      if (error <= s.tolerance) break;
    }
    for (ConstraintBlock& b : rows_.blocks) b.force.setZero();
    options.warm_start = false;
    options.max_iterations = std::max(1, static_cast<int>(s.max_iterations * share));
    options.time_budget_us =
        s.time_budget_us > 0.0
            ? std::max(1e-3, s.time_budget_us * share - tick_clock.ElapsedUs())
            : 0.0;
    const SolveResult r = tunable_.Solve(rows_, compliance_, options, &displacements_);
    position.iterations += r.iterations;
    position.budget_exhausted |= r.budget_exhausted;
    deepest = 0.0;
    for (size_t k = 0; k < contacts_.size(); ++k) {
      const ConstraintBlock& b = rows_.blocks[k];
      double after = b.violation_free.x() - kPenetrationSlop;
      if (b.body_a != kWorldBody) after += b.jacobian_a.row(0) * displacements_[b.body_a];
      if (b.body_b != kWorldBody) after += b.jacobian_b.row(0) * displacements_[b.body_b];
      deepest = std::max(deepest, -after);
    }
    for (int i = 0; i < n; ++i) {
      if (bodies_.kind[i] != BodyKind::kDynamic) continue;
      free_position_[i] += displacements_[i].head<3>();
      free_orientation_[i] = Rotated(free_orientation_[i], displacements_[i].tail<3>());
    }
    // Contacts' distances move with the bodies: the second round sees what is left.
    for (size_t k = 0; k < contacts_.size(); ++k) {
      const ConstraintBlock& b = rows_.blocks[k];
      double moved = 0.0;
      if (b.body_a != kWorldBody) moved += b.jacobian_a.row(0) * displacements_[b.body_a];
      if (b.body_b != kWorldBody) moved += b.jacobian_b.row(0) * displacements_[b.body_b];
      contacts_[k].point.distance += moved;
    }
  }

  // Velocity pass: rows on velocities, warm-started, with the rest of the budget.
  rows_.Clear();
  BuildContactRows(free_position_, free_orientation_, true, true);
  for (size_t k = 0; k < contacts_.size(); ++k) {
    ConstraintBlock& b = rows_.blocks[k];
    const double gap = contacts_[k].point.distance;
    // MakeContactBlock put gap + h v_n in row 0; keep h v_n, allow closing a real gap.
    const double hvn = b.violation_free.x() - ContactGap(gap);
    const double epsilon = std::max(bodies_.material[contacts_[k].a].restitution,
                                    bodies_.material[contacts_[k].b].restitution);
    const double bounce_speed = std::max(kBounceThreshold, 2.0 * settings_.gravity.norm() * h);
    if (gap <= kPenetrationSlop && hvn < -bounce_speed * h) {
      b.violation_free.x() = (1.0 + epsilon) * hvn;  // leave with -epsilon v_n
    } else {
      b.violation_free.x() = std::max(gap, 0.0) + hvn;
    }
  }
  BuildJointRows(free_position_, free_orientation_, JointLevel::kVelocity);
  stats_.constraint_rows = rows_.Dimensions();
  options.warm_start = s.warm_start;
  options.max_iterations = std::max(1, static_cast<int>(s.max_iterations * (1.0 - share)));
  // What is left of the budget; when nothing is, a single iteration still gives the
  // contacts and joints their impulses (the tick overruns by at most that iteration).
  const double left = s.time_budget_us - tick_clock.ElapsedUs();
  options.time_budget_us = s.time_budget_us > 0.0 ? std::max(1e-3, left) : 0.0;
  if (s.time_budget_us > 0.0 && left <= 0.0) options.max_iterations = 1;
  const SolveResult velocity = tunable_.Solve(rows_, compliance_, options, &displacements_);
  stats_.iterations = position.iterations + velocity.iterations;
  stats_.residual = velocity.residual;
  stats_.budget_exhausted = position.budget_exhausted || velocity.budget_exhausted;
  stats_.max_penetration = deepest;
  StoreWarmStart(free_position_, free_orientation_);
}

// Correction motion. Gauss-Seidel: the free poses plus the constraint displacements dq,
// velocities made consistent (v = v_free + dq / h). Tunable: the poses are the
// position-corrected free poses and the velocity pass's dq changes the velocities.
// Orientations are renormalized by Rotated(). A body whose new state is not finite (a
// numerical failure) is held where it was, at rest, and counted, so that one bad body never
// poisons the world.
void World::ApplyCorrectionMotion() {
  const int n = bodies_.size();
  const double h = settings_.dt();
  const bool tunable = settings_.solver.kind == SolverKind::kTunableLcp;
  stats_.recovered_bodies = 0;
  for (int i = 0; i < n; ++i) {
    if (bodies_.kind[i] == BodyKind::kStatic) continue;
    const Vec6& dq = displacements_[i];
    const Vec3 position = tunable ? free_position_[i] : free_position_[i] + dq.head<3>();
    const Quat orientation =
        tunable ? free_orientation_[i] : Rotated(free_orientation_[i], dq.tail<3>());
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
  if (!tunable) stats_.max_penetration = MaxPenetration();
}

// Post-stabilization of the joints (Gauss-Seidel pipeline): the solve linearized the joints
// at the free-motion poses, and large rotations leave a second-order error. The joint rows
// are rebuilt at the corrected poses and solved once more; the displacements move the
// poses alone, so drift is removed without feeding energy into the velocities.
void World::StabilizeJoints() {
  if (settings_.solver.kind != SolverKind::kGaussSeidel || constraints_.size() == 0) return;
  const int n = bodies_.size();
  rows_.Clear();
  BuildJointRows(bodies_.position, bodies_.orientation, JointLevel::kPosition);
  if (rows_.blocks.empty()) return;
  for (ConstraintBlock& b : rows_.blocks) {
    b.force.setZero();
    // Friction and limits take no part: only the bilateral geometry is projected.
    if (b.law != ConstraintLaw::kBilateral && b.law != ConstraintLaw::kUnilateral) {
      b.law = ConstraintLaw::kBilateral;
      b.dim = std::min(b.dim, 2);
    }
  }
  UpdateCompliance(bodies_.orientation);
  SolverOptions options;
  options.max_iterations = settings_.solver.max_iterations;
  options.tolerance = settings_.solver.tolerance;
  options.warm_start = false;
  gauss_seidel_.Solve(rows_, compliance_, options, &displacements_);
  for (int i = 0; i < n; ++i) {
    if (!bodies_.IsDynamic(i)) continue;
    const Vec3 p = bodies_.position[i] + displacements_[i].head<3>();
    const Quat q = Rotated(bodies_.orientation[i], displacements_[i].tail<3>());
    if (!p.allFinite() || !q.coeffs().allFinite()) continue;
    bodies_.position[i] = p;
    bodies_.orientation[i] = q;
  }
}

// Deepest overlap left by a Gauss-Seidel step: each contact's gap after the step, to first
// order, is its distance plus the change of its normal row (h v_n + J dq).
double World::MaxPenetration() const {
  double deepest = 0.0;
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const ConstraintBlock& b = rows_.blocks[k];
    double after = b.violation_free.x() - ContactGap(contacts_[k].point.distance) +
                   contacts_[k].point.distance;
    if (b.body_a != kWorldBody) after += b.jacobian_a.row(0) * displacements_[b.body_a];
    if (b.body_b != kWorldBody) after += b.jacobian_b.row(0) * displacements_[b.body_b];
    deepest = std::max(deepest, -after);
  }
  return deepest;
}

}  // namespace ligature
