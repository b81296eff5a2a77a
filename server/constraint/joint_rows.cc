#include "server/constraint/joint_rows.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "server/constraint/curve_rows.h"
#include "server/constraint/point_constraint_rows.h"

namespace ligature {
namespace {

// Limit rows appear this close to a limit, so that a limit also stops motion that other
// constraints cause during the solve (speculative rows; their force stays zero while the
// limit is not reached).
constexpr double kHingeLimitSlop = 0.05;   // rad
constexpr double kSliderLimitSlop = 0.01;  // m

// A joint frame in the world: its origin (the anchor), its axes, and the anchor's lever arm
// from the body's centre of mass.
struct WorldFrame {
  Vec3 origin;
  Quat orientation;
  Mat3 axes;  // columns: the frame's X (joint axis), Y, Z in world coordinates
  Vec3 arm;
};

WorldFrame FrameInWorld(const JointSide& side, const Transform& local) {
  const Transform f = side.pose * local;
  return {f.position, f.orientation, f.orientation.toRotationMatrix(),
          f.position - side.pose.position};
}

ConstraintBlock EmptyBlock(ConstraintLaw law, int dim, const JointSide& a, const JointSide& b) {
  ConstraintBlock block;
  block.law = law;
  block.dim = dim;
  block.body_a = a.index;
  block.body_b = b.index;
  return block;
}

// Rotation vector (axis * angle, |angle| <= pi) of a unit quaternion.
Vec3 RotationVector(const Quat& q) {
  const double sign = q.w() < 0.0 ? -1.0 : 1.0;
  const Vec3 v = sign * q.vec();
  const double w = sign * q.w();
  const double s = v.norm();
  if (s < 1e-12) return 2.0 * v;
  return v * (2.0 * std::atan2(s, w) / s);
}

// Inverse left Jacobian of the rotation group:
// log(exp(d) exp(phi)) = phi + JlInv(phi) d + O(d^2).
Mat3 LeftJacobianInverse(const Vec3& phi) {
  const double angle = phi.norm();
  // (1 - (angle / 2) cot(angle / 2)) / angle^2, with its series near zero.
  const double c =
      angle < 1e-4
          ? 1.0 / 12.0 + angle * angle / 720.0
          : (1.0 - 0.5 * angle * std::cos(0.5 * angle) / std::sin(0.5 * angle)) /
                (angle * angle);
  const Mat3 k = Skew(phi);
  return Mat3::Identity() - 0.5 * k + c * k * k;
}

// Anchors coincide: the point block, delta = p_b - p_a.
ConstraintBlock AnchorBlock(const JointSide& a, const WorldFrame& fa, const JointSide& b,
                            const WorldFrame& fb) {
  return MakePointBlock({a.index, fa.origin, fa.arm}, {b.index, fb.origin, fb.arm},
                        Vec3::Zero());
}

// Orientations coincide: delta = log(R_b R_a^-1), the rotation taking A's frame onto B's
// (world frame). A rotation d of B turns it into exp(d) R_b R_a^-1, one of A into
// R_b R_a^-1 exp(-d); the rows are the exact derivatives, JlInv(phi) on B and
// -JrInv(phi) = -JlInv(phi)^T on A, so that Newton steps converge quadratically even from
// large errors.
ConstraintBlock OrientationBlock(const JointSide& a, const WorldFrame& fa, const JointSide& b,
                                 const WorldFrame& fb) {
  ConstraintBlock block = EmptyBlock(ConstraintLaw::kBilateral, 3, a, b);
  const Vec3 phi = RotationVector(fb.orientation * fa.orientation.conjugate());
  const Mat3 jl_inv = LeftJacobianInverse(phi);
  block.jacobian_b.rightCols<3>() = jl_inv;
  block.jacobian_a.rightCols<3>() = -jl_inv.transpose();
  block.violation_free = phi;
  return block;
}

// B's axis x_b stays along A's axis x_a: with A's frame axes y_a, z_a across the axis,
// theta = x_a x x_b projected on them gives delta = (y_a . theta, z_a . theta)
// = (-z_a . x_b, y_a . x_b), a small-angle rotation error. For a row w . x_b with w fixed
// in A, a rotation d_b of B changes it by d_b . (x_b x w) and a rotation d_a of A by
// d_a . (w x x_b): the rows are those, [0, y_a] and [0, z_a] on B once aligned.
ConstraintBlock AxisBlock(const JointSide& a, const WorldFrame& fa, const JointSide& b,
                          const WorldFrame& fb) {
  ConstraintBlock block = EmptyBlock(ConstraintLaw::kBilateral, 2, a, b);
  const Vec3 xb = fb.axes.col(0);
  const Vec3 w[2] = {-fa.axes.col(2), fa.axes.col(1)};
  for (int d = 0; d < 2; ++d) {
    const Vec3 jb = xb.cross(w[d]);
    block.jacobian_b.row(d) << Vec3::Zero().transpose(), jb.transpose();
    block.jacobian_a.row(d) << Vec3::Zero().transpose(), -jb.transpose();
    block.violation_free[d] = w[d].dot(xb);
  }
  return block;
}

// Hinge angle of B's frame about A's axis: the angle of B's Y axis in A's YZ plane,
// atan2(y_b . z_a, y_b . y_a), in (-pi, pi]. Its derivative with respect to a rotation of B
// is y_b x (c z_a - s y_a) / (c^2 + s^2) (= x_a once aligned), the opposite for A.
double HingeAngle(const WorldFrame& fa, const WorldFrame& fb, Vec3* jacobian_b) {
  const Vec3 yb = fb.axes.col(1);
  const Vec3 ya = fa.axes.col(1);
  const Vec3 za = fa.axes.col(2);
  const double s = yb.dot(za);
  const double c = yb.dot(ya);
  const double r2 = s * s + c * c;
  *jacobian_b = r2 > 1e-24 ? Vec3(yb.cross(c * za - s * ya) / r2) : Vec3(fa.axes.col(0));
  return std::atan2(s, c);
}

// One-sided limit on a joint coordinate q with derivative rows j_a, j_b: delta = q - lower
// at the lower limit, upper - q at the upper one (>= 0 inside the range). Emitted only
// within `slop` of a limit; at most one side, the nearer.
bool LimitBlock(const JointParams& params, double q, double slop,
                const Eigen::Matrix<double, 1, 6>& j_a, const Eigen::Matrix<double, 1, 6>& j_b,
                const JointSide& a, const JointSide& b, ConstraintBlock* block) {
  const double to_lower = q - params.lower;
  const double to_upper = params.upper - q;
  if (to_lower >= slop && to_upper >= slop) return false;
  *block = EmptyBlock(ConstraintLaw::kUnilateral, 1, a, b);
  const double sign = to_lower <= to_upper ? 1.0 : -1.0;
  block->jacobian_a.row(0) = sign * j_a;
  block->jacobian_b.row(0) = sign * j_b;
  block->violation_free.x() = std::min(to_lower, to_upper);
  return true;
}

// B's anchor stays on the line through A's anchor along A's axis: with d = p_b - p_a,
// delta = (y_a . d, z_a . d). Since y_a and z_a turn with A, a rotation of A moves the row
// like a point of A at B's anchor: rows [w, r_b x w] on B and -[w, (p_b - c_a) x w] on A.
ConstraintBlock LineBlock(const JointSide& a, const WorldFrame& fa, const JointSide& b,
                          const WorldFrame& fb) {
  ConstraintBlock block = EmptyBlock(ConstraintLaw::kBilateral, 2, a, b);
  const Vec3 d = fb.origin - fa.origin;
  const Vec3 arm_a = fa.arm + d;  // B's anchor from A's centre of mass
  for (int k = 0; k < 2; ++k) {
    const Vec3 w = fa.axes.col(k + 1);
    block.jacobian_a.row(k) = -PointRow(w, arm_a);
    block.jacobian_b.row(k) = PointRow(w, fb.arm);
    block.violation_free[k] = w.dot(d);
  }
  return block;
}

// Collects a joint's blocks (at most kMaxJointBlocks) and appends them with their
// warm-start forces.
class BlockList {
 public:
  void Add(const ConstraintBlock& block) {
    assert(count_ < kMaxJointBlocks);
    blocks_[count_++] = block;
  }

  // Warm start from joint.forces in emission order; with `remember`, forces of slots not
  // emitted now are cleared so that a block appearing later (a limit) starts cold. A joint
  // between two bodies that take no correction appends nothing.
  int AppendTo(Joint& joint, bool remember, ConstraintRows* rows) {
    for (int k = 0; k < count_; ++k) {
      const int dim = blocks_[k].dim;
      blocks_[k].force.setZero();
      blocks_[k].force.head(dim) = joint.forces[k].head(dim);
    }
    if (remember) {
      for (int k = count_; k < kMaxJointBlocks; ++k) joint.forces[k].setZero();
    }
    if (count_ == 0 ||
        (blocks_[0].body_a == kWorldBody && blocks_[0].body_b == kWorldBody)) {
      if (remember) joint.forces = ZeroJointForces();
      return 0;
    }
    for (int k = 0; k < count_; ++k) rows->blocks.push_back(blocks_[k]);
    return count_;
  }

 private:
  ConstraintBlock blocks_[kMaxJointBlocks];
  int count_ = 0;
};

using Row6 = Eigen::Matrix<double, 1, 6>;

// A joint coordinate for a drive: its rows, error and target rate, its rate from the two
// sides' velocities.
DriveCoordinate Coordinate(const JointSide& a, const JointSide& b, const Row6& j_a,
                           const Row6& j_b, double error, double target_rate) {
  DriveCoordinate q;
  q.body_a = a.index;
  q.body_b = b.index;
  q.jacobian_a = j_a;
  q.jacobian_b = j_b;
  q.error = error;
  q.rate = j_a.dot(a.velocity) + j_b.dot(b.velocity);
  q.target_rate = target_rate;
  return q;
}

// One side's frame turned towards the other's (world orientations `turned` and `target`),
// one drive row per axis n of the target frame: the error is n . phi with
// phi = log(R_turned R_target^-1), its rows those of OrientationBlock along n (n^T JlInv on
// the turned side, -n^T JlInv^T on the other). `target_rate` is the rate of phi aimed for.
void AddOrientationDrive(const DriveGains& gains, const JointSide& a, const JointSide& b,
                         bool a_turns, const Quat& turned, const Quat& target,
                         const Vec3& target_rate, const DriveStep& step, BlockList* blocks) {
  const Vec3 phi = RotationVector(turned * target.conjugate());
  const Mat3 jl_inv = LeftJacobianInverse(phi);
  const Mat3 axes = target.toRotationMatrix();
  for (int k = 0; k < 3; ++k) {
    const Vec3 n = axes.col(k);
    Row6 on_turned, on_target;
    on_turned << Vec3::Zero().transpose(), (jl_inv.transpose() * n).transpose();
    on_target << Vec3::Zero().transpose(), -(jl_inv * n).transpose();
    const Row6& j_a = a_turns ? on_turned : on_target;
    const Row6& j_b = a_turns ? on_target : on_turned;
    blocks->Add(MakeDriveBlock(gains, Coordinate(a, b, j_a, j_b, n.dot(phi), n.dot(target_rate)),
                               step));
  }
}

// A's anchor pulled onto B's, one drive row per axis n of B's frame: the error is
// n . (p_a - p_b), with point rows on both sides.
void AddPositionDrive(const DriveGains& gains, const JointSide& a, const WorldFrame& fa,
                      const JointSide& b, const WorldFrame& fb, const DriveStep& step,
                      BlockList* blocks) {
  const Vec3 d = fa.origin - fb.origin;
  for (int k = 0; k < 3; ++k) {
    const Vec3 n = fb.axes.col(k);
    blocks->Add(MakeDriveBlock(
        gains, Coordinate(a, b, PointRow(n, fa.arm), -PointRow(n, fb.arm), n.dot(d), 0.0),
        step));
  }
}

}  // namespace

JointRowsResult AppendJointRows(Joint& joint, const JointSide& a, const JointSide& b,
                                const DriveStep* drives, ConstraintRows* rows) {
  JointRowsResult result;
  BlockList blocks;
  const JointParams& params = joint.params;
  const bool remember = drives != nullptr;

  if (params.kind == JointKind::kCurve) {
    const CurveBlocks curve = MakeCurveBlocks(joint, b);
    result.released = curve.released;
    for (int k = 0; k < curve.count; ++k) blocks.Add(curve.blocks[k]);
    result.blocks = blocks.AppendTo(joint, remember, rows);
    return result;
  }

  const WorldFrame fa = FrameInWorld(a, joint.frame_a);
  const WorldFrame fb = FrameInWorld(b, joint.frame_b);
  switch (params.kind) {
    case JointKind::kBall:
      // Anchors coincide; B's frame may be turned towards A's turned by the target.
      blocks.Add(AnchorBlock(a, fa, b, fb));
      if (drives && params.angular_drive.on()) {
        AddOrientationDrive(params.angular_drive, a, b, /*a_turns=*/false, fb.orientation,
                            fa.orientation * params.target_orientation,
                            fa.orientation * params.target_angular_velocity, *drives, &blocks);
      }
      break;
    case JointKind::kHinge: {
      // Anchors coincide, axes stay aligned; the angle about the axis may be driven and
      // limited.
      blocks.Add(AnchorBlock(a, fa, b, fb));
      blocks.Add(AxisBlock(a, fa, b, fb));
      if (!(drives && params.axis_drive.on()) && !params.limited) break;
      Vec3 j;
      const double angle = HingeAngle(fa, fb, &j);
      Row6 j_a, j_b;
      j_a << Vec3::Zero().transpose(), -j.transpose();
      j_b << Vec3::Zero().transpose(), j.transpose();
      if (drives && params.axis_drive.on()) {
        blocks.Add(MakeDriveBlock(
            params.axis_drive,
            Coordinate(a, b, j_a, j_b, WrapAngle(angle - params.target_position),
                       params.target_velocity),
            *drives));
      }
      ConstraintBlock limit;
      if (params.limited && LimitBlock(params, angle, kHingeLimitSlop, j_a, j_b, a, b, &limit)) {
        blocks.Add(limit);
      }
      break;
    }
    case JointKind::kSlider: {
      // Orientations locked, B's anchor on A's axis line; the offset along it,
      // s = x_a . (p_b - p_a), with rows like LineBlock's along x_a, may be driven and
      // limited.
      blocks.Add(OrientationBlock(a, fa, b, fb));
      blocks.Add(LineBlock(a, fa, b, fb));
      const Vec3 x = fa.axes.col(0);
      const Vec3 d = fb.origin - fa.origin;
      const double offset = x.dot(d);
      const Row6 j_a = -PointRow(x, fa.arm + d);
      const Row6 j_b = PointRow(x, fb.arm);
      if (drives && params.axis_drive.on()) {
        blocks.Add(MakeDriveBlock(params.axis_drive,
                                  Coordinate(a, b, j_a, j_b, offset - params.target_position,
                                             params.target_velocity),
                                  *drives));
      }
      ConstraintBlock limit;
      if (params.limited &&
          LimitBlock(params, offset, kSliderLimitSlop, j_a, j_b, a, b, &limit)) {
        blocks.Add(limit);
      }
      break;
    }
    case JointKind::kFixed:
      // Weld: anchors and orientations coincide.
      blocks.Add(AnchorBlock(a, fa, b, fb));
      blocks.Add(OrientationBlock(a, fa, b, fb));
      break;
    case JointKind::kDrive:
      // Only drives: A's frame pulled onto B's, in position and in orientation.
      if (!drives) break;
      if (params.linear_drive.on()) {
        AddPositionDrive(params.linear_drive, a, fa, b, fb, *drives, &blocks);
      }
      if (params.angular_drive.on()) {
        AddOrientationDrive(params.angular_drive, a, b, /*a_turns=*/true, fa.orientation,
                            fb.orientation, Vec3::Zero(), *drives, &blocks);
      }
      break;
    case JointKind::kCurve:
      break;  // handled above
  }
  result.blocks = blocks.AppendTo(joint, remember, rows);
  return result;
}

}  // namespace ligature
