// The two solver pipelines of a world's solve stage (see world_step.cc): Gauss-Seidel with
// joint post-stabilization, and the post-stabilized tunable LCP passes.

#include <algorithm>
#include <cmath>

#include "server/constraint/contact_rows.h"
#include "server/solver/solve_clock.h"
#include "server/world/world.h"

namespace ligature {
namespace {

// How much the displacements dq change a block's first row (a contact's normal gap), m.
double NormalRowChange(const ConstraintBlock& b, const std::vector<Vec6>& dq) {
  double change = 0.0;
  if (b.body_a != kWorldBody) change += b.jacobian_a.row(0) * dq[b.body_a];
  if (b.body_b != kWorldBody) change += b.jacobian_b.row(0) * dq[b.body_b];
  return change;
}

}  // namespace

// One solver call, timed: stats_.solve_ms sums the calls of a tick, which is what the
// time budget covers (the assembly of the rows around them is not part of it).
SolveResult World::RunSolver(ConstraintSolver& solver, const SolverOptions& options) {
  const SolveClock clock(0.0);
  const SolveResult result = solver.Solve(rows_, compliance_, options, &displacements_);
  stats_.solve_ms += clock.ElapsedUs() / 1000.0;
  return result;
}

// One position-level solve of every row on the free-motion poses.
// Soft bodies' contacted vertices are solver bodies past the rigid ones (AddSoftCompliance),
// those of one corotational body coupled through its implicit system.
void World::SolveGaussSeidel() {
  UpdateCompliance(free_orientation_);
  AddSoftCompliance();
  AddRodCompliance();
  SolverOptions options;
  options.max_iterations = settings_.solver.max_iterations;
  options.tolerance = settings_.solver.tolerance;
  options.warm_start = settings_.solver.warm_start;
  options.time_budget_us = settings_.solver.time_budget_us;
  const SolveClock clock(0.0);
  const std::span<const CoupledPoints> groups =
      rod_points_.empty() ? std::span<const CoupledPoints>(soft_groups_) : solver_groups_;
  const SolveResult result =
      gauss_seidel_.Solve(rows_, compliance_, groups, options, &displacements_);
  stats_.solve_ms += clock.ElapsedUs() / 1000.0;
  stats_.iterations = result.iterations;
  stats_.residual = result.residual;
  stats_.budget_exhausted = result.budget_exhausted;
  StoreWarmStart();
}

// Post-stabilized passes of the tunable pipeline. Position pass: contact normals and joint
// rows at the free-motion poses, solved for displacements that are applied to the poses
// alone. Velocity pass: the same constraints on velocities (delta = h J v), with friction
// and restitution; its displacements become velocity changes in the correction motion.
//
// The contact rows of both passes are built once, at the free-motion poses where the
// contacts were found (lever arms, tangents, h v and last tick's impulses); the passes
// differ only in each block's law, violation and starting force.
void World::SolveTunable() {
  constexpr int kMaxPositionRounds = 4;
  const SolverSettings& s = settings_.solver;
  const double h = settings_.dt();
  const int n = bodies_.size();
  const size_t num_contacts = contacts_.size();
  UpdateCompliance(free_orientation_);
  SolverOptions options;
  options.tolerance = s.tolerance;
  const double share = std::clamp(s.position_share, 0.0, 1.0);
  // Solver time spent so far this tick (us): the passes share the budget by it.
  auto spent_us = [this] { return stats_.solve_ms * 1000.0; };

  // The contact rows as the velocity pass wants them; what the position pass changes in
  // them is kept aside: each contact's h v_n (its row 0 less the gap term), its tangential
  // violations and its warm-start impulse.
  rows_.Clear();
  BuildContactRows(free_position_, free_orientation_, true, true);
  contact_pass_.resize(num_contacts);
  for (size_t k = 0; k < num_contacts; ++k) {
    const ConstraintBlock& b = rows_.blocks[k];
    ContactPass& c = contact_pass_[k];
    c.violation = b.violation_free;
    c.violation.x() -= ContactGap(contacts_[k].point.distance);
    c.force = b.force;
  }

  // Position pass: remove penetration beyond the slop and joint drift. The rows are linear
  // in the displacements while the joints are not, so with joints the pass repeats,
  // re-linearized at the corrected poses (Newton steps), until the joints' error is within
  // the tolerance, for at most kMaxPositionRounds rounds; each round may use the pass's
  // share of the iterations, and together they keep to its share of the budget.
  // Its first round starts from the contacts' normal impulses of last tick's velocity pass
  // (with warm starts on): a resting contact's position correction undoes the approach its
  // free motion made over the tick, which is what last tick's impulse cancelled, so in a
  // resting pile this start is already near the answer (from zero forces, a few CG steps
  // reach a few bodies deep into the pile only, and its lower layers sink tick by tick).
  // Nothing to correct (no joints, no contact deeper than the slop): no position pass.
  // A budget whose velocity share cannot hold the velocity pass with one step (as last
  // measured) has no room for it either: the velocity pass then takes the whole budget and
  // removes penetration itself, a fraction a tick, and its displacements move the poses
  // too, as a Gauss-Seidel solve's do (a world with joints keeps the pass, since their
  // drift has no other correction).
  bool penetrating = false;
  for (const Contact& c : contacts_) penetrating |= c.point.distance < -kPenetrationSlop;
  starved_ = s.time_budget_us > 0.0 && constraints_.size() == 0 &&
             velocity_step_us_per_row_ * rows_.Dimensions() > (1.0 - share) * s.time_budget_us;
  const bool starved = starved_;
  const int rounds = constraints_.size() > 0 ? kMaxPositionRounds
                                             : (penetrating && !starved ? 1 : 0);
  SolveResult position;
  double deepest = 0.0;
  for (const Contact& c : contacts_) deepest = std::max(deepest, -c.point.distance);
  for (int round = 0; round < rounds; ++round) {
    // Another round only when the pass's share of the budget is not spent.
    if (round > 0 && s.time_budget_us > 0.0 && spent_us() >= s.time_budget_us * share) {
      position.budget_exhausted = true;
      break;
    }
    // Contacts take part by their normal row alone (no friction at this level).
    const bool warm = round == 0 && s.warm_start;
    for (size_t k = 0; k < num_contacts; ++k) {
      ConstraintBlock& b = rows_.blocks[k];
      b.law = ConstraintLaw::kUnilateral;
      b.dim = 1;
      b.violation_free = Vec3(contacts_[k].point.distance + kPenetrationSlop, 0.0, 0.0);
      b.force = Vec3(warm ? std::max(contact_pass_[k].force.x(), 0.0) : 0.0, 0.0, 0.0);
    }
    rows_.blocks.resize(num_contacts);
    BuildJointRows(free_position_, free_orientation_, JointLevel::kPosition);
    if (round > 0) {
      double error = 0.0;
      for (size_t k = num_contacts; k < rows_.blocks.size(); ++k) {
        const ConstraintBlock& b = rows_.blocks[k];
        for (int d = 0; d < b.dim; ++d) {
          const double v = b.violation_free[d];
          error = std::max(error, b.law == ConstraintLaw::kUnilateral ? -v : std::abs(v));
        }
      }
      if (error <= s.tolerance) break;
    }
    for (size_t k = num_contacts; k < rows_.blocks.size(); ++k) rows_.blocks[k].force.setZero();
    options.warm_start = warm;
    // The pass keeps to its share strictly: once that is spent during its preparation it
    // returns no correction; spent after it, what it has (at least its starting forces).
    options.min_iterations = 0;
    options.keep_warm_when_late = false;
    options.max_iterations = std::max(1, static_cast<int>(s.max_iterations * share));
    options.time_budget_us =
        s.time_budget_us > 0.0
            ? std::max(1e-3, s.time_budget_us * share - spent_us())
            : 0.0;
    const SolveResult r = RunSolver(tunable_, options);
    position.iterations += r.iterations;
    position.budget_exhausted |= r.budget_exhausted;
    for (int i = 0; i < n; ++i) {
      if (bodies_.kind[i] != BodyKind::kDynamic) continue;
      free_position_[i] += displacements_[i].head<3>();
      free_orientation_[i] = Rotated(free_orientation_[i], displacements_[i].tail<3>());
    }
    // Contacts' distances move with the bodies (to first order): the next round and the
    // reported penetration see what is left.
    deepest = 0.0;
    for (size_t k = 0; k < num_contacts; ++k) {
      contacts_[k].point.distance += NormalRowChange(rows_.blocks[k], displacements_);
      deepest = std::max(deepest, -contacts_[k].point.distance);
    }
  }

  // Velocity pass: rows on velocities, warm-started, with the rest of the budget. The
  // contact blocks get back their law, tangential violations and impulses; row 0 keeps
  // h v_n and allows closing a real gap, or bounces. Without a position pass (starved),
  // the displacements also move the poses, as a Gauss-Seidel solve's do: row 0 is then
  // the gap before this tick's motion, penetration beyond the slop recovered in part
  // (ContactGap), plus that motion.
  for (size_t k = 0; k < num_contacts; ++k) {
    ConstraintBlock& b = rows_.blocks[k];
    const ContactPass& c = contact_pass_[k];
    const bool friction = b.friction > 0.0;
    b.law = friction ? ConstraintLaw::kFrictionContact : ConstraintLaw::kUnilateral;
    b.dim = friction ? 3 : 1;
    b.violation_free = c.violation;
    b.force = c.force;
    const double gap = contacts_[k].point.distance;
    const double hvn = c.violation.x();
    const double epsilon = std::max(bodies_.material[contacts_[k].a].restitution,
                                    bodies_.material[contacts_[k].b].restitution);
    const double bounce_speed = std::max(kBounceThreshold, 2.0 * settings_.gravity.norm() * h);
    if (gap <= kPenetrationSlop && hvn < -bounce_speed * h) {
      b.violation_free.x() = (1.0 + epsilon) * hvn;  // leave with -epsilon v_n
    } else {
      b.violation_free.x() = (starved ? ContactGap(gap - hvn) : std::max(gap, 0.0)) + hvn;
    }
  }
  rows_.blocks.resize(num_contacts);
  BuildJointRows(free_position_, free_orientation_, JointLevel::kVelocity);
  stats_.constraint_rows = rows_.Dimensions();
  options.warm_start = s.warm_start;
  // The pass always takes one step, even when the budget is spent: its starting iterate
  // (last tick's impulses, or none) knows nothing of this tick's contacts, and a body
  // landing on the ground would go through it. A spent budget thus overruns by the
  // pass's preparation and one step.
  options.min_iterations = 1;
  options.max_iterations = std::max(1, static_cast<int>(s.max_iterations * (1.0 - share)));
  // What is left of the budget.
  const double left = s.time_budget_us - spent_us();
  options.time_budget_us = s.time_budget_us > 0.0 ? std::max(1e-3, left) : 0.0;
  if (s.time_budget_us > 0.0 && left <= 0.0) options.max_iterations = 1;
  const SolveResult velocity = RunSolver(tunable_, options);
  if (velocity.one_step_us > 0.0) {
    velocity_step_us_per_row_ = velocity.one_step_us / std::max(1, stats_.constraint_rows);
  }
  stats_.iterations = position.iterations + velocity.iterations;
  stats_.residual = velocity.residual;
  stats_.budget_exhausted = starved || position.budget_exhausted || velocity.budget_exhausted;
  // Starved, the velocity pass moved the poses: what overlap it left, to first order.
  if (starved) {
    deepest = 0.0;
    for (size_t k = 0; k < num_contacts; ++k) {
      const double after =
          contacts_[k].point.distance + NormalRowChange(rows_.blocks[k], displacements_);
      deepest = std::max(deepest, -after);
    }
  }
  stats_.max_penetration = deepest;
  StoreWarmStart();
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
  const auto deepen = [&](const ConstraintBlock& b, double distance) {
    const double after = b.violation_free.x() - ContactGap(distance) + distance +
                         NormalRowChange(b, displacements_);
    deepest = std::max(deepest, -after);
  };
  for (size_t k = 0; k < contacts_.size(); ++k) {
    deepen(rows_.blocks[k], contacts_[k].point.distance);
  }
  for (size_t k = 0; k < soft_contacts_.size(); ++k) {
    deepen(rows_.blocks[soft_first_block_ + k], soft_contacts_[k].contact.distance);
  }
  for (size_t k = 0; k < soft_pair_contacts_.size(); ++k) {
    deepen(rows_.blocks[soft_pair_first_block_ + k], soft_pair_contacts_[k].contact.distance);
  }
  for (size_t k = 0; k < rod_contacts_.size(); ++k) {
    deepen(rows_.blocks[rod_first_block_ + k], rod_contacts_[k].contact.distance);
  }
  for (size_t k = 0; k < rod_soft_contacts_.size(); ++k) {
    deepen(rows_.blocks[rod_soft_first_block_ + k], rod_soft_contacts_[k].contact.distance);
  }
  return deepest;
}

}  // namespace ligature
