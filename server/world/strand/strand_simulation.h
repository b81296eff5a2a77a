#pragma once
// One strand simulated end to end, one named function per stage of its step:
//   1. BaseMotion:    the prescribed base, time-scaled and made local (eq. 19)
//   2. Impacts:       collision points approaching an obstacle get velocity impulses
//                     (restitution), through the same unit-response Jacobian on M
//   3. FreeMotion:    the implicit backward-Euler step (implicit_step.h), with gravity,
//                     joint springs and dampers, drag and pose springs
//   4. Constraints:   analytic constraints and contacts (normal + eq. 16 friction) as rows,
//                     K by unit test forces on the step's iteration matrix, the LCP of eq. 17
//                     solved by projected SOR (Algorithm 2), damped near singular poses,
//                     the forces' response added
//   5. Commit:        joint velocities and quaternions advanced
// When the implicit solve of stage 3 does not converge (the strand moves too far in the
// step for its non-linear springs and tension), the step is undone and taken as two halves,
// the first on the base and obstacles moved back to the half step; up to max_halvings deep.
// The constraint forces act over the step as external forces of the implicit system (the
// response uses the same iteration matrix M + H), so they are computed fresh every step and
// nothing from the previous step has to be removed.

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/solver/sor_lcp.h"
#include "server/constraint/strand/strand_constraints.h"
#include "server/constraint/strand/strand_rows.h"
#include "server/model/strand/implicit_step.h"
#include "server/model/strand/obstacles.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"

namespace ligature {

struct StrandSimulationOptions {
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);  // m/s^2
  Vec3 wind = Vec3::Zero();               // m/s, uniform; air drag acts relative to it
  ImplicitStepOptions newton;
  SorLcpOptions lcp;
  // Eq. 15 gains as fractions of the step: kp = stiffness / h^2, kd = damping / h.
  double drift_stiffness = 0.2;
  double drift_damping = 1.0;
  double collision_margin = 1e-3;  // m
  int max_halvings = 3;            // a step is split into at most 2^max_halvings parts
  // Near a singular pose (a point pulled along a straight chain) the rows ask for forces
  // without bound; the LCP's diagonal damping is raised until no joint's speed changes by
  // more than this in the step (rad/s).
  double max_constraint_speed_change = 50.0;
};

// Art direction (section 6).
struct StrandArtDirection {
  double time_scale = 1.0;     // beta of eq. 19
  double local_dynamics = 0.0; // gamma of eq. 19
  std::vector<Quat> pose;      // posable dynamics target joints; empty: none
  double pose_strength = 0.0;  // N/m
  double pose_damping = 0.0;   // N s/m
};

struct StrandStepInput {
  StrandBase base;                      // at the end of the step
  const StrandBase* reference = nullptr;  // local dynamics frame, optional
  std::vector<Obstacle> obstacles;
  StrandConstraintSet constraints;
  StrandArtDirection art;
};

struct StrandStepStats {
  int newton_iterations = 0;  // over all the step's parts
  int parts = 0;              // 1, or more when the step was split
  int contacts = 0;
  int impacts = 0;
  int rows = 0;
  Eigen::VectorXd forces;  // the last LCP's row forces (N or N m)
  std::vector<StrandRow> row_info;
};

class StrandSimulation {
 public:
  explicit StrandSimulation(StrandModel model, StrandSimulationOptions options = {});

  // Validates the input (INVALID_ARGUMENT naming the field) and advances by dt.
  absl::Status Step(double dt, const StrandStepInput& input);

  const StrandModel& model() const { return model_; }
  StrandModel& mutable_model() { return model_; }
  const StrandState& state() const { return state_; }
  StrandState& mutable_state() { return state_; }
  const StrandStepStats& stats() const { return stats_; }
  const StrandSimulationOptions& options() const { return options_; }
  // Gravity and solver options may change between steps (a world's settings).
  StrandSimulationOptions& mutable_options() { return options_; }
  // Kinematics of the current state on the last step's base.
  StrandKinematics Kinematics() const;
  // Base point plus every segment's tip, world.
  std::vector<Vec3> Points() const;

 private:
  void Advance(double h, const StrandStepInput& input, int depth);
  StrandBase BaseMotion(const StrandStepInput& input) const;
  void Impacts(const StrandBase& base, const std::vector<Obstacle>& obstacles, double h);
  void FreeMotion(const StrandBase& base, const StrandStepInput& input, double h);
  void Constraints(const StrandBase& base, const StrandStepInput& input, double h);
  void SolveDamped(const Eigen::VectorXd& a0, double h);
  void Commit(double h);

  StrandModel model_;
  StrandSimulationOptions options_;
  StrandState state_;
  StrandBase last_base_;
  ImplicitStepper stepper_;
  ArticulatedSolver impulse_solver_;
  StrandRowSystem rows_;
  std::vector<Vec3> alpha_;
  StrandStepStats stats_;
};

absl::Status ValidateStepInput(const StrandModel& model, double dt, const StrandStepInput& input);

}  // namespace ligature
