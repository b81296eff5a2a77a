#include "server/model/strand/art_direction.h"

#include <cmath>

#include <Eigen/Dense>

#include "absl/strings/str_cat.h"
#include "server/model/strand/inverse_dynamics.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/spatial.h"
#include "server/model/strand/stiffness.h"

namespace ligature {
namespace {

// Rotation vector of a unit quaternion.
Vec3 Log(const Quat& q) {
  Eigen::AngleAxisd aa(q.w() < 0.0 ? Quat(-q.coeffs()) : q);
  return aa.angle() * aa.axis();
}

Quat Exp(const Vec3& phi) {
  const double angle = phi.norm();
  if (angle < 1e-300) return Quat::Identity();
  return Quat(Eigen::AngleAxisd(angle, phi / angle));
}

// Spatial velocity and acceleration of a rigid frame's motion at the point `at`, in the
// coordinates rotated by `frame` (world -> frame coordinates by its inverse).
void SpatialAt(const StrandBase& m, const Vec3& at, const Quat& frame, Vec6* v, Vec6* a) {
  const Vec3 r = at - m.pose.position;
  const Vec3 lin_v = m.linear_velocity + m.angular_velocity.cross(r);
  const Vec3 lin_a = m.linear_acceleration - m.angular_velocity.cross(m.linear_velocity) +
                     m.angular_acceleration.cross(r);
  const Quat inv = frame.conjugate();
  *v = spatial::Join(inv * m.angular_velocity, inv * lin_v);
  *a = spatial::Join(inv * m.angular_acceleration, inv * lin_a);
}

}  // namespace

StrandBase ScaleBaseMotion(const StrandBase& base, const StrandBase* reference, double time_scale,
                           double local_dynamics) {
  Vec6 v = base.SpatialVelocity();
  Vec6 a = base.SpatialAcceleration();
  if (reference != nullptr && local_dynamics != 0.0) {
    Vec6 vr, ar;
    SpatialAt(*reference, base.pose.position, base.pose.orientation, &vr, &ar);
    v -= local_dynamics * vr;
    a -= local_dynamics * ar;
  }
  v *= time_scale;
  a *= time_scale;
  // Back to classical quantities in world coordinates.
  StrandBase out;
  out.pose = base.pose;
  out.angular_velocity = base.pose.Rotate(spatial::Top(v));
  out.linear_velocity = base.pose.Rotate(spatial::Bottom(v));
  out.angular_acceleration = base.pose.Rotate(spatial::Top(a));
  out.linear_acceleration =
      base.pose.Rotate(spatial::Bottom(a)) + out.angular_velocity.cross(out.linear_velocity);
  return out;
}

void PoseTargets(const StrandModel& model, const StrandBase& base, const std::vector<Quat>& pose,
                 std::vector<Vec3>* positions, std::vector<Vec3>* velocities) {
  StrandKinematics kin;
  const std::vector<Vec3> still(model.segments(), Vec3::Zero());
  ComputeKinematics(model, base.pose, base.SpatialVelocity(), pose, still, &kin);
  positions->resize(model.segments());
  velocities->resize(model.segments());
  for (int i = 0; i < model.segments(); ++i) {
    const Vec3 tip(0.0, model.segment(i).length, 0.0);
    (*positions)[i] = kin.Position(i, tip);
    (*velocities)[i] = kin.Velocity(i, tip);
  }
}

absl::Status ApplyZeroGravityRestShape(StrandModel* model, const Transform& base_pose,
                                       const Vec3& gravity) {
  const int n = model->segments();
  const StrandState shape = RestState(*model);
  StrandKinematics kin;
  ComputeKinematics(*model, base_pose, Vec6::Zero(), shape.q, shape.w, &kin);
  std::vector<Vec6> f(n);
  for (int i = 0; i < n; ++i) {
    const StrandSegment& seg = model->segment(i);
    f[i] = spatial::ForceAt(Vec3(0.0, 0.5 * seg.length, 0.0),
                            seg.mass * kin.pose[i].InverseRotate(gravity));
  }
  const std::vector<Vec3> zero(n, Vec3::Zero());
  const std::vector<Vec3> needed = InverseDynamics(*model, kin, zero, Vec6::Zero(), zero, f);

  for (int i = 0; i < n; ++i) {
    // Find D = rest'^-1 q with SpringTorque(D) = needed, as D = exp(phi) from the
    // identity; the torque depends on rest' and q only through D.
    StrandSegment probe = model->segment(i);
    probe.rest = Quat::Identity();
    Vec3 phi = Vec3::Zero();
    const double scale = 1e-12 + needed[i].norm();
    bool converged = false;
    for (int it = 0; it < 50 && !converged; ++it) {
      const Quat d = Exp(phi);
      const Vec3 r = SpringTorque(probe, d) - needed[i];
      if (r.norm() <= 1e-12 * scale + 1e-15) {
        converged = true;
        break;
      }
      const Mat3 jac = SpringJacobian(probe, d);
      Eigen::FullPivLU<Mat3> lu(jac);
      if (lu.rank() < 3 && r.norm() > 1e-12) {
        // A direction without stiffness: solvable only when no torque is needed there.
        const Vec3 step = jac.completeOrthogonalDecomposition().solve(r);
        if ((jac * step - r).norm() > 1e-9 * scale) break;
        phi = Log(d * Exp(-step));
        continue;
      }
      phi = Log(d * Exp(-lu.solve(r)));
    }
    if (!converged) {
      return absl::FailedPreconditionError(absl::StrCat(
          "joint ", i, ": its springs cannot hold the modelled shape under gravity (needed "
          "torque ", needed[i].norm(), " N m)"));
    }
    model->set_rest(i, shape.q[i] * Exp(phi).conjugate());
  }
  return absl::OkStatus();
}

absl::Status BasePoseHistory::Push(double time, const Transform& pose) {
  if (!std::isfinite(time) || !pose.position.allFinite() || !pose.orientation.coeffs().allFinite()) {
    return absl::InvalidArgumentError("pose: time and pose must be finite");
  }
  if (!samples_.empty() && !(time > samples_.back().first)) {
    return absl::InvalidArgumentError("time: base pose samples must have increasing times");
  }
  Transform p = pose;
  p.orientation.normalize();
  samples_.emplace_back(time, p);
  while (samples_.size() > kMaxSamples) samples_.pop_front();
  return absl::OkStatus();
}

Transform BasePoseHistory::PoseAt(double t) const {
  // Lagrange interpolation through all kept samples.
  const Quat ref = samples_.back().second.orientation;
  Vec3 pos = Vec3::Zero();
  Vec3 rot = Vec3::Zero();
  for (size_t k = 0; k < samples_.size(); ++k) {
    double weight = 1.0;
    for (size_t j = 0; j < samples_.size(); ++j) {
      if (j != k) weight *= (t - samples_[j].first) / (samples_[k].first - samples_[j].first);
    }
    pos += weight * samples_[k].second.position;
    rot += weight * Log(ref.conjugate() * samples_[k].second.orientation);
  }
  return Transform{pos, (ref * Exp(rot)).normalized()};
}

absl::StatusOr<StrandBase> BasePoseHistory::At(double t) const {
  if (samples_.size() < 2) {
    return absl::FailedPreconditionError("base pose history: need at least two samples");
  }
  // Central differences of the interpolant, with a step small against the sample spacing.
  const double span = samples_.back().first - samples_.front().first;
  const double e = 1e-4 * span;
  const Transform p0 = PoseAt(t - e), p1 = PoseAt(t), p2 = PoseAt(t + e);
  const auto omega = [](const Transform& a, const Transform& b, double dt) {
    return Vec3(Log(b.orientation * a.orientation.conjugate()) / dt);
  };
  StrandBase base;
  base.pose = p1;
  base.linear_velocity = (p2.position - p0.position) / (2.0 * e);
  base.linear_acceleration = (p2.position - 2.0 * p1.position + p0.position) / (e * e);
  base.angular_velocity = omega(p0, p2, 2.0 * e);
  base.angular_acceleration = (omega(p1, p2, e) - omega(p0, p1, e)) / e;
  return base;
}

}  // namespace ligature
