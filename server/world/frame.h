#pragma once
// Immutable snapshots a world publishes after each tick.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/math/transform.h"

namespace ligature {

struct BodyState {
  std::string id;
  Transform pose;
  Vec3 linear_velocity = Vec3::Zero();
  Vec3 angular_velocity = Vec3::Zero();
  bool sleeping = false;  // rigid bodies: asleep (at rest, not simulated until woken)
  // Rods: the centreline sampled evenly in u (m, world) and the twist there (rad).
  std::vector<Vec3> rod_points;
  std::vector<double> rod_twist;
  // Soft bodies: every vertex (m, world) and the boundary, three indices per triangle.
  std::vector<Vec3> soft_vertices;
  std::vector<int> soft_triangles;
  uint32_t topology_version = 0;  // cuts that changed the soft body's mesh
  // Strands: the base point and every segment's tip (m, world), and for a branched strand
  // each point's parent point (-1 for the base point).
  std::vector<Vec3> strand_points;
  std::vector<int> strand_parents;
};

// A cut a scalpel made during the tick.
struct CutEvent {
  std::string body;  // the soft body
  std::string tool;  // the scalpel's body
  Vec3 point = Vec3::Zero();  // m, where the tip met the surface
  double cutting_stress = 0.0;  // Pa
  int tets_separated = 0;
  int vertices_added = 0;
  int pieces = 0;  // connected pieces of the body after the cut
};

struct PearlState {
  std::string id;
  double u = 0.0;  // m along its rod
  Vec3 position = Vec3::Zero();
  double speed = 0.0;  // m/s along the rod
};

// What the rod solver did.
struct RodFrameStats {
  int unknowns = 0;
  int bandwidth = 0;
  int newton_steps = 0;
  double max_violation = 0.0;  // m
};

// What the step did: solver figures and timings.
struct StepStats {
  int iterations = 0;
  double residual = 0.0;   // m
  bool budget_exhausted = false;  // a solver pass stopped on the time budget
  double max_penetration = 0.0;   // m, deepest contact overlap left after the step
  int constraint_rows = 0;
  int contacts = 0;
  double step_ms = 0.0;    // wall time of the physics step
  double solve_ms = 0.0;   // wall time of its solver calls (what the time budget covers)
  int recovered_bodies = 0;  // bodies held in place after a non-finite step
  int sleeping_bodies = 0;   // rigid bodies asleep after the step
  int substeps = 1;          // substeps the rigid bodies took
};

// A haptic tool and its coupling at the end of a tick.
struct ToolFrameState {
  std::string body_id;
  std::string device_id;
  Transform device_pose;
  Vec3 coupling_force = Vec3::Zero();   // N, on the tool (the tick's average)
  Vec3 coupling_torque = Vec3::Zero();  // N m
  int contacts = 0;
  bool watchdog = false;
  uint32_t buttons = 0;
};

// A step turned the state non-finite or absurd and the world went back to a good state.
struct DivergenceEvent {
  uint64_t diverged_tick = 0;  // the tick whose step diverged
  uint64_t restored_tick = 0;  // the tick of the state restored
  std::string body;            // the first diverged body found
  std::string reason;          // e.g. "non-finite linear velocity"
  double value = 0.0;          // the offending magnitude; 0 when non-finite
  bool paused = false;         // it kept diverging from the same state: the world paused
};

// A joint that broke during the tick, and the force and the torque about its anchor that
// broke it.
struct JointBreak {
  std::string id;
  double force = 0.0;   // N
  double torque = 0.0;  // N m
};

struct Frame {
  std::string world;       // worlds/{world}
  uint64_t tick = 0;
  double sim_time = 0.0;   // s
  std::vector<BodyState> bodies;
  StepStats stats;
  std::vector<std::string> removed_constraints;
  std::vector<JointBreak> broken_joints;  // also among removed_constraints
  std::vector<PearlState> pearls;
  RodFrameStats rods;
  std::vector<CutEvent> cuts;
  std::vector<ToolFrameState> tools;
  std::optional<DivergenceEvent> divergence;  // set when this tick rolled back
};

}  // namespace ligature
