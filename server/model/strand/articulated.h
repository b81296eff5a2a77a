#pragma once
// Featherstone's articulated-body algorithm for a strand of spherical joints: joint
// accelerations from joint torques and external link forces in O(n). Optional implicit
// blocks fold a backward-Euler step's stiffness and damping into the recursion:
//  - a joint block H_i (3x3) adds to the joint's articulated inertia D_i = S^T I^A S + H_i,
//    i.e. solves (M + H) alpha = tau - C without ever forming M;
//  - a link block G_i (6x6) adds to the segment's inertia, for forces linear in the link's
//    motion (air drag, pose springs).
// The last factorization is kept, so the response to any other generalized force (unit
// test forces of the constraint solver) costs one more O(n) pass pair.

#include <vector>

#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

struct ArticulatedInputs {
  const std::vector<Vec3>* w = nullptr;          // joint velocities (for the bias terms)
  Vec6 base_acceleration = Vec6::Zero();         // spatial, base coordinates
  const std::vector<Vec3>* tau = nullptr;        // joint torques, segment coordinates
  const std::vector<Vec6>* f_ext = nullptr;      // link forces about the joint, segment coords
  const std::vector<Mat3>* joint_implicit = nullptr;  // optional H_i
  const std::vector<Mat6>* link_implicit = nullptr;   // optional G_i
};

class ArticulatedSolver {
 public:
  // Factors at `kin` and solves for the joint accelerations.
  void Solve(const StrandModel& model, const StrandKinematics& kin, const ArticulatedInputs& in);

  const std::vector<Vec3>& alpha() const { return alpha_; }  // rad/s^2, segment coordinates
  const std::vector<Vec6>& a() const { return a_; }          // spatial link accelerations

  // With the last factorization and no velocity, base acceleration or gravity: the joint
  // accelerations and link accelerations caused by `f_link` (per segment, may be empty) and
  // `tau` (per joint, may be empty).
  void Response(const StrandModel& model, const StrandKinematics& kin,
                const std::vector<Vec6>& f_link, const std::vector<Vec3>& tau,
                std::vector<Vec3>* alpha, std::vector<Vec6>* a_link);

 private:
  using Mat63 = Eigen::Matrix<double, 6, 3>;
  std::vector<Mat6> ia_;   // articulated inertia
  std::vector<Vec6> pa_;   // articulated bias force
  std::vector<Vec6> c_;    // velocity-product acceleration
  std::vector<Mat63> u_;   // I^A S
  std::vector<Mat3> dinv_; // (S^T I^A S + H)^-1
  std::vector<Vec3> uu_;   // tau - S^T p^A
  std::vector<Vec3> alpha_;
  std::vector<Vec6> a_;
  std::vector<Vec6> scratch_;
};

}  // namespace ligature
