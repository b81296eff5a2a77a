#include "server/model/strand/kinematics.h"

namespace ligature {

void ComputeKinematics(const StrandModel& model, const Transform& base_pose,
                       const Vec6& base_velocity, const std::vector<Quat>& q,
                       const std::vector<Vec3>& w, StrandKinematics* out) {
  const int n = model.segments();
  out->base_pose = base_pose;
  out->base_velocity = base_velocity;
  out->pose.resize(n);
  out->X.resize(n);
  out->v.resize(n);
  // Root to tips: parents come before their children.
  for (int i = 0; i < n; ++i) {
    const StrandSegment& seg = model.segment(i);
    const int p = seg.parent;
    spatial::Transform6& x = out->X[i];
    x.E = q[i].toRotationMatrix().transpose();
    x.r = seg.attach;
    const Transform& parent_pose = p < 0 ? base_pose : out->pose[p];
    const Vec6& parent_v = p < 0 ? base_velocity : out->v[p];
    out->pose[i] = parent_pose * Transform{seg.attach, q[i]};
    out->v[i] = x.Motion(parent_v);
    out->v[i].head<3>() += w[i];
  }
}

void ComputeAccelerations(const StrandModel& model, const StrandKinematics& kin,
                          const std::vector<Vec3>& w, const Vec6& base_acceleration,
                          const std::vector<Vec3>& alpha, std::vector<Vec6>* a) {
  const int n = model.segments();
  a->resize(n);
  for (int i = 0; i < n; ++i) {
    const int p = model.segment(i).parent;
    const Vec6& parent_a = p < 0 ? base_acceleration : (*a)[p];
    const Vec6 s_w = spatial::Join(w[i], Vec3::Zero());
    Vec6 ai = kin.X[i].Motion(parent_a) + spatial::CrossMotion(kin.v[i], s_w);
    ai.head<3>() += alpha[i];
    (*a)[i] = ai;
  }
}

std::vector<Vec3> TipPositions(const StrandModel& model, const StrandKinematics& kin) {
  std::vector<Vec3> tips(model.segments());
  for (int i = 0; i < model.segments(); ++i) {
    tips[i] = kin.Position(i, Vec3(0.0, model.segment(i).length, 0.0));
  }
  return tips;
}

}  // namespace ligature
