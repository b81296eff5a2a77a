#pragma once
// One backward-Euler (BDF1) step of a strand in reduced coordinates, solved by modified
// Newton iterations on the joint velocities:
//   M(q') (w' - w) / h + C(q', w') = tau(q', w') + J^T f(q', w'),   q' = q * exp(h w').
// Each iteration runs the articulated-body algorithm at the current iterate with the
// iteration matrix M + H folded into the recursion (H = h^2 K + h D per joint, K and D the
// local 3x3 stiffness and damping blocks; link blocks for drag, pose springs and the
// geometric stiffness of the tension each segment carries, which couples every joint with
// its neighbours), so one
// iteration is O(n) and the whole step is linear in the number of segments. The right-hand
// side carries H times the previous iterate's acceleration, so a converged iterate solves
// the backward-Euler equations exactly whatever the approximations in H. The stiffness
// blocks are evaluated once per step (like a DAE solver's reused Jacobian). Terms left out
// of H (Coriolis derivatives, the tension's change with the joint accelerations) only slow
// convergence; when an
// iteration grows the change instead of shrinking it, the previous iterate is kept.

#include <vector>

#include "server/model/strand/articulated.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"

namespace ligature {

// Forces on the strand over one step, besides joint springs and dampers.
struct StrandStepForces {
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);  // m/s^2, world
  // Uniform wind: air drag acts on the segment centres' velocity relative to it.
  Vec3 wind = Vec3::Zero();  // m/s, world
  // Extra link forces about each joint, segment coordinates, held over the step (constraint
  // forces). Empty: none.
  std::vector<Vec6> link_forces;
  // Posable dynamics: a spring and damper from each segment's tip to a target (world).
  // Empty targets: none.
  std::vector<Vec3> pose_tip_positions;   // m
  std::vector<Vec3> pose_tip_velocities;  // m/s
  double pose_strength = 0.0;             // N/m
  double pose_damping = 0.0;              // N s/m
};

struct ImplicitStepOptions {
  int max_iterations = 8;
  double tolerance = 1e-4;  // rad/s, on the largest change of a joint velocity (relative
                            // to the largest joint velocity, plus this absolute amount)
  // A solve whose iteration grew its change, or whose last change is still above this
  // (measured the same way) after max_iterations, has not converged: the step is too long
  // for the strand's motion there.
  double acceptable = 1e-3;
};

class ImplicitStepper {
 public:
  // Solves the step from `state` (unchanged) with the base's motion at the end of the step.
  void Solve(const StrandModel& model, const StrandBase& base, const StrandState& state,
             const StrandStepForces& forces, double h, const ImplicitStepOptions& options);

  // The solution: joint velocities and accelerations at the end of the step.
  const std::vector<Vec3>& w_next() const { return w_next_; }
  const std::vector<Vec3>& alpha() const { return solver_.alpha(); }
  // Kinematics, link accelerations and the factorization at the last iterate, for
  // constraint responses.
  const StrandKinematics& kinematics() const { return kin_; }
  ArticulatedSolver& solver() { return solver_; }
  // Joint velocities and rotations at the last iterate (those of kinematics()).
  const std::vector<Vec3>& w_iterate() const { return w_; }
  const std::vector<Quat>& q_iterate() const { return q_; }
  int iterations() const { return iterations_; }
  // Whether the last solve converged (see ImplicitStepOptions::acceptable).
  bool converged() const { return converged_; }
  double last_change() const { return last_change_; }

 private:
  StrandKinematics kin_;
  ArticulatedSolver solver_;
  std::vector<Quat> q_;
  std::vector<Vec3> w_, w_next_, tau_, alpha_prev_;
  std::vector<Vec6> f_, a_prev_;
  std::vector<Mat3> joint_block_;
  std::vector<Mat6> link_block_;
  int iterations_ = 0;
  double last_change_ = 0.0;
  bool converged_ = true;
};

// Advances the joint quaternions by one step of the joint velocities w (q * exp(h w)).
void AdvancePositions(const std::vector<Vec3>& w, double h, std::vector<Quat>* q);

}  // namespace ligature
