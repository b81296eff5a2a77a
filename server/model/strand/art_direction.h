#pragma once
// Art direction of strands (section 6 of the oriented-strands formulation): time scale and
// local dynamics (eq. 19), posable dynamics targets, the zero-gravity rest shape by inverse
// dynamics, and base velocities and accelerations from a history of base poses.

#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/math/transform.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"

namespace ligature {

// Eq. 19: the base's spatial velocity and acceleration become
//   beta (v0 - gamma v_ref),  beta (a0 - gamma a_ref)
// with the reference frame's spatial motion expressed at the base (Pluecker coordinates of
// the base frame). beta = time scale, gamma = local dynamics. The pose is unchanged. With
// no reference, gamma is ignored.
StrandBase ScaleBaseMotion(const StrandBase& base, const StrandBase* reference, double time_scale,
                           double local_dynamics);

// Posable dynamics: world positions and velocities of every segment's tip for the joint
// pose `pose` on the base's current motion (the targets of the pose springs).
void PoseTargets(const StrandModel& model, const StrandBase& base, const std::vector<Quat>& pose,
                 std::vector<Vec3>* positions, std::vector<Vec3>* velocities);

// Zero-gravity rest shape: rewrites the rest joints so that the strand, in its current rest
// shape on a static base at `base_pose`, is in equilibrium under `gravity`: the joint
// torques that inverse dynamics asks for (zero velocities and accelerations) are supplied
// by the springs, each joint solved on its own (3 unknowns, Newton). FAILED_PRECONDITION
// naming the joint when a joint's springs cannot supply its torque (a zero stiffness where
// torque is needed, or more than the tan response can give below a half turn).
absl::Status ApplyZeroGravityRestShape(StrandModel* model, const Transform& base_pose,
                                       const Vec3& gravity);

// Base motion from sampled poses: keeps the last four (time, pose) samples and interpolates
// them with a cubic in time, positions directly and rotations as rotation vectors relative
// to the latest sample (a cubic in so(3) mapped by the exponential, in the spirit of the
// Park-Kang construction), then differentiates.
class BasePoseHistory {
 public:
  // Times must increase; older samples beyond four are dropped.
  absl::Status Push(double time, const Transform& pose);
  // The base at time t (interpolating, or extrapolating a little past the last sample).
  // FAILED_PRECONDITION with fewer than two samples; with two or three the cubic becomes a
  // line or a parabola.
  absl::StatusOr<StrandBase> At(double time) const;

  // A (time in s, pose) sample, and how many are kept.
  using Sample = std::pair<double, Transform>;
  static constexpr size_t kMaxSamples = 4;
  const std::deque<Sample>& samples() const { return samples_; }
  // Takes `samples` bit for bit (snapshots): at most kMaxSamples, times increasing.
  void Restore(std::deque<Sample> samples) { samples_ = std::move(samples); }

 private:
  Transform PoseAt(double time) const;
  std::deque<Sample> samples_;
};

}  // namespace ligature
