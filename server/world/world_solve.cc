// The two solver pipelines of a world's solve stage (see world_step.cc): Gauss-Seidel with
// joint post-stabilization, and the post-stabilized tunable LCP passes.

#include <algorithm>
#include <cmath>

#include "server/constraint/contact_rows.h"
#include "server/solver/solve_clock.h"
#include "server/world/coupling/soft_points.h"
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

// How much the displacements dq (per body, about the centres `origins`; zero for bodies
// that do not move) change the gap of a contact point between bodies a and b, to first
// order: the relative motion of the point along its normal (from A to B).
double ContactGapChange(const ContactPoint& p, uint32_t a, uint32_t b,
                        const std::vector<Vec3>& origins, const std::vector<Vec6>& dq) {
  auto motion = [&](uint32_t i) {
    return Vec3(dq[i].head<3>() + dq[i].tail<3>().cross(p.position - origins[i]));
  };
  return p.normal.dot(motion(b) - motion(a));
}

}  // namespace

// One call of the tunable solver, timed: stats_.solve_ms sums the calls of a tick, which is
// what the time budget covers (the assembly of the rows around them is not part of it).
// Soft bodies' contacted points are solver bodies past the rigid ones, those of one
// corotational body coupled through its implicit system (AddSoftPointCompliance).
SolveResult World::RunTunable(const SolverOptions& options) {
  const SolveClock clock(0.0);
  const SolveResult result = step_.tunable.Solve(step_.rows, step_.compliance, step_.soft_groups,
                                                 options, &step_.displacements);
  stats_.solve_ms += clock.ElapsedUs() / 1000.0;
  return result;
}

// One position-level solve of every row on the free-motion poses.
// Soft bodies' contacted points are solver bodies past the rigid ones
// (AddSoftPointCompliance), those of one corotational body coupled through its implicit
// system; the rods' points follow (RodRigidCoupling::AddCompliance).
void World::SolveGaussSeidel() {
  // Later substeps keep the first one's compliance, and its contact rows' directions and
  // preparation.
  const bool later = step_.substep > 0;
  if (!later) {
    UpdateCompliance(step_.free_orientation);
    const WorldView w = View();
    AddSoftPointCompliance(w, step_);
    rod_rigid_.AddCompliance(w, step_);
  }
  // Each substep takes its share of the iterations and of the budget left.
  const int substeps_left = step_.substeps - step_.substep;
  const double budget = settings_.solver.time_budget_us;
  SolverOptions options;
  options.max_iterations = std::max(1, settings_.solver.max_iterations / step_.substeps);
  options.tolerance = settings_.solver.tolerance;
  options.warm_start = settings_.solver.warm_start || step_.substep > 0;
  options.contact_softness = SubstepContactSoftness();
  options.kept_blocks = later ? step_.first_joint_block : 0;
  options.direct_bilateral = true;
  options.time_budget_us =
      budget > 0.0 ? std::max(1e-3, (budget - SpentSolveUs()) / substeps_left) : 0.0;
  const SolveClock clock(0.0);
  const std::span<const CoupledPoints> groups =
      step_.rod_points.empty() ? std::span<const CoupledPoints>(step_.soft_groups)
                               : step_.solver_groups;
  const SolveResult result =
      step_.gauss_seidel.Solve(step_.rows, step_.compliance, groups, options, &step_.displacements);
  if (step_.substeps > 1) RelaxSubstep(groups, options);
  stats_.solve_ms += clock.ElapsedUs() / 1000.0;
  stats_.iterations += result.iterations;
  stats_.residual = result.residual;
  stats_.budget_exhausted |= result.budget_exhausted;
  if (substeps_left > 1) return;
  StoreWarmStart();
  FindBrokenJoints();
}

// Post-stabilized passes of the tunable pipeline, in three steps:
//  1. joint pass (when there are joints): joint rows at the free-motion poses, solved for
//     displacements that move the poses alone, so that the velocity pass is linearized on
//     the joints' manifold;
//  2. velocity pass: contact and joint rows on velocities (delta = h J v), with friction and
//     restitution; its displacements become velocity changes in the correction motion;
//  3. contact pass (when a contact is deeper than the slop): the contacts' normal rows, with
//     the joint rows, for displacements that move the poses alone. It starts from this
//     tick's impulses, so the poses take what the velocity pass did as well as what is
//     left of the penetration.
// The contact rows are built once, after the joint pass (lever arms, tangents, h v and last
// tick's impulses); the passes differ only in each block's law, violation and force.
//
// Soft bodies meet rigid bodies and each other in the velocity pass, through rows built as
// in Gauss-Seidel worlds: position-level (the gap at the start of the tick plus h v), so
// that their solved forces move the soft bodies to where the rows hold (ApplyCouplingForces).
// Their displacements of the rigid bodies move the rigid poses alike: held fixed through the
// contact pass as the friction's are, or taken at once when there is none. A rigid body
// resting on tissue would otherwise sink by its free motion every tick.
//
// Why the contact pass comes last and starts from this tick's impulses: the free motion
// sinks every resting body by g h^2 each tick, and the position correction that undoes it
// is the displacement of the impulses that hold the bodies, friction included. Started
// from anything else (last tick's normal impulses alone leave the friction's moments out,
// and a wall's bricks then start each pass millimetres from balance), its few CG steps
// cannot bring a tall pile back, and what they leave moves the bodies without friction:
// they creep and fall. The friction impulses are not rows of the pass (positions have no
// Coulomb law): their displacement is fixed, as in the velocity change, so the poses move
// as x + h v would with the solved velocity.
void World::SolveTunable() {
  constexpr int kMinContactPassIterations = 2;
  const SolverSettings& s = settings_.solver;
  const size_t num_contacts = step_.contacts.size();
  UpdateCompliance(step_.free_orientation);
  AddSoftPointCompliance(View(), step_);
  const double share = std::clamp(s.position_share, 0.0, 1.0);
  const bool budgeted = s.time_budget_us > 0.0;
  // The iterations: each round of a position pass gets the share of them, the velocity
  // pass what is left (at least one each).
  const int position_iterations = std::max(1, static_cast<int>(s.max_iterations * share));
  const int velocity_iterations = std::max(1, s.max_iterations - position_iterations);

  // 1. Joint pass, within the position passes' share of the budget.
  SolveResult position;
  step_.rows.Clear();
  if (constraints_.size() > 0) {
    TunablePositionRounds(/*contacts=*/0, position_iterations,
                          budgeted ? s.time_budget_us * share : 0.0, nullptr, &position);
  }

  // 2. Velocity pass: rows on velocities, warm-started from last tick's impulses. Row 0 of
  // a contact keeps h v_n and allows closing a real gap, or bounces. It leaves the
  // position passes what they have not spent of their share of the budget, and always
  // takes one step, even when the budget is spent: its starting iterate (last tick's
  // impulses, or none) knows nothing of this tick's contacts, and a body landing on the
  // ground would go through it. A spent budget thus overruns by the pass's preparation and
  // one step.
  // A budget whose velocity share cannot hold even that, or that cannot hold it and the
  // contact pass with at most one step (as last measured, per row), leaves no room for a
  // contact pass (starved). So does an iteration cap whose share leaves the contact pass a
  // single step: started from impulses that an unconverged velocity pass left off by
  // centimetres (a falling wall at 5 iterations), one CG step cannot take the error out,
  // and the bricks sank 0.3 m into each other. A starved velocity pass takes the whole
  // budget and every iteration, its displacements move the poses as the contact pass would
  // have started them, and its contact rows recover penetration beyond the slop in part
  // themselves (ContactGap, of the gap before this tick's motion). A world with joints is
  // never starved: their drift has no other correction.
  step_.rows.Clear();
  BuildContactRows(step_.free_position, step_.free_orientation, true, true);
  const size_t soft_first = step_.rows.blocks.size();
  {
    const WorldView w = View();
    soft_rigid_.BuildRows(w, step_);
    soft_soft_.BuildRows(w, step_);
  }
  const size_t soft_end = step_.rows.blocks.size();
  const double velocity_floor_us = velocity_step_us_per_row_ * step_.rows.Dimensions();
  const bool out_of_time =
      budgeted &&
      (velocity_floor_us > (1.0 - share) * s.time_budget_us ||
       velocity_floor_us + contact_pass_us_per_contact_ * num_contacts > s.time_budget_us);
  const bool starved = constraints_.size() == 0 &&
                       (out_of_time || position_iterations < kMinContactPassIterations);
  const double h = settings_.dt();
  const double bounce_speed = std::max(kBounceThreshold, 2.0 * settings_.gravity.norm() * h);
  for (size_t k = 0; k < num_contacts; ++k) {
    ConstraintBlock& b = step_.rows.blocks[k];
    const double gap = step_.contacts[k].point.distance;
    const double hvn = b.violation_free.x() - ContactGap(gap);
    const double epsilon = std::max(bodies_.material[step_.contacts[k].a].restitution,
                                    bodies_.material[step_.contacts[k].b].restitution);
    if (gap <= kPenetrationSlop && hvn < -bounce_speed * h) {
      b.violation_free.x() = (1.0 + epsilon) * hvn;  // leave with -epsilon v_n
    } else {
      b.violation_free.x() = (starved ? ContactGap(gap - hvn) : std::max(gap, 0.0)) + hvn;
    }
  }
  BuildJointRows(step_.free_position, step_.free_orientation, JointLevel::kVelocityFree);
  stats_.constraint_rows = step_.rows.Dimensions();
  SolverOptions options;
  options.tolerance = s.tolerance;
  options.warm_start = s.warm_start;
  options.min_iterations = 1;
  options.max_iterations = starved ? s.max_iterations : velocity_iterations;
  const double reserve =
      starved ? 0.0 : std::max(0.0, s.time_budget_us * share - SpentSolveUs());
  const double left = s.time_budget_us - SpentSolveUs() - reserve;
  options.time_budget_us = budgeted ? std::max(1e-3, left) : 0.0;
  if (budgeted && left <= 0.0) options.max_iterations = 1;
  const SolveResult velocity = RunTunable(options);
  if (velocity.one_step_us > 0.0) {
    velocity_step_us_per_row_ = velocity.one_step_us / std::max(1, stats_.constraint_rows);
  }
  StoreWarmStart();
  FindBrokenJoints();
  // The contact blocks as solved, for the contact reports once the contact pass has used
  // them; the velocity changes, for the correction motion.
  step_.contact_pass.resize(num_contacts);
  for (size_t k = 0; k < num_contacts; ++k) {
    step_.contact_pass[k].violation = step_.rows.blocks[k].violation_free;
    step_.contact_pass[k].force = step_.rows.blocks[k].force;
  }
  step_.velocity_blocks.assign(step_.rows.blocks.begin() + num_contacts, step_.rows.blocks.end());
  StoreSoftDisplacements(soft_first, soft_end);
  step_.velocity_displacements.swap(step_.displacements);

  // 3. Contact pass, with the rest of the budget. Nothing deeper than the slop: no pass.
  double deepest = DeepestContact();
  if (starved) {
    MoveFreePoses(step_.velocity_displacements);
    deepest = DeepestContact();
  } else if (deepest > kPenetrationSlop) {
    StoreFrictionDisplacements(num_contacts);
    const double start_us = SpentSolveUs();
    deepest = TunablePositionRounds(num_contacts, position_iterations,
                                    budgeted ? s.time_budget_us : 0.0,
                                    &step_.friction_displacements, &position);
    // Alone (no joints) and with at most one step, its time is about its least.
    if (budgeted && constraints_.size() == 0 && position.iterations <= 1) {
      contact_pass_us_per_contact_ = (SpentSolveUs() - start_us) / num_contacts;
    }
  } else if (soft_end > soft_first) {
    MoveFreePoses(step_.soft_displacements);
    deepest = DeepestContact();
  }
  // The contact blocks back as the velocity pass solved them.
  for (size_t k = 0; k < num_contacts; ++k) {
    ConstraintBlock& b = step_.rows.blocks[k];
    const bool friction = b.friction > 0.0;
    b.law = friction ? ConstraintLaw::kFrictionContact : ConstraintLaw::kUnilateral;
    b.dim = friction ? 3 : 1;
    b.violation_free = step_.contact_pass[k].violation;
    b.force = step_.contact_pass[k].force;
  }
  step_.rows.blocks.resize(num_contacts);
  step_.rows.blocks.insert(step_.rows.blocks.end(), step_.velocity_blocks.begin(),
                           step_.velocity_blocks.end());
  step_.displacements.swap(step_.velocity_displacements);
  stats_.iterations = position.iterations + velocity.iterations;
  stats_.residual = velocity.residual;
  stats_.budget_exhausted = (starved && out_of_time) || position.budget_exhausted ||
                            velocity.budget_exhausted;
  stats_.max_penetration = deepest;
}

// The displacements of the first `contacts` blocks' friction impulses (per body, C H^T f
// over the tangent rows), of their rolling and spinning torques, of the drives and of the
// soft contacts (step_.soft_displacements) into step_.friction_displacements: what the
// contact pass holds fixed.
void World::StoreFrictionDisplacements(size_t contacts) {
  step_.friction_displacements = step_.soft_displacements;
  for (size_t k = 0; k < contacts; ++k) {
    const ConstraintBlock& b = step_.rows.blocks[k];
    if (b.dim < 3) continue;
    const auto add = [&](uint32_t body, const auto& jacobian) {
      if (body == kWorldBody) return;
      step_.friction_displacements[body] += step_.compliance[body].Apply(
          jacobian.row(1).transpose() * b.force.y() + jacobian.row(2).transpose() * b.force.z());
    };
    add(b.body_a, b.jacobian_a);
    add(b.body_b, b.jacobian_b);
  }
  // The contacts' rolling and spinning torques and the joints' drives (the blocks after
  // them) are held fixed alike.
  for (size_t k = contacts; k < step_.rows.blocks.size(); ++k) {
    const ConstraintBlock& b = step_.rows.blocks[k];
    if (b.law != ConstraintLaw::kRollingFriction && b.law != ConstraintLaw::kDrive) continue;
    const auto add = [&](uint32_t body, const BlockJacobian& jacobian) {
      if (body == kWorldBody) return;
      step_.friction_displacements[body] += step_.compliance[body].Apply(
          jacobian.topRows(b.dim).transpose() * b.force.head(b.dim));
    };
    add(b.body_a, b.jacobian_a);
    add(b.body_b, b.jacobian_b);
  }
}

// The rigid bodies' displacements under the forces of the soft contacts' blocks [first, end)
// (C H^T f on their rigid sides) into step_.soft_displacements.
void World::StoreSoftDisplacements(size_t first, size_t end) {
  const uint32_t n = static_cast<uint32_t>(bodies_.size());
  step_.soft_displacements.assign(n, Vec6::Zero());
  for (size_t k = first; k < end; ++k) {
    const ConstraintBlock& b = step_.rows.blocks[k];
    const auto add = [&](uint32_t body, const BlockJacobian& jacobian) {
      if (body >= n) return;  // the world, or a soft point
      step_.soft_displacements[body] +=
          step_.compliance[body].Apply(jacobian.topRows(b.dim).transpose() * b.force.head(b.dim));
    };
    add(b.body_a, b.jacobian_a);
    add(b.body_b, b.jacobian_b);
  }
}

// The free-motion poses moved by displacements dq; contacts' distances move with them (to
// first order), so that a next round, the velocity pass and the reported penetration see
// what is left.
void World::MoveFreePoses(const std::vector<Vec6>& dq) {
  for (RigidContact& c : step_.contacts) {
    c.point.distance += ContactGapChange(c.point, c.a, c.b, step_.free_position, dq);
  }
  const int n = bodies_.size();
  for (int i = 0; i < n; ++i) {
    if (bodies_.kind[i] != BodyKind::kDynamic) continue;
    step_.free_position[i] += dq[i].head<3>();
    step_.free_orientation[i] = Rotated(step_.free_orientation[i], dq[i].tail<3>());
  }
}

// The deepest overlap of the rigid contacts at their current distances (m, 0 for none).
double World::DeepestContact() const {
  double deepest = 0.0;
  for (const RigidContact& c : step_.contacts) deepest = std::max(deepest, -c.point.distance);
  return deepest;
}

// Solver time spent so far this tick (us): the passes share the budget by it.
double World::SpentSolveUs() const { return stats_.solve_ms * 1000.0; }

// A position pass of the tunable pipeline: the first `contacts` blocks of step_.rows (contact
// blocks, built by the velocity pass, 0 for none) by their normal row alone, and the joint
// rows, at the free-motion poses; the displacements move these poses alone. The rows are
// linear in the displacements while the joints are not, so with joints the pass repeats,
// re-linearized at the corrected poses (Newton steps), until the joints' error is within
// the tolerance, for at most kMaxPositionRounds rounds of `iterations` each, until the
// solver time spent this tick reaches `budget_end_us` (0: no budget).
// With `fixed` (per body), the first round starts from the contact blocks' forces (this
// tick's impulses): their normal parts as starting forces, their friction parts as the
// fixed displacements `fixed`, which the poses take along. Joint rows start from zero.
// Returns the deepest penetration left; adds its iterations and budget to *result.
double World::TunablePositionRounds(size_t contacts, int iterations, double budget_end_us,
                                    const std::vector<Vec6>* fixed, SolveResult* result) {
  constexpr int kMaxPositionRounds = 4;
  // A contact pass without joints only removes penetration beyond the slop: within a
  // fiftieth of the slop of that it is done, and what is left waits a tick. Solved to the
  // world's tolerance (1e-7 m in the paper's scenes), the wall's pass took all its steps
  // every tick. A tolerance of 0 still asks for every iteration.
  constexpr double kContactPassTolerance = 0.02 * kPenetrationSlop;
  const SolverSettings& s = settings_.solver;
  const int n = bodies_.size();
  const bool budgeted = budget_end_us > 0.0;
  const int rounds = constraints_.size() > 0 ? kMaxPositionRounds : 1;
  SolverOptions options;
  options.tolerance = contacts > 0 && constraints_.size() == 0 && s.tolerance > 0.0
                          ? std::max(s.tolerance, kContactPassTolerance)
                          : s.tolerance;
  options.min_iterations = 0;
  options.max_iterations = iterations;
  for (int round = 0; round < rounds; ++round) {
    // Another round only when the budget is not spent.
    if (round > 0 && budgeted && SpentSolveUs() >= budget_end_us) {
      result->budget_exhausted = true;
      break;
    }
    const bool start = round == 0 && fixed != nullptr;
    for (size_t k = 0; k < contacts; ++k) {
      ConstraintBlock& b = step_.rows.blocks[k];
      const double normal = start ? std::max(b.force.x(), 0.0) : 0.0;
      b.law = ConstraintLaw::kUnilateral;
      b.dim = 1;
      b.violation_free = Vec3(step_.contacts[k].point.distance + kPenetrationSlop, 0.0, 0.0);
      if (start) b.violation_free.x() += NormalRowChange(b, *fixed);
      b.force = Vec3(normal, 0.0, 0.0);
    }
    step_.rows.blocks.resize(contacts);
    BuildJointRows(step_.free_position, step_.free_orientation, JointLevel::kPosition);
    if (step_.rows.blocks.empty()) break;
    if (round > 0) {
      double error = 0.0;
      for (size_t k = contacts; k < step_.rows.blocks.size(); ++k) {
        const ConstraintBlock& b = step_.rows.blocks[k];
        for (int d = 0; d < b.dim; ++d) {
          const double v = b.violation_free[d];
          error = std::max(error, b.law == ConstraintLaw::kUnilateral ? -v : std::abs(v));
        }
      }
      if (error <= s.tolerance) break;
    }
    for (size_t k = contacts; k < step_.rows.blocks.size(); ++k) {
      step_.rows.blocks[k].force.setZero();
    }
    options.warm_start = start;
    // Started from the impulses, a pass whose budget is spent during its preparation still
    // returns them (the poses then move as the solved velocities would move them);
    // otherwise it keeps to its budget strictly and returns no correction.
    options.keep_warm_when_late = start;
    options.time_budget_us = budgeted ? std::max(1e-3, budget_end_us - SpentSolveUs()) : 0.0;
    const SolveResult r = RunTunable(options);
    result->iterations += r.iterations;
    result->budget_exhausted |= r.budget_exhausted;
    if (start) {
      for (int i = 0; i < n; ++i) step_.displacements[i] += (*fixed)[i];
    }
    MoveFreePoses(step_.displacements);
  }
  return DeepestContact();
}

// Post-stabilization of the joints (Gauss-Seidel pipeline): the solve linearized the joints
// at the free-motion poses, and large rotations leave a second-order error. The joint rows
// are rebuilt at the corrected poses and solved once more; the displacements move the
// poses alone, so drift is removed without feeding energy into the velocities.
void World::StabilizeJoints() {
  if (settings_.solver.kind != SolverKind::kGaussSeidel || constraints_.size() == 0) return;
  const int n = bodies_.size();
  step_.rows.Clear();
  BuildJointRows(bodies_.position, bodies_.orientation, JointLevel::kPosition);
  if (step_.rows.blocks.empty()) return;
  for (ConstraintBlock& b : step_.rows.blocks) {
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
  options.direct_bilateral = true;
  step_.gauss_seidel.Solve(step_.rows, step_.compliance, options, &step_.displacements);
  for (int i = 0; i < n; ++i) {
    if (!bodies_.Moves(i)) continue;
    const Vec3 p = bodies_.position[i] + step_.displacements[i].head<3>();
    const Quat q = Rotated(bodies_.orientation[i], step_.displacements[i].tail<3>());
    if (!p.allFinite() || !q.coeffs().allFinite()) continue;
    bodies_.position[i] = p;
    bodies_.orientation[i] = q;
  }
}

// Deepest overlap left by a Gauss-Seidel step: each contact's gap after the step, to first
// order, is its distance plus the change of its normal row (h v_n + J dq).
double World::MaxPenetration() const {
  const PenetrationRecovery recovery = ContactRecovery();
  double deepest = 0.0;
  const auto deepen = [&](const ConstraintBlock& b, double distance) {
    const double after = b.violation_free.x() - ContactGap(distance, recovery) + distance +
                         NormalRowChange(b, step_.displacements);
    deepest = std::max(deepest, -after);
  };
  for (size_t k = 0; k < step_.contacts.size(); ++k) {
    deepen(step_.rows.blocks[k], step_.contacts[k].point.distance);
  }
  // The couplings' contacts, each at its own block.
  const auto deepen_coupled = [&](size_t block, const ContactRecord& c) {
    deepen(step_.rows.blocks[block], c.contact.distance);
  };
  soft_rigid_.ForEachContact(deepen_coupled);
  soft_soft_.ForEachContact(deepen_coupled);
  rod_rigid_.ForEachContact(deepen_coupled);
  rod_soft_.ForEachContact(deepen_coupled);
  return deepest;
}

}  // namespace ligature
