#pragma once
// Domain description of a world's settings and content (the engine-side twin of
// ligature.v1.Scene).

#include <optional>
#include <string>
#include <vector>

#include "server/constraint/joint.h"
#include "server/constraint/rod/rod_constraint.h"
#include "server/constraint/soft/soft_constraint_desc.h"
#include "server/constraint/strand/strand_constraint_desc.h"
#include "server/model/rod/pearl.h"
#include "server/model/rigid/body_desc.h"

namespace ligature {

enum class SolverKind : uint8_t {
  kGaussSeidel = 0,  // constraint-space block Gauss-Seidel, position-level contacts
  kTunableLcp = 1,   // active-set LCP with one CG step per check, post-stabilized
};

struct SolverSettings {
  SolverKind kind = SolverKind::kGaussSeidel;
  int max_iterations = 20;  // per pass
  double tolerance = 1e-7;  // m
  bool warm_start = true;
  double time_budget_us = 0.0;  // per tick for all passes; 0: none
  // Tunable solver: share of the budget given to the position passes (joint drift, then
  // penetration, removed by displacements) and of max_iterations given to each of their
  // rounds; the rest goes to the velocity pass (constraint impulses, friction and
  // restitution). A share that leaves the contact pass fewer than two iterations skips it
  // (see World::SolveTunable).
  double position_share = 0.3;
  // Gauss-Seidel: substeps per tick, in [1, kMaxSubsteps] (World::Substeps, in
  // world_substeps.cc). A world with soft bodies or rods steps its rigid bodies once per tick.
  int substeps = 1;
};
inline constexpr int kMaxSubsteps = 64;

// Sleeping: islands of dynamic rigid bodies (joined by contacts and joints) at rest stop
// being simulated until something wakes them.
struct SleepSettings {
  bool enabled = false;
  double linear_speed = 0.05;   // m/s: a body is at rest at most this fast
  double angular_speed = 0.05;  // rad/s, and turning at most this fast
  double time_to_sleep = 0.5;   // s an island's bodies must all have been at rest

  bool operator==(const SleepSettings&) const = default;
};

struct WorldSettings {
  double rate_hz = 60.0;
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);
  bool paused = false;
  SolverSettings solver;
  double contact_margin = 0.02;  // m
  SleepSettings sleep;

  double dt() const { return 1.0 / rate_hz; }
};

// A joint between body A and body B (the world when body_b is empty), with frames in each
// body's frame (or the world frame). A curve constraint names its body as body_b, with
// frame_b.position the anchor, and body_a empty.
struct ConstraintDesc {
  std::string id;
  JointParams params;
  std::string body_a;
  Transform frame_a;
  std::string body_b;
  Transform frame_b;
  // Whether the two bodies still collide with each other (by default they do not: a
  // chain's links touch at their joints by design).
  bool collide_connected = false;
  // Set instead of the joint fields for a constraint on rods, or a pearl.
  std::optional<RodConstraintDesc> rod;
  std::optional<PearlDesc> pearl;
  std::optional<SoftConstraintDesc> soft;
  std::optional<StrandConstraintDesc> strand;
};

struct SceneDesc {
  WorldSettings settings;
  std::vector<BodyDesc> bodies;
  std::vector<ConstraintDesc> constraints;
};

}  // namespace ligature
