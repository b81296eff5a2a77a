#include "server/constraint/strand/strand_constraints.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/model/strand/stiffness.h"

namespace ligature {
namespace {

// The closest point on a polyline and the unit tangent there.
void ClosestOnCurve(const std::vector<Vec3>& curve, const Vec3& p, Vec3* closest, Vec3* tangent) {
  double best = std::numeric_limits<double>::infinity();
  for (size_t k = 1; k < curve.size(); ++k) {
    const Vec3 a = curve[k - 1], d = curve[k] - curve[k - 1];
    const double len2 = d.squaredNorm();
    if (len2 <= 0.0) continue;
    const double t = std::clamp((p - a).dot(d) / len2, 0.0, 1.0);
    const Vec3 c = a + t * d;
    if ((p - c).squaredNorm() < best) {
      best = (p - c).squaredNorm();
      *closest = c;
      *tangent = d.normalized();
    }
  }
}

StrandRow PointRow(int segment, const Vec3& point, const Vec3& direction, double desired) {
  StrandRow row;
  row.kind = StrandRow::Kind::kPoint;
  row.segment = segment;
  row.point = point;
  row.direction = direction;
  row.desired = desired;
  row.bound.kind = LcpBound::Kind::kBilateral;
  return row;
}

}  // namespace

void AppendConstraintRows(const StrandModel& model, const StrandKinematics& kin,
                          const StrandState& state, const StrandConstraintSet& set,
                          const DriftGains& g, std::vector<StrandRow>* rows) {
  for (const PointConstraint& c : set.points) {
    const Vec3 p = kin.Position(c.segment, c.point);
    const Vec3 v = kin.Velocity(c.segment, c.point);
    const Vec3 ad = c.acceleration + g.kp * (c.position - p) + g.kd * (c.velocity - v);
    for (int k = 0; k < 3; ++k) {
      rows->push_back(PointRow(c.segment, c.point, Vec3::Unit(k), ad[k]));
    }
  }
  for (const CurveConstraint& c : set.curves) {
    const Vec3 p = kin.Position(c.segment, c.point);
    const Vec3 v = kin.Velocity(c.segment, c.point);
    Vec3 closest = p, tangent = Vec3::UnitX();
    ClosestOnCurve(c.curve, p, &closest, &tangent);
    // Two normals of the curve at the closest point.
    Vec3 n1 = tangent.unitOrthogonal();
    const Vec3 n2 = tangent.cross(n1);
    for (const Vec3& n : {n1, n2}) {
      rows->push_back(PointRow(c.segment, c.point, n,
                               g.kp * n.dot(closest - p) - g.kd * n.dot(v)));
    }
  }
  for (const JointValueConstraint& c : set.joint_values) {
    // Rotation from the current joint to the target, in segment coordinates.
    const Eigen::AngleAxisd aa(state.q[c.segment].conjugate() * c.target.normalized());
    Vec3 err = aa.angle() * aa.axis();
    if (aa.angle() > M_PI) err = (aa.angle() - 2.0 * M_PI) * aa.axis();
    const Vec3 ad = g.kp * err - g.kd * state.w[c.segment];
    for (int k = 0; k < 3; ++k) {
      StrandRow row;
      row.kind = StrandRow::Kind::kJoint;
      row.segment = c.segment;
      row.direction = Vec3::Unit(k);
      row.desired = ad[k];
      row.bound.kind = LcpBound::Kind::kBilateral;
      rows->push_back(row);
    }
  }
  for (const JointLimitConstraint& c : set.joint_limits) {
    const StrandSegment& seg = model.segment(c.segment);
    const JointDeflection d = Deflection(seg.rest, state.q[c.segment]);
    if (d.bend_angle < c.max_bend - c.margin) continue;
    // Against the bend: minus the bend axis, in segment coordinates.
    const Vec3 u = -(d.twist.conjugate() * d.bend_axis);
    StrandRow row;
    row.kind = StrandRow::Kind::kJoint;
    row.segment = c.segment;
    row.direction = u;
    row.desired = g.kp * (d.bend_angle - c.max_bend) - g.kd * u.dot(state.w[c.segment]);
    row.bound.kind = LcpBound::Kind::kUnilateral;
    rows->push_back(row);
  }
}

absl::Status ValidateConstraints(const StrandModel& model, const StrandConstraintSet& set) {
  const auto check_segment = [&](int s, const char* kind, size_t i) -> absl::Status {
    if (s < 0 || s >= model.segments()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kind, "[", i, "].segment: out of range [0, ", model.segments(), ")"));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < set.points.size(); ++i) {
    const PointConstraint& c = set.points[i];
    if (auto s = check_segment(c.segment, "points", i); !s.ok()) return s;
    if (!c.point.allFinite() || !c.position.allFinite() || !c.velocity.allFinite() ||
        !c.acceleration.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("points[", i, "]: not finite"));
    }
  }
  for (size_t i = 0; i < set.curves.size(); ++i) {
    const CurveConstraint& c = set.curves[i];
    if (auto s = check_segment(c.segment, "curves", i); !s.ok()) return s;
    if (c.curve.size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat("curves[", i, "].curve: needs two points"));
    }
    for (const Vec3& p : c.curve) {
      if (!p.allFinite()) {
        return absl::InvalidArgumentError(absl::StrCat("curves[", i, "].curve: not finite"));
      }
    }
  }
  for (size_t i = 0; i < set.joint_values.size(); ++i) {
    const JointValueConstraint& c = set.joint_values[i];
    if (auto s = check_segment(c.segment, "joint_values", i); !s.ok()) return s;
    if (!c.target.coeffs().allFinite() || c.target.norm() < 1e-9) {
      return absl::InvalidArgumentError(
          absl::StrCat("joint_values[", i, "].target: not a finite non-zero quaternion"));
    }
  }
  for (size_t i = 0; i < set.joint_limits.size(); ++i) {
    const JointLimitConstraint& c = set.joint_limits[i];
    if (auto s = check_segment(c.segment, "joint_limits", i); !s.ok()) return s;
    if (!(c.max_bend >= 0.0 && c.max_bend < M_PI) || !(c.margin >= 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("joint_limits[", i, "]: max_bend in [0, pi), margin >= 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace ligature
