#include "server/model/strand/implicit_step.h"

#include <algorithm>
#include <limits>

#include <Eigen/Eigenvalues>

#include "server/model/strand/stiffness.h"

namespace ligature {
namespace {

double MaxNorm(const std::vector<Vec3>& v) {
  double m = 0.0;
  for (const Vec3& x : v) m = std::max(m, x.norm());
  return m;
}

// The geometric stiffness of the tension, as link blocks. Turning segment j alone (its
// world orientation; the segments outboard of it carried along without turning) by phi
// swings the lever arms of the forces on it that stay put in the world: the pull F of its
// children at its tip and its weight at its centre. That changes the potential by
// 1/2 phi^T G_j phi, G_j = sum over those forces of (f.r) I - sym(f r^T), r from the
// joint. In joint coordinates the Hessian is sum_j A_j^T G_j A_j, A_j summing the joint
// rotations from the root to j: every joint coupled with its neighbours through the
// tension, which makes a soft hanging strand of short segments stiff. A_j is the angular
// part of segment j's motion, so h^2 G_j (made positive semi-definite) is an angular link
// block of the articulated-body recursion, which then solves with the whole coupled
// matrix in O(n). The pull comes from a Newton-Euler pass at the iterate with the joint
// accelerations left out (weight, velocity products, base acceleration and the external
// forces `f`): the tension of a hanging or whirling strand.
void AddTensionLinkBlocks(const StrandModel& model, const StrandKinematics& kin,
                          const std::vector<Vec3>& w, const Vec6& base_a, const Vec3& gravity,
                          const std::vector<Vec6>& f, double h, std::vector<Mat6>* blocks) {
  const int n = model.segments();
  std::vector<Vec6> a, rs(n);
  ComputeAccelerations(model, kin, w, base_a, std::vector<Vec3>(n, Vec3::Zero()), &a);
  // The force each segment needs from its parent (segment coordinates, about its joint).
  for (int i = 0; i < n; ++i) {
    const Mat6& inertia = model.segment(i).inertia;
    rs[i] = inertia * a[i] + spatial::CrossForce(kin.v[i], inertia * kin.v[i]) - f[i];
  }
  std::vector<Vec3> pull(n, Vec3::Zero());  // children's pull at each tip
  for (int i = n - 1; i >= 0; --i) {
    const int p = model.segment(i).parent;
    if (p < 0) continue;
    const Vec6 to_parent = kin.X[i].ForceToParent(rs[i]);
    rs[p] += to_parent;
    pull[p] -= spatial::Bottom(to_parent);
  }
  for (int i = 0; i < n; ++i) {
    const StrandSegment& seg = model.segment(i);
    const Vec3 tip(0.0, seg.length, 0.0);
    const Vec3 weight = seg.mass * kin.pose[i].InverseRotate(gravity);
    const Mat3 k = (pull[i].dot(tip) + 0.5 * weight.dot(tip)) * Mat3::Identity() -
                   0.5 * (pull[i] * tip.transpose() + tip * pull[i].transpose()) -
                   0.25 * (weight * tip.transpose() + tip * weight.transpose());
    Eigen::SelfAdjointEigenSolver<Mat3> eig(k);
    const Vec3 lambda = eig.eigenvalues().cwiseMax(0.0);
    (*blocks)[i].topLeftCorner<3, 3>() +=
        h * h * (eig.eigenvectors() * lambda.asDiagonal() * eig.eigenvectors().transpose());
  }
}

}  // namespace

void AdvancePositions(const std::vector<Vec3>& w, double h, std::vector<Quat>* q) {
  for (size_t i = 0; i < q->size(); ++i) (*q)[i] = ComposeLocal((*q)[i], h * w[i]);
}

void ImplicitStepper::Solve(const StrandModel& model, const StrandBase& base,
                            const StrandState& state, const StrandStepForces& forces, double h,
                            const ImplicitStepOptions& options) {
  const int n = model.segments();
  const Vec6 base_v = base.SpatialVelocity();
  const Vec6 base_a = base.SpatialAcceleration();
  const bool posed = static_cast<int>(forces.pose_tip_positions.size()) == n &&
                     static_cast<int>(forces.pose_tip_velocities.size()) == n &&
                     (forces.pose_strength > 0.0 || forces.pose_damping > 0.0);
  w_ = state.w;
  alpha_prev_.assign(n, Vec3::Zero());
  a_prev_.assign(n, Vec6::Zero());
  tau_.resize(n);
  f_.resize(n);
  joint_block_.resize(n);
  link_block_.resize(n);

  // Link blocks: drag at the segment centre and pose springs at its tip, both linear in
  // the link's motion, so they enter the iteration matrix as point "inertias".
  for (int i = 0; i < n; ++i) {
    const StrandSegment& seg = model.segment(i);
    link_block_[i] = spatial::PointInertia(h * seg.drag, Vec3(0.0, 0.5 * seg.length, 0.0));
    if (posed) {
      link_block_[i] += spatial::PointInertia(
          h * h * forces.pose_strength + h * forces.pose_damping, Vec3(0.0, seg.length, 0.0));
    }
  }

  double previous_change = std::numeric_limits<double>::infinity();
  std::vector<Vec3> best_w_next;
  iterations_ = 0;
  converged_ = true;
  for (int k = 0; k < std::max(1, options.max_iterations); ++k) {
    q_ = state.q;
    AdvancePositions(w_, h, &q_);
    ComputeKinematics(model, base.pose, base_v, q_, w_, &kin_);
    if (k == 0) {
      for (int i = 0; i < n; ++i) joint_block_[i] = ImplicitJointBlock(model.segment(i), q_[i], h);
    }
    // Right-hand side at the iterate, plus the iteration matrix times the previous
    // iterate's accelerations.
    for (int i = 0; i < n; ++i) {
      const StrandSegment& seg = model.segment(i);
      tau_[i] = SpringTorque(seg, q_[i]) + DampingTorque(seg, w_[i]) +
                joint_block_[i] * alpha_prev_[i];
      const Vec3 g = kin_.pose[i].InverseRotate(forces.gravity);
      const Vec3 centre(0.0, 0.5 * seg.length, 0.0);
      // Air drag on the centre's velocity relative to the wind (constant in the world, so
      // the iteration matrix's drag block is unchanged).
      const Vec3 air = kin_.pose[i].InverseRotate(forces.wind);
      Vec6 f = spatial::ForceAt(
          centre, seg.mass * g - seg.drag * (spatial::PointVelocity(kin_.v[i], centre) - air));
      if (posed) {
        const Vec3 tip(0.0, seg.length, 0.0);
        const Vec3 spring = forces.pose_strength * (forces.pose_tip_positions[i] - kin_.Position(i, tip)) +
                            forces.pose_damping * (forces.pose_tip_velocities[i] - kin_.Velocity(i, tip));
        f += spatial::ForceAt(tip, kin_.pose[i].InverseRotate(spring));
      }
      if (!forces.link_forces.empty()) f += forces.link_forces[i];
      f_[i] = f + link_block_[i] * a_prev_[i];
    }
    // The tension's stiffness, once a step (at the first iterate, where a_prev_ is zero
    // and f_ holds the external forces alone).
    if (k == 0) {
      AddTensionLinkBlocks(model, kin_, w_, base_a, forces.gravity, f_, h, &link_block_);
    }
    ArticulatedInputs in;
    in.w = &w_;
    in.base_acceleration = base_a;
    in.tau = &tau_;
    in.f_ext = &f_;
    in.joint_implicit = &joint_block_;
    in.link_implicit = &link_block_;
    solver_.Solve(model, kin_, in);

    // The new iterate and its change.
    w_next_.resize(n);
    double change = 0.0;
    for (int i = 0; i < n; ++i) {
      w_next_[i] = state.w[i] + h * solver_.alpha()[i];
      change = std::max(change, (w_next_[i] - w_[i]).norm());
    }
    iterations_ = k + 1;
    last_change_ = change;
    if (k > 0 && change > previous_change) {
      // Diverging: keep the previous iterate's solution.
      w_next_ = best_w_next;
      converged_ = false;
      break;
    }
    previous_change = change;
    best_w_next = w_next_;
    const double scale = 1.0 + MaxNorm(w_next_);
    // A single iteration is a linearized step: there is nothing to converge.
    converged_ = k == 0 || change <= options.acceptable * scale;
    if (change <= options.tolerance * scale) break;
    w_ = w_next_;
    alpha_prev_ = solver_.alpha();
    a_prev_ = solver_.a();
  }
}

}  // namespace ligature
