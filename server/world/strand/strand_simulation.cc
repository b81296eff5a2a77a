#include "server/world/strand/strand_simulation.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "server/model/strand/art_direction.h"

namespace ligature {
namespace {

bool FiniteBase(const StrandBase& b) {
  return b.pose.position.allFinite() && b.pose.orientation.coeffs().allFinite() &&
         b.angular_velocity.allFinite() && b.linear_velocity.allFinite() &&
         b.angular_acceleration.allFinite() && b.linear_acceleration.allFinite();
}

// The rotation by the rotation vector phi.
Quat Rotation(const Vec3& phi) {
  const double angle = phi.norm();
  return angle > 0.0 ? Quat(Eigen::AngleAxisd(angle, phi / angle)) : Quat::Identity();
}

// The base `s` seconds before `b`, from its velocity and acceleration (second order).
StrandBase BaseEarlier(const StrandBase& b, double s) {
  StrandBase out = b;
  out.pose.position = b.pose.position - s * b.linear_velocity + 0.5 * s * s * b.linear_acceleration;
  out.pose.orientation =
      (Rotation(-s * b.angular_velocity + 0.5 * s * s * b.angular_acceleration) * b.pose.orientation)
          .normalized();
  out.linear_velocity = b.linear_velocity - s * b.linear_acceleration;
  out.angular_velocity = b.angular_velocity - s * b.angular_acceleration;
  return out;
}

// An obstacle `s` seconds earlier, moving at its (constant) velocity.
Obstacle ObstacleEarlier(const Obstacle& o, double s) {
  Obstacle out = o;
  out.pose.position = o.pose.position - s * o.linear_velocity;
  out.pose.orientation = (Rotation(-s * o.angular_velocity) * o.pose.orientation).normalized();
  return out;
}

// How many times SolveDamped may raise the damping (from 1e-6 to 1 of the largest diagonal).
constexpr int kMaxDampings = 4;

}  // namespace

absl::Status ValidateStepInput(const StrandModel& model, double dt, const StrandStepInput& input) {
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    return absl::InvalidArgumentError("dt: must be > 0 and finite");
  }
  if (!FiniteBase(input.base)) return absl::InvalidArgumentError("base: not finite");
  if (input.reference != nullptr && !FiniteBase(*input.reference)) {
    return absl::InvalidArgumentError("reference: not finite");
  }
  for (size_t i = 0; i < input.obstacles.size(); ++i) {
    const Obstacle& o = input.obstacles[i];
    if (!(o.shape.radius >= 0.0) || !(o.shape.half_length >= 0.0) ||
        !(o.shape.half_extents.minCoeff() >= 0.0) ||
        !o.pose.position.allFinite() || !o.pose.orientation.coeffs().allFinite() ||
        !o.linear_velocity.allFinite() || !o.angular_velocity.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("obstacles[", i, "]: bad shape or motion"));
    }
    if (!(o.friction >= 0.0) || !(o.restitution >= 0.0 && o.restitution <= 1.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("obstacles[", i, "]: friction >= 0, restitution in [0, 1]"));
    }
  }
  const StrandArtDirection& art = input.art;
  if (!std::isfinite(art.time_scale) || !std::isfinite(art.local_dynamics)) {
    return absl::InvalidArgumentError("art.time_scale, art.local_dynamics: must be finite");
  }
  if (!art.pose.empty() && static_cast<int>(art.pose.size()) != model.segments()) {
    return absl::InvalidArgumentError("art.pose: one joint quaternion per segment");
  }
  if (!(art.pose_strength >= 0.0) || !(art.pose_damping >= 0.0)) {
    return absl::InvalidArgumentError("art.pose_strength, art.pose_damping: must be >= 0");
  }
  return ValidateConstraints(model, input.constraints);
}

StrandSimulation::StrandSimulation(StrandModel model, StrandSimulationOptions options)
    : model_(std::move(model)), options_(options), state_(RestState(model_)) {}

StrandKinematics StrandSimulation::Kinematics() const {
  StrandKinematics kin;
  ComputeKinematics(model_, last_base_.pose, last_base_.SpatialVelocity(), state_.q, state_.w, &kin);
  return kin;
}

std::vector<Vec3> StrandSimulation::Points() const {
  const StrandKinematics kin = Kinematics();
  std::vector<Vec3> points = TipPositions(model_, kin);
  points.insert(points.begin(), last_base_.pose.Apply(model_.segment(0).attach));
  return points;
}

absl::Status StrandSimulation::Step(double dt, const StrandStepInput& input) {
  if (absl::Status s = ValidateStepInput(model_, dt, input); !s.ok()) return s;
  stats_ = StrandStepStats{};
  Advance(dt, input, 0);
  return absl::OkStatus();
}

void StrandSimulation::Advance(double h, const StrandStepInput& input, int depth) {
  const StrandBase base = BaseMotion(input);
  const StrandState start = state_;
  Impacts(base, input.obstacles, h);
  FreeMotion(base, input, h);
  if (!stepper_.converged() && depth < options_.max_halvings) {
    // Too long a step here: undo it and take it as two halves, the first ending on the
    // base, reference and obstacles as they were half a step earlier.
    state_ = start;
    StrandStepInput first = input;
    first.base = BaseEarlier(input.base, 0.5 * h);
    StrandBase reference;
    if (input.reference != nullptr) {
      reference = BaseEarlier(*input.reference, 0.5 * h);
      first.reference = &reference;
    }
    for (Obstacle& o : first.obstacles) o = ObstacleEarlier(o, 0.5 * h);
    Advance(0.5 * h, first, depth + 1);
    Advance(0.5 * h, input, depth + 1);
    return;
  }
  Constraints(base, input, h);
  Commit(h);
  last_base_ = base;
  ++stats_.parts;
}

StrandBase StrandSimulation::BaseMotion(const StrandStepInput& input) const {
  return ScaleBaseMotion(input.base, input.reference, input.art.time_scale,
                         input.art.local_dynamics);
}

void StrandSimulation::Impacts(const StrandBase& base, const std::vector<Obstacle>& obstacles,
                               double h) {
  if (obstacles.empty()) return;
  StrandKinematics kin;
  ComputeKinematics(model_, base.pose, base.SpatialVelocity(), state_.q, state_.w, &kin);
  const std::vector<StrandContact> contacts =
      FindContacts(model_, kin, obstacles, options_.collision_margin, h);
  // Rows for the points moving towards their obstacle: desired velocity change
  // -(1 + e) v_n, through M alone (an impulse, no step).
  std::vector<StrandRow> rows;
  for (const StrandContact& c : contacts) {
    const double vn = c.relative_velocity.dot(c.normal);
    if (vn >= 0.0) continue;
    StrandRow row;
    row.segment = c.segment;
    row.point = c.point;
    row.direction = c.normal;
    row.desired = -(1.0 + obstacles[c.obstacle].restitution) * vn;
    row.bound.kind = LcpBound::Kind::kUnilateral;
    rows.push_back(row);
  }
  stats_.impacts = static_cast<int>(rows.size());
  if (rows.empty()) return;
  const std::vector<Vec3> zero(model_.segments(), Vec3::Zero());
  ArticulatedInputs in;
  in.w = &zero;
  in.tau = &zero;
  impulse_solver_.Solve(model_, kin, in);  // factorization of M at the current pose
  rows_.Build(model_, kin, impulse_solver_, rows);
  // The "free" velocity change is zero: b = desired.
  std::vector<Vec3> dw = zero;
  SolveStrandRows(rows_, Eigen::VectorXd::Zero(rows.size()), options_.lcp, &dw);
  for (int i = 0; i < model_.segments(); ++i) state_.w[i] += dw[i];
}

void StrandSimulation::FreeMotion(const StrandBase& base, const StrandStepInput& input, double h) {
  StrandStepForces forces;
  forces.gravity = options_.gravity;
  forces.wind = options_.wind;
  const StrandArtDirection& art = input.art;
  if (!art.pose.empty() && (art.pose_strength > 0.0 || art.pose_damping > 0.0)) {
    PoseTargets(model_, base, art.pose, &forces.pose_tip_positions, &forces.pose_tip_velocities);
    forces.pose_strength = art.pose_strength;
    forces.pose_damping = art.pose_damping;
  }
  stepper_.Solve(model_, base, state_, forces, h, options_.newton);
  alpha_ = stepper_.alpha();
  stats_.newton_iterations += stepper_.iterations();
}

void StrandSimulation::Constraints(const StrandBase& base, const StrandStepInput& input, double h) {
  const DriftGains gains{options_.drift_stiffness / (h * h), options_.drift_damping / h};
  StrandKinematics start;
  ComputeKinematics(model_, base.pose, base.SpatialVelocity(), state_.q, state_.w, &start);
  std::vector<StrandRow> rows;
  AppendConstraintRows(model_, start, state_, input.constraints, gains, &rows);
  const int user_rows = static_cast<int>(rows.size());

  // Contacts: a unilateral normal row each, with eq. 15 on the signed gap.
  const std::vector<StrandContact> contacts =
      FindContacts(model_, start, input.obstacles, options_.collision_margin, h);
  stats_.contacts = static_cast<int>(contacts.size());
  for (const StrandContact& c : contacts) {
    StrandRow row;
    row.segment = c.segment;
    row.point = c.point;
    row.direction = c.normal;
    row.desired = gains.kp * c.depth - gains.kd * c.relative_velocity.dot(c.normal);
    row.bound.kind = LcpBound::Kind::kUnilateral;
    rows.push_back(row);
  }
  if (rows.empty()) return;

  const StrandKinematics& kin = stepper_.kinematics();
  const Vec6 base_a = base.SpatialAcceleration();
  const int normals = static_cast<int>(rows.size());
  if (normals > user_rows && std::any_of(input.obstacles.begin(), input.obstacles.end(),
                                         [](const Obstacle& o) { return o.friction > 0.0; })) {
    // The tangential accelerations of eq. 16 are taken once the constraint and normal
    // forces act (a first solve without friction), so the friction direction opposes the
    // slip that is left, not the slip of the free motion that the normal forces of other
    // contacts already change.
    rows_.Build(model_, kin, stepper_.solver(), rows);
    std::vector<Vec3> alpha = alpha_;
    SolveStrandRows(rows_, rows_.Measure(model_, kin, stepper_.w_iterate(), base_a, alpha_),
                        options_.lcp, &alpha);
    std::vector<Vec6> a_link;
    ComputeAccelerations(model_, kin, stepper_.w_iterate(), base_a, alpha, &a_link);
    for (int r = user_rows; r < normals; ++r) {
      const StrandContact& c = contacts[r - user_rows];
      const Obstacle& o = input.obstacles[c.obstacle];
      if (o.friction <= 0.0) continue;
      const Vec3 a = kin.Acceleration(c.segment, c.point, a_link[c.segment]);
      const Vec3 at = a - a.dot(c.normal) * c.normal;
      const Vec3 vt = c.relative_velocity - c.relative_velocity.dot(c.normal) * c.normal;
      const Vec3 slip = at + vt / h;  // eq. 16
      if (slip.norm() < 1e-12) continue;  // nothing for friction to resist
      StrandRow row;
      row.segment = c.segment;
      row.point = c.point;
      // The friction force opposes the slip; it is asked to remove the sliding velocity
      // along its direction within the step (the paper's |v_t| / h when the velocity and
      // the slip are aligned; signed, so a point sliding against the slip is not pushed on).
      row.direction = -slip.normalized();
      row.desired = -vt.dot(row.direction) / h;
      row.bound.kind = LcpBound::Kind::kFriction;
      row.bound.normal = r;
      row.bound.mu = o.friction;
      rows.push_back(row);
    }
  }

  // a^0: the free step's mean accelerations, from the velocities at the step's start (the
  // base then moving at its start velocity) to those at its end.
  rows_.Build(model_, kin, stepper_.solver(), rows);
  StrandKinematics before;
  ComputeKinematics(model_, base.pose, base.SpatialVelocity() - h * base_a, state_.q, state_.w,
                    &before);
  const Eigen::VectorXd a0 =
      rows_.MeanAccelerations(model_, before, base.pose, base.SpatialVelocity(),
                              stepper_.q_iterate(), state_.w, h, alpha_);
  SolveDamped(a0, h);
  stats_.rows = static_cast<int>(rows.size());
  stats_.row_info = rows;
}

void StrandSimulation::SolveDamped(const Eigen::VectorXd& a0, double h) {
  // Damped least squares, as inverse kinematics does near a singularity: a row the pose
  // can hardly move along (a tip pulled towards the root of a straight chain) gets a force
  // of its demand over the regularization, and the joints a response to match. Raising the
  // diagonal damping a hundredfold at a time gives up that row first and keeps the others.
  const std::vector<Vec3> free = alpha_;
  SorLcpOptions lcp = options_.lcp;
  for (int attempt = 0;; ++attempt) {
    stats_.forces = SolveStrandRows(rows_, a0, lcp, &alpha_);
    double change = 0.0;
    for (size_t i = 0; i < alpha_.size(); ++i) {
      change = std::max(change, h * (alpha_[i] - free[i]).norm());
    }
    if (change <= options_.max_constraint_speed_change || attempt == kMaxDampings) return;
    lcp.epsilon = std::max(100.0 * lcp.epsilon, 1e-6);
    alpha_ = free;
  }
}

void StrandSimulation::Commit(double h) {
  for (int i = 0; i < model_.segments(); ++i) state_.w[i] += h * alpha_[i];
  // w + h alpha from the step's start velocity: alpha_ holds the full step's acceleration.
  AdvancePositions(state_.w, h, &state_.q);
}

}  // namespace ligature
