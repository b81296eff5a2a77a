#pragma once
// What changes in a strand: joint quaternions and joint angular velocities (see the frame
// conventions in strand_model.h), and the prescribed motion of the base link.

#include <vector>

#include "server/math/transform.h"
#include "server/math/types.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

struct StrandState {
  std::vector<Quat> q;  // joint quaternion of each segment (relative to its parent)
  std::vector<Vec3> w;  // rad/s, relative angular velocity, in the segment's coordinates
};

// The rest configuration, at rest.
StrandState RestState(const StrandModel& model);

// The base link's prescribed motion at one instant, in world coordinates: the pose, the
// angular velocity and acceleration, and the classical velocity and acceleration of the
// base frame's origin.
struct StrandBase {
  Transform pose;
  Vec3 angular_velocity = Vec3::Zero();      // rad/s
  Vec3 linear_velocity = Vec3::Zero();       // m/s
  Vec3 angular_acceleration = Vec3::Zero();  // rad/s^2
  Vec3 linear_acceleration = Vec3::Zero();   // m/s^2

  // Spatial velocity and acceleration in base coordinates (Featherstone's convention: the
  // spatial acceleration's linear part is a - w x v for the origin).
  Vec6 SpatialVelocity() const;
  Vec6 SpatialAcceleration() const;
};

// Rotates q by the body-frame rotation vector phi (q * exp(phi)), renormalized.
Quat ComposeLocal(const Quat& q, const Vec3& phi);

}  // namespace ligature
