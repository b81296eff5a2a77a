// Substeps of the Gauss-Seidel pipeline (SolverSettings::substeps). Contacts are found and
// the rows built once, at the start of the tick; each substep then moves the bodies over
// its share of the tick and solves the rows where the bodies are now. A contact row keeps
// its directions, and its gap is what it was at the start of the tick moved on by the
// bodies' motion since (J times their displacement, to first order); the joints' rows are
// built again at each substep's poses; every row adds h J v for the substep ahead. Short
// steps keep tall stacks standing where one long step lets them rock and topple (gravity's
// pull over a substep is small against what the contacts hold), and chains carrying heavy
// loads in line.

#include <algorithm>

#include "server/constraint/contact_rows.h"
#include "server/world/world.h"

namespace ligature {

// Substeps apply to rigid bodies solved by Gauss-Seidel alone: soft bodies and rods couple
// through one solve per tick.
int World::Substeps() const {
  if (settings_.solver.kind != SolverKind::kGaussSeidel) return 1;
  if (!soft_.empty() || !rods_.empty()) return 1;
  return std::max(1, settings_.solver.substeps);
}

// Contacts within substeps: soft between two moving bodies, and pushed out of all their
// overlap beyond the substep slop (kSubstepRecovery) each substep. The softness damps what
// the few sweeps of a substep leave wrong, which would otherwise rock a tall stack until it
// falls; the relaxation (RelaxSubstep) keeps the push-out from flinging bodies apart.
PenetrationRecovery World::ContactRecovery() const {
  return step_.substeps > 1 ? kSubstepRecovery : PenetrationRecovery{};
}

double World::SubstepContactSoftness() const {
  // Each contact's normal compliance, as a share of its own W_nn.
  constexpr double kSoftness = 0.2;
  return step_.substeps > 1 ? kSoftness : 0.0;
}

namespace {

// The rigid bodies a block's rows act on, as dense indices (kWorldBody for none). A
// contact's are its two bodies, kinematic and static ones included: its rows carry their
// motion though the solve moves neither.
struct RowBodies {
  uint32_t a = kWorldBody;
  uint32_t b = kWorldBody;
};

// The block's rows times one 6-vector per body (a velocity or a displacement).
template <typename PerBody>
Vec3 AlongRows(const ConstraintBlock& block, RowBodies on, const PerBody& per_body) {
  Vec3 out = Vec3::Zero();
  if (on.a != kWorldBody) out += block.jacobian_a * per_body(on.a);
  if (on.b != kWorldBody) out += block.jacobian_b * per_body(on.b);
  return out;
}

// Each rigid body's velocity [v, w], by dense index.
struct Velocities {
  const RigidBodies& bodies;
  Vec6 operator()(uint32_t i) const {
    Vec6 v;
    v << bodies.linear_velocity[i], bodies.angular_velocity[i];
    return v;
  }
};

}  // namespace

// What the rows keep from the start of the tick: the poses, each contact's distance, and
// each rolling-resistance block's violation less its h J v.
void World::KeepRowsForSubsteps() {
  step_.tick_position = bodies_.position;
  step_.tick_orientation = bodies_.orientation;
  step_.tick_distance.clear();
  for (const RigidContact& c : step_.contacts) step_.tick_distance.push_back(c.point.distance);
  step_.tick_violation.clear();
  for (size_t k = step_.contacts.size(); k < step_.first_joint_block; ++k) {
    const ConstraintBlock& b = step_.rows.blocks[k];
    const Vec3 hjv = step_.h * AlongRows(b, {b.body_a, b.body_b}, Velocities{bodies_});
    step_.tick_violation.push_back(b.violation_free - hjv);
  }
  // The first substep's pushes: the contacts' overlaps.
  step_.substep_push.assign(step_.rows.blocks.size(), Vec3::Zero());
  for (size_t k = 0; k < step_.contacts.size(); ++k) {
    step_.substep_push[k].x() = OverlapPush(step_.contacts[k].point.distance);
  }
}

// The part of a contact's gap that pushes it out of an overlap (zero when apart).
double World::OverlapPush(double distance) const {
  return distance < 0.0 ? ContactGap(distance, ContactRecovery()) : 0.0;
}

// A later substep: free motion over it, then each contact row's violation where the bodies
// are now, and the joints' rows built again there. A contact's distance moves by its normal
// row's share of the motion (its rows are otherwise h J v, as MakeContactBlock builds
// them); rolling resistance keeps its part of the tick. The forces the substep before
// solved stay in the rows: they are this substep's warm start.
void World::BeginSubstep() {
  IntegrateFreeMotion();
  RebuildJointRows();
  const auto motion = [&](uint32_t i) {
    Vec6 d;
    d << bodies_.position[i] - step_.tick_position[i],
        RotationBetween(step_.tick_orientation[i], bodies_.orientation[i]);
    return d;
  };
  const Velocities velocity{bodies_};
  const PenetrationRecovery recovery = ContactRecovery();
  std::vector<ConstraintBlock>& blocks = step_.rows.blocks;
  for (size_t k = 0; k < step_.contacts.size(); ++k) {
    ConstraintBlock& b = blocks[k];
    const RowBodies on{step_.contacts[k].a, step_.contacts[k].b};
    const double distance = step_.tick_distance[k] + AlongRows(b, on, motion).x();
    step_.contacts[k].point.distance = distance;
    b.violation_free = step_.h * AlongRows(b, on, velocity);
    b.violation_free.x() += ContactGap(distance, recovery);
    step_.substep_push[k].x() = OverlapPush(distance);
  }
  for (size_t k = step_.contacts.size(); k < step_.first_joint_block; ++k) {
    ConstraintBlock& b = blocks[k];
    b.violation_free = step_.tick_violation[k - step_.contacts.size()] +
                       step_.h * AlongRows(b, {b.body_a, b.body_b}, velocity);
  }
}

// The joints' rows where the bodies now are, at velocity level: a joint's lever arms and
// axes turn with its bodies within the tick. Kept fixed, a chain carrying a heavy load
// swings ever further out of line: its links' sideways modes are stiff under the load's
// tension, and only a substep's short step with rows that follow them keeps those modes
// stable. Joint drift is removed after the last substep (StabilizeJoints), as in one step;
// the forces of the substep before are the warm start.
void World::RebuildJointRows() {
  std::vector<ConstraintBlock>& blocks = step_.rows.blocks;
  const size_t first = step_.first_joint_block;
  step_.joint_forces.clear();
  for (size_t k = first; k < blocks.size(); ++k) step_.joint_forces.push_back(blocks[k].force);
  blocks.resize(first);
  BuildJointRows(bodies_.position, bodies_.orientation, JointLevel::kVelocity);
  if (blocks.size() - first == step_.joint_forces.size()) {
    for (size_t k = first; k < blocks.size(); ++k) blocks[k].force = step_.joint_forces[k - first];
  }
  step_.substep_push.resize(blocks.size(), Vec3::Zero());
}

// The substep's velocities without the pushes that removed overlap (a relaxation, as split
// impulses do): the solve is taken on from its forces with those pushes left out, for three
// sweeps, and its displacements set the velocities while the poses keep the solve's. Bodies
// pushed out of an overlap do not fly on from it. A body resting on several contacts needs
// more than one sweep to lose its push: with one, a wall's top bricks kept bouncing and
// never came to rest.
void World::RelaxSubstep(std::span<const CoupledPoints> groups, SolverOptions options) {
  constexpr int kRelaxSweeps = 3;
  std::vector<ConstraintBlock>& blocks = step_.rows.blocks;
  for (size_t k = 0; k < blocks.size(); ++k) blocks[k].violation_free -= step_.substep_push[k];
  options.max_iterations = kRelaxSweeps;
  options.warm_start = true;
  options.kept_blocks = blocks.size();
  options.contact_softness = 0.0;
  options.time_budget_us = 0.0;
  step_.gauss_seidel.Solve(step_.rows, step_.compliance, groups, options,
                           &step_.velocity_displacements);
  for (size_t k = 0; k < blocks.size(); ++k) blocks[k].violation_free += step_.substep_push[k];
}

}  // namespace ligature
