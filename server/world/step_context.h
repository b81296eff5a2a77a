#pragma once
// The per-tick scratch of a world's step that its stages and couplings share: forces, free
// poses, placed shapes and contacts of the rigid bodies, the constraint rows with the
// solver bodies' compliance, and the solver points the couplings give the soft bodies and
// the rods. The world owns one and reuses it every tick, so vectors keep their capacity.
// What one coupling alone uses lives in that coupling (server/world/coupling/).

#include <cstdint>
#include <vector>

#include "server/collision/broadphase.h"
#include "server/collision/contact.h"
#include "server/collision/moving_pairs.h"
#include "server/collision/placed_shape.h"
#include "server/constraint/constraint_rows.h"
#include "server/geometry/obstacle.h"
#include "server/solver/compliance.h"
#include "server/solver/gauss_seidel.h"
#include "server/solver/tunable_lcp.h"
#include "server/world/rod/rod_world.h"
#include "server/world/soft/soft_world.h"

namespace ligature {

// A contact point between two rigid bodies found this tick, with their dense indices.
struct RigidContact {
  uint32_t a = 0;
  uint32_t b = 0;
  ContactPoint point;
};

// Where a joint's blocks sit in the rows (to copy solved forces back).
struct JointBlocks {
  uint32_t joint = 0;
  uint32_t first = 0;
  int count = 0;
};

// A contact block as the tunable velocity pass solved it, kept aside while the contact
// pass uses the block: its violations and impulse.
struct ContactPass {
  Vec3 violation = Vec3::Zero();
  Vec3 force = Vec3::Zero();
};

// A solver point on a soft body: a vertex, or a weighted point of its surface.
struct SoftPoint {
  int soft = 0;
  SoftWorld::WeightedPoint at;
};

// A solver point on a rod, with the velocity of its free motion over the step (m/s).
struct RodSolverPoint {
  RodWorld::PointRef ref;
  Vec3 velocity = Vec3::Zero();
};

// A rod sample near a soft body's surface, found before the rods' step begins.
struct RodSoftCandidate {
  int rod = 0;
  int sample = 0;
  double u = 0.0;
  int soft = 0;
  SoftWorld::WeightedPoint at;
  ContactPoint contact;
  double friction = 0.0;
};

// One contact of the last solve and its impulse over the step (World::LastContacts).
struct ContactRecord {
  bool soft = false;  // A is soft body `a`'s vertex `vertex`
  bool rod = false;   // A is rod `a`'s point
  uint32_t a = 0;
  uint32_t b = 0;
  bool soft_b = false;  // B is soft body `b`'s surface
  int vertex = -1;
  ContactPoint contact;
  Vec3 impulse = Vec3::Zero();  // on B
  double normal_impulse = 0.0;
  // m/s, before the solve: B's speed relative to A at the point, and its part along the
  // normal towards A (set while events are reported; zero for rods and soft-soft contacts).
  double relative_speed = 0.0;
  double normal_speed = 0.0;
};

// A rigid body overlapping a sensor shape of another this tick.
struct SensorOverlap {
  uint32_t sensor = 0;  // the sensor's body (dense index)
  int shape = 0;        // its child shape
  uint32_t body = 0;    // the body overlapping it
};

struct StepContext {
  // The time step the rigid stages take (s): the tick's, or one substep's; the substep
  // being taken and how many the tick takes.
  double h = 0.0;
  int substep = 0;
  int substeps = 1;
  // Rigid bodies' forces and free motion.
  std::vector<Vec3> force;  // N, external force per body
  std::vector<Vec3> free_position;  // pose after free motion
  std::vector<Quat> free_orientation;
  // The rigid shapes deformable bodies meet, once a tick.
  std::vector<Obstacle> obstacles;

  // Collision detection: every body's child shapes placed for the tick, body i's from
  // placed_start[i] up to placed_start[i + 1], their bounds grown by the body's reach.
  SweepAndPrune broadphase;
  MovingPairs moving_pairs;     // the broadphase while some bodies sleep
  std::vector<uint8_t> moving;  // per body, while some sleep: it moves this tick
  std::vector<Aabb> aabbs;
  std::vector<PlacedShape> placed;
  std::vector<uint32_t> placed_start;
  std::vector<double> reach;  // m, per body: how far it moves this tick (speculative only)
  std::vector<uint8_t> has_sensor;  // per body: one of its shapes is a sensor
  std::vector<ProxyPair> pairs;
  std::vector<ProxyPair> jointed;  // body pairs joined by a constraint, sorted
  std::vector<RigidContact> contacts;
  std::vector<SensorOverlap> sensor_overlaps;
  // Per contact: its point in body A's frame at the poses its row was built at (the key of
  // its warm start, looked up and stored under the same key).
  std::vector<Vec3> contact_local_a;
  // Substeps: the bodies' poses at the start of the tick; each contact's distance there;
  // each rolling-resistance block's violation at the start of the tick less its part h J v.
  std::vector<Vec3> tick_position;
  std::vector<Quat> tick_orientation;
  std::vector<double> tick_distance;
  std::vector<Vec3> tick_violation;
  // The first joint block in the rows: the contacts' blocks (and their rolling resistance)
  // come before it, the joints' blocks, built again each substep (World::RebuildJointRows),
  // from it on.
  size_t first_joint_block = 0;
  std::vector<Vec3> joint_forces;  // the joint blocks' forces while their rows are rebuilt
  // Per block, the part of its violation that moves it out of an overlap (a contact's) this
  // substep: positions take it, velocities do not (World::RelaxSubstep).
  std::vector<Vec3> substep_push;

  // The solve: rows, per-solver-body compliance, coupled groups and displacements.
  ConstraintRows rows;
  std::vector<BodyCompliance> compliance;
  std::vector<Vec6> displacements;
  std::vector<JointBlocks> joint_blocks;
  std::vector<uint32_t> released;  // joints released this step (indices into joints())
  // Joints that carried more than they can this step (indices into joints()), with the
  // force and torque they carried.
  struct Overload {
    uint32_t joint = 0;
    double force = 0.0;
    double torque = 0.0;
  };
  std::vector<Overload> broken;
  std::vector<CoupledPoints> solver_groups;  // soft and rod groups, for the solve
  GaussSeidelSolver gauss_seidel;
  TunableLcpSolver tunable;
  // The tunable pipeline's contact blocks as its velocity pass solved them, its
  // velocity-pass displacements and the displacements of its friction impulses; the blocks
  // after the contacts (their rolling blocks, the soft contacts, the joints) as that pass
  // left them, and the soft contacts' displacements of the rigid bodies.
  std::vector<ContactPass> contact_pass;
  std::vector<Vec6> velocity_displacements;
  std::vector<Vec6> friction_displacements;
  std::vector<ConstraintBlock> velocity_blocks;
  std::vector<Vec6> soft_displacements;

  // Solver points on soft bodies (solver bodies past the rigid ones), numbered body by
  // body, shared by the couplings that reach soft bodies; their coupled groups, and the
  // solved forces on them.
  std::vector<SoftPoint> soft_points;
  std::vector<CoupledPoints> soft_groups;
  std::vector<Vec3> soft_point_forces;  // N
  // This tick's soft contact impulses on dynamic rigid bodies (the haptic buffers' load).
  std::vector<SoftWorld::Push> soft_solver_pushes;
  // Per rigid body, whether a haptic session drives it this tick: it meets soft faces as
  // its local model does (SoftRigidCoupling::FindFaceContacts).
  std::vector<char> haptic_tool;

  // The rods' coupled step: whether it began before the solve this tick (their contacts go
  // through it) and whether that beginning succeeded; its solver points (solver bodies
  // from rod_first_point on) with the solved force on each, and each rod-rigid contact's
  // normal force.
  bool rod_step_begun = false;
  bool rod_step_ok = false;
  std::vector<RodSolverPoint> rod_points;
  uint32_t rod_first_point = 0;
  std::vector<Vec3> rod_point_forces;   // N
  std::vector<double> rod_normal_forces;  // N
  // Rod samples near soft bodies, and once the rods' step placed the rod points
  // (rod_points_placed), each one's rod point.
  std::vector<RodSoftCandidate> rod_soft_candidates;
  std::vector<uint32_t> rod_point_of_candidate;
  bool rod_points_placed = false;

  // The last solve's contacts and their forces.
  std::vector<ContactRecord> last_contacts;
  // Per rigid body: something besides its own motion keeps it awake this tick.
  std::vector<uint8_t> keep_awake;
};

}  // namespace ligature
