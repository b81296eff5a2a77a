// The step pipeline of a world, one function per stage, in the order Step() runs them.
//
// Two solver pipelines share the stages:
//  - Gauss-Seidel (default): contacts are found at the start-of-tick poses with a
//    speculative margin and solved at position level (delta = gap + h v), joints at
//    velocity level (delta = h J v); one solve gives displacements dq, the correction motion
//    sets x = x_free + dq, v = v_free + dq / h, and the joints are then re-projected on
//    positions alone (StabilizeJoints).
//  - Tunable LCP (post-stabilized, after the tunable-LCP paper): contacts are found at the
//    free-motion poses; a joint pass removes joint drift by displacements alone; a velocity
//    pass solves contact and joint rows on velocities (delta = h J v) with Coulomb friction
//    and Poisson restitution; a contact pass then moves the poses by the displacements of
//    those impulses and removes the penetration left; the time budget is split between
//    the passes.

#include <algorithm>
#include <chrono>
#include <cmath>

#include "server/collision/narrowphase.h"
#include "absl/container/flat_hash_set.h"
#include "server/world/world.h"

namespace ligature {

void World::Step() {
  const auto start = std::chrono::steady_clock::now();
  divergence_.reset();  // a rollback is reported in one frame only
  ApplyDeviceTargets();
  AccumulateForces();
  ApplyHapticCouplings();
  // Contacts are found and the rows built once a tick; the rigid bodies then move in
  // substeps, each solving the rows where the bodies have moved since (world_substeps.cc).
  step_.substeps = Substeps();
  stats_.substeps = step_.substeps;
  step_.h = settings_.dt() / step_.substeps;
  IntegrateFreeMotion();
  IntegrateSoftFreeMotion();
  DetectCollisions();
  DetectSoftContacts();
  DetectRodContacts();
  step_.substep = 0;
  BuildConstraintRows();
  for (; step_.substep < step_.substeps; ++step_.substep) {
    if (step_.substep > 0) BeginSubstep();
    SolveConstraints();
    ApplyCorrectionMotion();
  }
  step_.h = settings_.dt();
  ApplyCouplingForces();
  StabilizeJoints();
  // The rigid shapes deformable bodies meet, once a tick for rods and soft bodies.
  if (!rods_.empty() || !soft_.empty() || !strands_.empty()) BuildObstacles();
  StepRods();
  StepSoftBodies();
  StepStrands();
  RemoveEndedJoints();
  UpdateSleep();
  // Constraints removed by this tick's edits are reported in this tick's frame.
  tick_removed_constraints_ = std::move(removed_constraints_);
  removed_constraints_.clear();
  ++tick_;
  sim_time_ = static_cast<double>(tick_) * settings_.dt();
  ReportEvents();
  stats_.step_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
  counters_.Record(stats_);
  PublishHapticModels();
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
  step_.force.assign(n, Vec3::Zero());
  for (int i = 0; i < n; ++i) {
    if (bodies_.inv_mass[i] > 0.0) step_.force[i] = settings_.gravity / bodies_.inv_mass[i];
  }
}

// Free motion (semi-implicit Euler): velocities take the external forces, and the poses the
// bodies would reach unconstrained are kept for the constraints' violations. Static and
// sleeping bodies stay.
void World::IntegrateFreeMotion() {
  const int n = bodies_.size();
  const double h = step_.h;
  step_.free_position.resize(n);
  step_.free_orientation.resize(n);
  for (int i = 0; i < n; ++i) {
    if (bodies_.kind[i] == BodyKind::kStatic || bodies_.IsAsleep(i)) {
      step_.free_position[i] = bodies_.position[i];
      step_.free_orientation[i] = bodies_.orientation[i];
      continue;
    }
    bodies_.linear_velocity[i] += h * bodies_.inv_mass[i] * step_.force[i];
    step_.free_position[i] = bodies_.position[i] + h * bodies_.linear_velocity[i];
    step_.free_orientation[i] = Rotated(bodies_.orientation[i], h * bodies_.angular_velocity[i]);
  }
}

// Broadphase over each body's bounds (the union of its shapes'), then the narrowphase
// table on the pairs of shapes of the candidate pairs whose own bounds meet. Gauss-Seidel
// looks at the start-of-tick poses with bounds grown by the step's motion (speculative
// contacts, so fast bodies do not tunnel); the tunable pipeline looks at the free-motion
// poses.
void World::DetectCollisions() {
  const int n = bodies_.size();
  const double h = settings_.dt();
  const double margin = settings_.contact_margin;
  const bool speculative = settings_.solver.kind == SolverKind::kGaussSeidel;
  const std::vector<Vec3>& positions = speculative ? bodies_.position : step_.free_position;
  const std::vector<Quat>& orientations =
      speculative ? bodies_.orientation : step_.free_orientation;
  // Each shape placed once a tick, its bounds grown by half the margin and the body's
  // reach: two shapes whose bounds are apart are further apart than the pair's margin
  // (margin + both reaches).
  step_.aabbs.resize(n);
  step_.reach.resize(n);
  step_.placed.clear();
  step_.placed_start.resize(n + 1);
  step_.has_sensor.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    step_.reach[i] = speculative ? h * bodies_.linear_velocity[i].norm() : 0.0;
    const Transform pose{positions[i], orientations[i]};
    const double grow = 0.5 * margin + step_.reach[i];
    const std::size_t first = step_.placed.size();
    step_.placed_start[i] = static_cast<uint32_t>(first);
    for (size_t k = 0; k < bodies_.shapes[i].size(); ++k) {
      step_.placed.push_back(PlaceShape(bodies_.shapes[i][k], pose, grow));
      step_.has_sensor[i] |= bodies_.ChildFilter(i, k).sensor;
    }
    step_.aabbs[i] = step_.placed[first].bounds;
    for (std::size_t k = first + 1; k < step_.placed.size(); ++k) {
      step_.aabbs[i].Enclose(step_.placed[k].bounds);
    }
  }
  step_.placed_start[n] = static_cast<uint32_t>(step_.placed.size());
  FindCandidatePairs();

  // Bodies joined by a constraint do not collide with each other (a chain's links touch at
  // their joints by design), unless the constraint says they do.
  step_.jointed.clear();
  for (const Joint& j : constraints_.joints()) {
    if (j.body_a.IsNull() || j.body_b.IsNull() || j.collide_connected) continue;
    const uint32_t a = bodies_.Index(j.body_a), b = bodies_.Index(j.body_b);
    step_.jointed.push_back({std::min(a, b), std::max(a, b)});
  }
  std::sort(step_.jointed.begin(), step_.jointed.end());
  WakeTouchedSleepers();

  step_.contacts.clear();
  step_.sensor_overlaps.clear();
  for (const auto& [a, b] : step_.pairs) {
    // Sensors see jointed bodies too, and only matter while events are reported.
    if (reporting_.enabled && (step_.has_sensor[a] || step_.has_sensor[b])) {
      DetectSensorOverlaps(a, b);
    }
    // Contacts move a body only when it is dynamic and awake; once the sleepers touched
    // have woken, a sleeper touches nothing that moves.
    if (!bodies_.Moves(a) && !bodies_.Moves(b)) continue;
    if (bodies_.IsAsleep(a) || bodies_.IsAsleep(b) || IsJointedPair(a, b)) continue;
    CollidePair(a, b, &step_.contacts);
  }
  stats_.contacts = static_cast<int>(step_.contacts.size());
}

// The broadphase's candidate pairs. While some bodies sleep, only pairs with a body that
// moves this tick (MovingPairs): two resting bodies have nothing new between them.
void World::FindCandidatePairs() {
  if (!AnyAsleep()) {
    step_.broadphase.FindPairs(step_.aabbs, &step_.pairs);
    return;
  }
  const int n = bodies_.size();
  step_.moving.resize(n);
  for (int i = 0; i < n; ++i) step_.moving[i] = bodies_.Moves(i) || MovingKinematic(i);
  step_.moving_pairs.FindPairs(step_.aabbs, step_.moving, &step_.pairs);
}

bool World::IsJointedPair(uint32_t a, uint32_t b) const {
  return std::binary_search(step_.jointed.begin(), step_.jointed.end(), ProxyPair{a, b});
}

// The narrowphase on the shapes of candidate pair (a, b), at the tick's placed shapes, within
// the pair's margin (the contact margin and both bodies' reach).
bool World::CollidePair(uint32_t a, uint32_t b, std::vector<RigidContact>* out) const {
  const size_t before = out->size();
  const double pair_margin = settings_.contact_margin + step_.reach[a] + step_.reach[b];
  const std::vector<ChildShape>& shapes_a = bodies_.shapes[a];
  const std::vector<ChildShape>& shapes_b = bodies_.shapes[b];
  const uint32_t first_a = step_.placed_start[a];
  const uint32_t first_b = step_.placed_start[b];
  ContactManifold manifold;
  for (std::size_t ka = 0; ka < shapes_a.size(); ++ka) {
    const PlacedShape& sa = step_.placed[first_a + ka];
    const CollisionFilter& fa = bodies_.ChildFilter(a, ka);
    for (std::size_t kb = 0; kb < shapes_b.size(); ++kb) {
      const PlacedShape& sb = step_.placed[first_b + kb];
      // Shapes whose layers and masks do not meet pass through each other, as sensors
      // pass through everything.
      const CollisionFilter& fb = bodies_.ChildFilter(b, kb);
      if (fa.sensor || fb.sensor || !fa.Meets(fb) || BoundsApart(sa, sb)) continue;
      manifold.count = 0;
      Collide(shapes_a[ka].shape, sa.pose, shapes_b[kb].shape, sb.pose, pair_margin, &manifold);
      for (int k = 0; k < manifold.count; ++k) out->push_back({a, b, manifold.points[k]});
    }
  }
  return out->size() > before;
}

// The sensor shapes of a candidate pair against the other body's solid shapes whose layers
// and masks meet them, at the free-motion poses: where the bodies are headed this tick, and
// for device-driven bodies where their devices put them. Two static bodies never meet.
void World::DetectSensorOverlaps(uint32_t a, uint32_t b) {
  if (bodies_.kind[a] == BodyKind::kStatic && bodies_.kind[b] == BodyKind::kStatic) return;
  ContactManifold manifold;
  for (const auto& [s, o] : {ProxyPair{a, b}, ProxyPair{b, a}}) {
    if (!step_.has_sensor[s]) continue;
    const Transform sensor_pose{step_.free_position[s], step_.free_orientation[s]};
    const Transform other_pose{step_.free_position[o], step_.free_orientation[o]};
    for (size_t ks = 0; ks < bodies_.shapes[s].size(); ++ks) {
      const CollisionFilter& fs = bodies_.ChildFilter(s, ks);
      if (!fs.sensor) continue;
      const PlacedShape ps = PlaceShape(bodies_.shapes[s][ks], sensor_pose, 0.0);
      for (size_t ko = 0; ko < bodies_.shapes[o].size(); ++ko) {
        const CollisionFilter& fo = bodies_.ChildFilter(o, ko);
        if (fo.sensor || !fs.Meets(fo)) continue;
        const PlacedShape po = PlaceShape(bodies_.shapes[o][ko], other_pose, 0.0);
        if (BoundsApart(ps, po)) continue;
        manifold.count = 0;
        Collide(bodies_.shapes[s][ks].shape, ps.pose, bodies_.shapes[o][ko].shape, po.pose, 0.0,
                &manifold);
        const auto end = manifold.points.begin() + manifold.count;
        if (std::any_of(manifold.points.begin(), end,
                        [](const ContactPoint& p) { return p.distance <= 0.0; })) {
          step_.sensor_overlaps.push_back({s, static_cast<int>(ks), o});
          break;
        }
      }
    }
  }
}

// Gauss-Seidel rows: every contact (warm-started from the cache, position level with a
// speculative gap) and every joint at velocity level; joint drift is removed afterwards by
// StabilizeJoints. The tunable pipeline builds its rows pass by pass (SolveTunable).
void World::BuildConstraintRows() {
  contact_cache_.BeginTick();
  step_.rows.Clear();
  if (settings_.solver.kind != SolverKind::kGaussSeidel) return;
  BuildContactRows(bodies_.position, bodies_.orientation, true, true);
  step_.first_joint_block = step_.rows.blocks.size();
  BuildJointRows(bodies_.position, bodies_.orientation, JointLevel::kVelocity);
  if (step_.substeps > 1) KeepRowsForSubsteps();
  // The couplings' blocks follow, in the order their solver points are numbered.
  const WorldView w = View();
  soft_rigid_.BuildRows(w, step_);
  soft_soft_.BuildRows(w, step_);
  rod_rigid_.BuildRows(w, step_);
  rod_soft_.BuildRows(w, step_);
  stats_.constraint_rows = step_.rows.Dimensions();
}

// Removes the curve constraints released and the joints broken during the step and
// reports them in its frame.
void World::RemoveEndedJoints() {
  std::vector<std::string> ids;
  for (uint32_t k : step_.released) ids.push_back(constraints_.joints()[k].id);
  tick_broken_joints_.clear();
  for (const StepContext::Overload& o : step_.broken) {
    const std::string& id = constraints_.joints()[o.joint].id;
    tick_broken_joints_.push_back({id, o.force, o.torque});
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  step_.released.clear();
  step_.broken.clear();
  for (std::string& id : ids) {
    constraints_.Remove(id);
    removed_constraints_.push_back(std::move(id));
  }
}

// The solve stage. Its solver calls are timed (RunSolver): the time budget covers them and
// the frame reports their sum.
void World::SolveConstraints() {
  if (step_.substep == 0) {
    stats_.budget_exhausted = false;
    stats_.solve_ms = 0.0;
    stats_.iterations = 0;
  }
  if (settings_.solver.kind == SolverKind::kTunableLcp) {
    SolveTunable();
  } else {
    SolveGaussSeidel();
  }
  // The contact record is the last substep's.
  if (step_.substep + 1 == step_.substeps) RecordContacts();
}

// Correction motion. Gauss-Seidel: the free poses plus the constraint displacements dq,
// velocities made consistent (v = v_free + dq / h). Tunable: the poses are the
// position-corrected free poses and the velocity pass's dq changes the velocities.
// Orientations are renormalized by Rotated(). A body whose new state is not finite (a
// numerical failure) is held where it was, at rest, and counted, so that one bad body never
// poisons the world.
void World::ApplyCorrectionMotion() {
  const int n = bodies_.size();
  const double h = step_.h;
  const bool tunable = settings_.solver.kind == SolverKind::kTunableLcp;
  stats_.recovered_bodies = 0;
  for (int i = 0; i < n; ++i) {
    if (bodies_.kind[i] == BodyKind::kStatic || bodies_.IsAsleep(i)) continue;
    const Vec6& dq = step_.displacements[i];
    const Vec3 position = tunable ? step_.free_position[i] : step_.free_position[i] + dq.head<3>();
    const Quat orientation =
        tunable ? step_.free_orientation[i] : Rotated(step_.free_orientation[i], dq.tail<3>());
    // Substeps take their velocities from the relaxed solve (RelaxSubstep).
    const Vec6& dv = step_.substeps > 1 ? step_.velocity_displacements[i] : dq;
    const Vec3 v = bodies_.linear_velocity[i] + dv.head<3>() / h;
    const Vec3 w = bodies_.angular_velocity[i] + dv.tail<3>() / h;
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
  if (!tunable && step_.substep + 1 == step_.substeps) stats_.max_penetration = MaxPenetration();
}

// Rods take their own implicit step (RodWorld), after the rigid bodies have moved, so that
// constraints following a body (a device-driven tool) use its pose at the end of the tick.
// When their contacts with rigid bodies went through the Gauss-Seidel solve, their step
// began before it (RodRigidCoupling::FindContacts) and ends here with the solved forces.
// Keyholes a rod slid out of are reported with this tick's removed constraints.
void World::StepRods() {
  if (rods_.empty()) return;
  if (step_.rod_step_begun) {
    if (step_.rod_step_ok) {
      std::vector<RodWorld::PointRef> points;
      points.reserve(step_.rod_points.size());
      for (const RodSolverPoint& p : step_.rod_points) points.push_back(p.ref);
      rods_.FinishCoupledStep(settings_.dt(), points, step_.rod_point_forces,
                              step_.rod_normal_forces,
                              [this](const std::string& id) { return Followed(id); });
    }
  } else {
    rods_.Step(settings_.dt(), settings_.gravity,
               [this](const std::string& id) { return Followed(id); }, step_.obstacles);
  }
  for (const std::string& id : rods_.released()) removed_constraints_.push_back(id);
  ApplyRodPushes();
}

// Every rigid shape where it now is, for the deformable bodies: they push on them and do
// not pass through them. A body that rod or soft constraints follow (a handle) is not an
// obstacle, as jointed bodies do not collide.
void World::BuildObstacles() {
  step_.obstacles.clear();
  const WorldView w = View();
  const absl::flat_hash_set<uint32_t> handles = w.Handles();
  for (int i = 0; i < bodies_.size(); ++i) {
    if (handles.contains(static_cast<uint32_t>(i))) continue;
    const size_t first = step_.obstacles.size();
    w.AppendObstacles(static_cast<uint32_t>(i), 0.0, &step_.obstacles);
    const bool blade = scalpels_.contains(bodies_.id[i]);
    const Mat3 r = bodies_.orientation[i].toRotationMatrix();
    for (size_t k = first; k < step_.obstacles.size(); ++k) {
      Obstacle& o = step_.obstacles[k];
      o.blade = blade;
      if (bodies_.IsDynamic(i)) {
        o.inv_mass = bodies_.inv_mass[i];
        o.inv_inertia = r * bodies_.inv_inertia_local[i] * r.transpose();
        o.center = bodies_.position[i];
      }
    }
  }
}

// The rods' solve moved each dynamic body they touch along the contact normal by `push`
// and each bead by its push
// (at the contact point, with the body's share of effective mass there): that is the
// impulse mass * push / h at the point, which changes the body's velocity and, over the
// tick, its pose.
void World::ApplyRodPushes() {
  const double h = settings_.dt();
  for (const RodContact& c : rods_.contacts()) {
    // A non-finite push (a failed rod solve) never reaches a body.
    if (!(c.mass > 0.0) || c.push == 0.0 || !std::isfinite(c.push)) continue;
    const uint32_t i = c.body;
    if (!bodies_.IsDynamic(i)) continue;
    WakeBody(i);
    ApplyImpulse(i, c.point, (c.mass * c.push / h) * c.normal, /*move_pose=*/true);
  }
  // Beads (bodies threaded on a rod by a keyhole) moved as points with the rod.
  for (const RodWorld::BeadPush& b : rods_.BeadPushes()) {
    auto it = body_ids_.find(b.body);
    if (it == body_ids_.end() || !b.push.allFinite()) continue;
    const uint32_t i = bodies_.Index(it->second);
    WakeBody(i);
    bodies_.position[i] += b.push;
    bodies_.linear_velocity[i] += b.push / h;
  }
}

// Soft bodies take their own step (SoftWorld), after the rigid bodies, so that nails that
// follow a body (a device-driven tool) use its pose at the end of the tick. The bodies that
// met the rigid ones through the solve (IntegrateSoftFreeMotion) have moved already; the
// others are projected out of the rigid shapes, and scalpels cut.
void World::StepSoftBodies() {
  if (soft_.empty()) return;
  soft_.Step(sim_time_, settings_.dt(), settings_.gravity,
             [this](const std::string& id) -> std::optional<Transform> {
               const std::optional<FollowedBody> body = Followed(id);
               if (!body) return std::nullopt;
               return body->pose;
             },
             step_.obstacles, Scalpels());
  stats_.recovered_bodies += soft_.last_recovered();
  // What the soft bodies' vertices lost on meeting dynamic bodies, those bodies take.
  for (const SoftWorld::Push& p : soft_.pushes()) {
    if (!bodies_.IsDynamic(p.body) || !p.impulse.allFinite()) continue;
    WakeBody(p.body);
    ApplyImpulse(p.body, p.point, p.impulse, /*move_pose=*/false);
  }
}

// The scalpels where they now are.
std::vector<SoftTool> World::Scalpels() const {
  std::vector<SoftTool> tools;
  for (const auto& [id, scalpel] : scalpels_) {
    auto it = body_ids_.find(id);
    if (it == body_ids_.end()) continue;
    const uint32_t i = bodies_.Index(it->second);
    tools.push_back({id, bodies_.BodyPose(i), scalpel, bodies_.collision[i]});
  }
  return tools;
}

// Strands take their own implicit step (StrandWorld) after the rigid bodies, so that bases
// that follow a body (a device-driven head) take its pose at the end of the tick. They meet
// every rigid shape, moving with its body; strands that failed are counted as recovered.
void World::StepStrands() {
  if (strands_.empty()) return;
  strands_.Step(
      sim_time_ + settings_.dt(), settings_.dt(), settings_.gravity,
      [this](const std::string& id) { return Followed(id); }, step_.obstacles,
      [this](uint32_t i) -> std::optional<ObstacleMotion> {
        if (static_cast<int>(i) >= bodies_.size()) return std::nullopt;
        return ObstacleMotion{bodies_.position[i], bodies_.linear_velocity[i],
                              bodies_.angular_velocity[i]};
      });
  stats_.recovered_bodies += strands_.last_stats().recovered;
}

// An impulse (N s) at a world point on dynamic body i changes its velocities; with
// move_pose, also its pose over the tick (the deformable solve already moved it so).
void World::ApplyImpulse(uint32_t i, const Vec3& point, const Vec3& impulse, bool move_pose) {
  const Mat3 r = bodies_.orientation[i].toRotationMatrix();
  const Vec3 dv = bodies_.inv_mass[i] * impulse;
  const Vec3 dw = r * bodies_.inv_inertia_local[i] * r.transpose() *
                  (point - bodies_.position[i]).cross(impulse);
  bodies_.linear_velocity[i] += dv;
  bodies_.angular_velocity[i] += dw;
  if (!move_pose) return;
  const double h = settings_.dt();
  bodies_.position[i] += h * dv;
  bodies_.orientation[i] = Rotated(bodies_.orientation[i], h * dw);
}

// The pose of a rigid body by id and, when dynamic, its mass: what deformable bodies'
// constraints follow.
std::optional<FollowedBody> World::Followed(const std::string& id) const {
  auto it = body_ids_.find(id);
  if (it == body_ids_.end()) return std::nullopt;
  const uint32_t i = bodies_.Index(it->second);
  const bool dynamic = bodies_.IsDynamic(i) && bodies_.inv_mass[i] > 0.0;
  return FollowedBody{bodies_.BodyPose(i), dynamic ? 1.0 / bodies_.inv_mass[i] : 0.0};
}

}  // namespace ligature
