#pragma once
// Analytic constraints on a strand (section 4 of the oriented-strands formulation), each
// turned into acceleration rows with the proportional-derivative drift correction of
// eq. 15: a^d = p''_d + kp (p_d - p) + kd (p'_d - v).
//  - PointConstraint: a point of a segment follows a target path (position, velocity and
//    acceleration given each step; a fixed point is the constant path). Three bilateral
//    rows along the world axes (eq. 15's desired acceleration, all three components).
//  - CurveConstraint: a point of a segment stays on a polyline but may slide along it. Two
//    bilateral rows normal to the curve at the closest point.
//  - JointValueConstraint: a joint follows a target quaternion. Three bilateral rows along
//    the segment's axes.
//  - JointLimitConstraint: a joint's bend angle stays at most max_bend. One unilateral row
//    against the bend, active within `margin` of the limit.

#include <vector>

#include "server/constraint/strand/strand_rows.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"

namespace ligature {

struct PointConstraint {
  int segment = 0;
  Vec3 point = Vec3::Zero();  // segment coordinates
  Vec3 position = Vec3::Zero();      // world target, m
  Vec3 velocity = Vec3::Zero();      // m/s
  Vec3 acceleration = Vec3::Zero();  // m/s^2
};

struct CurveConstraint {
  int segment = 0;
  Vec3 point = Vec3::Zero();
  std::vector<Vec3> curve;  // world polyline, >= 2 points
};

struct JointValueConstraint {
  int segment = 0;
  Quat target = Quat::Identity();  // relative to the parent, like StrandState::q
};

struct JointLimitConstraint {
  int segment = 0;
  double max_bend = 0.5;  // rad, bend away from the rest joint
  double margin = 0.05;   // rad
};

struct StrandConstraintSet {
  std::vector<PointConstraint> points;
  std::vector<CurveConstraint> curves;
  std::vector<JointValueConstraint> joint_values;
  std::vector<JointLimitConstraint> joint_limits;
  bool empty() const {
    return points.empty() && curves.empty() && joint_values.empty() && joint_limits.empty();
  }
};

// PD gains of eq. 15.
struct DriftGains {
  double kp = 0.0;  // 1/s^2
  double kd = 0.0;  // 1/s
};

// Appends the rows of all constraints, measured at `kin` (the state at the step's start)
// with joint state `state`.
void AppendConstraintRows(const StrandModel& model, const StrandKinematics& kin,
                          const StrandState& state, const StrandConstraintSet& set,
                          const DriftGains& gains, std::vector<StrandRow>* rows);

// Validates indices and values; INVALID_ARGUMENT naming the field.
absl::Status ValidateConstraints(const StrandModel& model, const StrandConstraintSet& set);

}  // namespace ligature
