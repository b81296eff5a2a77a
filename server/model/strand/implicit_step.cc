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

// The load stiffness of gravity in each joint's block: turning joint j by phi swings the
// weight F hanging outboard of it (centre r from the joint) and changes its torque by
// (F r^T - (F.r) I) phi. Its negative, made symmetric positive semi-definite, is added as
// h^2 K to the block, so a long soft section hanging under its own weight (whose tension
// makes its joints stiff) stays in the iteration matrix. One tip-to-root pass: O(n).
void AddGravityLoadBlocks(const StrandModel& model, const StrandKinematics& kin,
                          const Vec3& gravity, double h, std::vector<Mat3>* blocks) {
  const int n = model.segments();
  std::vector<double> mass(n);
  std::vector<Vec3> moment(n);  // sum of m * centre, world
  for (int i = 0; i < n; ++i) {
    const StrandSegment& seg = model.segment(i);
    mass[i] = seg.mass;
    moment[i] = seg.mass * kin.Position(i, Vec3(0.0, 0.5 * seg.length, 0.0));
  }
  for (int i = n - 1; i >= 0; --i) {
    const int p = model.segment(i).parent;
    if (p >= 0) {
      mass[p] += mass[i];
      moment[p] += moment[i];
    }
    const Vec3 f = mass[i] * gravity;
    const Vec3 r = moment[i] / mass[i] - kin.pose[i].position;
    const Mat3 k_world = f.dot(r) * Mat3::Identity() - 0.5 * (f * r.transpose() + r * f.transpose());
    const Mat3 rot = kin.pose[i].orientation.toRotationMatrix();
    const Mat3 k = rot.transpose() * k_world * rot;
    Eigen::SelfAdjointEigenSolver<Mat3> eig(k);
    const Vec3 lambda = eig.eigenvalues().cwiseMax(0.0);
    (*blocks)[i] += h * h * (eig.eigenvectors() * lambda.asDiagonal() * eig.eigenvectors().transpose());
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
  for (int k = 0; k < std::max(1, options.max_iterations); ++k) {
    q_ = state.q;
    AdvancePositions(w_, h, &q_);
    ComputeKinematics(model, base.pose, base_v, q_, w_, &kin_);
    if (k == 0) {
      for (int i = 0; i < n; ++i) joint_block_[i] = ImplicitJointBlock(model.segment(i), q_[i], h);
      AddGravityLoadBlocks(model, kin_, forces.gravity, h, &joint_block_);
    }
    // Right-hand side at the iterate, plus the iteration matrix times the previous
    // iterate's accelerations.
    for (int i = 0; i < n; ++i) {
      const StrandSegment& seg = model.segment(i);
      tau_[i] = SpringTorque(seg, q_[i]) + DampingTorque(seg, w_[i]) +
                joint_block_[i] * alpha_prev_[i];
      const Vec3 g = kin_.pose[i].InverseRotate(forces.gravity);
      const Vec3 centre(0.0, 0.5 * seg.length, 0.0);
      Vec6 f = spatial::ForceAt(centre, seg.mass * g - seg.drag * spatial::PointVelocity(kin_.v[i], centre));
      if (posed) {
        const Vec3 tip(0.0, seg.length, 0.0);
        const Vec3 spring = forces.pose_strength * (forces.pose_tip_positions[i] - kin_.Position(i, tip)) +
                            forces.pose_damping * (forces.pose_tip_velocities[i] - kin_.Velocity(i, tip));
        f += spatial::ForceAt(tip, kin_.pose[i].InverseRotate(spring));
      }
      if (!forces.link_forces.empty()) f += forces.link_forces[i];
      f_[i] = f + link_block_[i] * a_prev_[i];
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
      break;
    }
    previous_change = change;
    best_w_next = w_next_;
    if (change <= options.tolerance * (1.0 + MaxNorm(w_next_))) break;
    w_ = w_next_;
    alpha_prev_ = solver_.alpha();
    a_prev_ = solver_.a();
  }
}

}  // namespace ligature
