#include "server/model/strand/strand_state.h"

#include "server/model/strand/spatial.h"

namespace ligature {

StrandState RestState(const StrandModel& model) {
  StrandState state;
  state.q.resize(model.segments());
  state.w.assign(model.segments(), Vec3::Zero());
  for (int i = 0; i < model.segments(); ++i) state.q[i] = model.segment(i).rest;
  return state;
}

Vec6 StrandBase::SpatialVelocity() const {
  return spatial::Join(pose.InverseRotate(angular_velocity), pose.InverseRotate(linear_velocity));
}

Vec6 StrandBase::SpatialAcceleration() const {
  return spatial::Join(
      pose.InverseRotate(angular_acceleration),
      pose.InverseRotate(linear_acceleration - angular_velocity.cross(linear_velocity)));
}

Quat ComposeLocal(const Quat& q, const Vec3& phi) {
  const double angle = phi.norm();
  if (angle < 1e-300) return q;
  Quat out = q * Quat(Eigen::AngleAxisd(angle, phi / angle));
  out.normalize();
  return out;
}

}  // namespace ligature
