#include "server/model/strand/articulated.h"

#include <cassert>

namespace ligature {

void ArticulatedSolver::Solve(const StrandModel& model, const StrandKinematics& kin,
                              const ArticulatedInputs& in) {
  const int n = model.segments();
  assert(in.w != nullptr && in.tau != nullptr);
  ia_.resize(n);
  pa_.resize(n);
  c_.resize(n);
  u_.resize(n);
  dinv_.resize(n);
  uu_.resize(n);
  alpha_.resize(n);
  a_.resize(n);

  // Segment inertias, bias forces (Coriolis, centripetal, external) and velocity products.
  for (int i = 0; i < n; ++i) {
    const Mat6& inertia = model.segment(i).inertia;
    const Vec6& v = kin.v[i];
    ia_[i] = inertia;
    if (in.link_implicit != nullptr) ia_[i] += (*in.link_implicit)[i];
    pa_[i] = spatial::CrossForce(v, inertia * v);
    if (in.f_ext != nullptr) pa_[i] -= (*in.f_ext)[i];
    c_[i] = spatial::CrossMotion(v, spatial::Join((*in.w)[i], Vec3::Zero()));
  }
  // Tips to root: articulated inertias and bias forces.
  for (int i = n - 1; i >= 0; --i) {
    u_[i] = ia_[i].leftCols<3>();
    Mat3 d = u_[i].topRows<3>();
    if (in.joint_implicit != nullptr) d += (*in.joint_implicit)[i];
    dinv_[i] = d.inverse();
    uu_[i] = (*in.tau)[i] - pa_[i].head<3>();
    const int p = model.segment(i).parent;
    if (p < 0) continue;
    const Mat6 ia = ia_[i] - u_[i] * dinv_[i] * u_[i].transpose();
    const Vec6 pa = pa_[i] + ia * c_[i] + u_[i] * (dinv_[i] * uu_[i]);
    ia_[p] += spatial::InertiaToParent(kin.X[i], ia);
    pa_[p] += kin.X[i].ForceToParent(pa);
  }
  // Root to tips: joint and link accelerations.
  for (int i = 0; i < n; ++i) {
    const int p = model.segment(i).parent;
    const Vec6& parent_a = p < 0 ? in.base_acceleration : a_[p];
    const Vec6 ap = kin.X[i].Motion(parent_a) + c_[i];
    alpha_[i] = dinv_[i] * (uu_[i] - u_[i].transpose() * ap);
    a_[i] = ap;
    a_[i].head<3>() += alpha_[i];
  }
}

void ArticulatedSolver::Response(const StrandModel& model, const StrandKinematics& kin,
                                 const std::vector<Vec6>& f_link, const std::vector<Vec3>& tau,
                                 std::vector<Vec3>* alpha, std::vector<Vec6>* a_link) {
  const int n = model.segments();
  scratch_.assign(n, Vec6::Zero());
  std::vector<Vec3>& uu = *alpha;  // reused: holds u_i, then alpha_i
  uu.resize(n);
  for (int i = 0; i < n; ++i) {
    if (!f_link.empty()) scratch_[i] -= f_link[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    uu[i] = (tau.empty() ? Vec3::Zero() : tau[i]) - scratch_[i].head<3>();
    const int p = model.segment(i).parent;
    if (p < 0) continue;
    const Vec6 pa = scratch_[i] + u_[i] * (dinv_[i] * uu[i]);
    scratch_[p] += kin.X[i].ForceToParent(pa);
  }
  a_link->resize(n);
  for (int i = 0; i < n; ++i) {
    const int p = model.segment(i).parent;
    const Vec6 ap = p < 0 ? Vec6::Zero() : kin.X[i].Motion((*a_link)[p]);
    uu[i] = dinv_[i] * (uu[i] - u_[i].transpose() * ap);
    (*a_link)[i] = ap;
    (*a_link)[i].head<3>() += uu[i];
  }
}

}  // namespace ligature
