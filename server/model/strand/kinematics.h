#pragma once
// Forward kinematics of a strand (eq. 6 of the oriented-strands formulation, velocity part):
// from the base's prescribed pose and velocity and the joint state, the world pose, the
// parent-to-segment spatial transform and the spatial velocity of every segment.

#include <vector>

#include "server/math/transform.h"
#include "server/model/strand/spatial.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"

namespace ligature {

struct StrandKinematics {
  Transform base_pose;
  Vec6 base_velocity = Vec6::Zero();     // spatial, base coordinates
  std::vector<Transform> pose;           // world pose of each segment frame
  std::vector<spatial::Transform6> X;    // parent (or base) coordinates -> segment coordinates
  std::vector<Vec6> v;                   // spatial velocity, segment coordinates

  // World position, classical velocity of the point `local` of segment i.
  Vec3 Position(int i, const Vec3& local) const { return pose[i].Apply(local); }
  Vec3 Velocity(int i, const Vec3& local) const {
    return pose[i].Rotate(spatial::PointVelocity(v[i], local));
  }
  // World classical acceleration of that point given the segment's spatial acceleration.
  Vec3 Acceleration(int i, const Vec3& local, const Vec6& a) const {
    return pose[i].Rotate(spatial::PointAcceleration(v[i], a, local));
  }
};

// Fills `out` (resized as needed). q and w: one per segment.
void ComputeKinematics(const StrandModel& model, const Transform& base_pose,
                       const Vec6& base_velocity, const std::vector<Quat>& q,
                       const std::vector<Vec3>& w, StrandKinematics* out);

// Spatial accelerations of all segments (segment coordinates) from joint accelerations
// (eq. 6, acceleration part). `base_acceleration` is spatial, in base coordinates.
void ComputeAccelerations(const StrandModel& model, const StrandKinematics& kin,
                          const std::vector<Vec3>& w, const Vec6& base_acceleration,
                          const std::vector<Vec3>& alpha, std::vector<Vec6>* a);

// World tip position of every segment (the strand's polyline after the base point is
// prepended by callers that need it).
std::vector<Vec3> TipPositions(const StrandModel& model, const StrandKinematics& kin);

}  // namespace ligature
