#include "server/model/strand/inverse_dynamics.h"

namespace ligature {

std::vector<Vec3> InverseDynamics(const StrandModel& model, const StrandKinematics& kin,
                                  const std::vector<Vec3>& w, const Vec6& base_acceleration,
                                  const std::vector<Vec3>& alpha,
                                  const std::vector<Vec6>& f_ext) {
  const int n = model.segments();
  std::vector<Vec6> a;
  ComputeAccelerations(model, kin, w, base_acceleration, alpha, &a);
  // Tips to root: each segment's force balance plus what its children pass through their
  // joints (Algorithm 1, lines 10-16).
  std::vector<Vec6> rs(n);
  for (int i = 0; i < n; ++i) {
    const Mat6& inertia = model.segment(i).inertia;
    rs[i] = inertia * a[i] + spatial::CrossForce(kin.v[i], inertia * kin.v[i]);
    if (!f_ext.empty()) rs[i] -= f_ext[i];
  }
  std::vector<Vec3> tau(n);
  for (int i = n - 1; i >= 0; --i) {
    tau[i] = rs[i].head<3>();
    const int p = model.segment(i).parent;
    if (p >= 0) rs[p] += kin.X[i].ForceToParent(rs[i]);
  }
  return tau;
}

}  // namespace ligature
