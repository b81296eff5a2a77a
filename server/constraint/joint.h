#pragma once
// User constraints between two bodies (or a body and the world): joints and the curve
// constraint. Frames are given in each body's centre-of-mass frame; a joint's axis is its
// frames' local X axis.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "server/math/transform.h"
#include "server/model/rigid/rigid_bodies.h"

namespace ligature {

enum class JointKind : uint8_t {
  kBall = 0,    // anchor points coincide (3 translational rows)
  kHinge = 1,   // ball + the X axes stay aligned (2 angular rows); optional angle limits
  kSlider = 2,  // orientations locked (3 angular rows), anchor moves along A's X axis only
                // (2 translational rows); optional distance limits
  kFixed = 3,   // weld: 3 translational + 3 angular rows
  kCurve = 4,   // B's anchor stays on a world-space curve: 2 rows across the tangent,
                // free (or with friction) along it; stops or releases at the ends
  kDrive = 5,   // no rigid rows: a linear and an angular drive pull A's frame onto B's
                // (a 6-DOF drive, for grabbing)
};

// How a drive acts on its coordinate q (an angle, an offset, or one axis of a frame's
// position or orientation error).
enum class DriveMode : uint8_t {
  kOff = 0,
  // A motor: q's rate is held at the target velocity, as a constraint, with at most
  // max_force.
  kVelocity = 1,
  // A PD spring: f = stiffness (q_target - q) + damping (v_target - dq/dt), implicit in the
  // step (stable at any gains), with at most max_force.
  kSpring = 2,
};

// A drive's law: N/m and N s/m on offsets, N m/rad and N m s/rad on angles; max_force is
// N or N m, per axis.
struct DriveGains {
  DriveMode mode = DriveMode::kOff;
  double stiffness = 0.0;
  double damping = 0.0;
  double max_force = std::numeric_limits<double>::infinity();

  bool on() const { return mode != DriveMode::kOff; }
};

enum class CurveEnd : uint8_t {
  kStop = 0,     // a unilateral row keeps the point on the curve at its ends
  kRelease = 1,  // the constraint is removed when the point passes an end
};

// The joint's parameters, independent of the bodies.
struct JointParams {
  JointKind kind = JointKind::kBall;
  bool limited = false;     // hinge: angle (rad) of B's frame about the axis relative to
  double lower = 0.0;       // A's frame; slider: offset (m) of B's anchor along A's axis
  double upper = 0.0;
  // kCurve: polyline through these world points (at least 2); with `smooth` the polyline
  // is replaced by a Catmull-Rom spline through them, sampled finely.
  std::vector<Vec3> curve;
  bool smooth = false;
  double friction = 0.0;    // kCurve: Coulomb coefficient along the tangent
  CurveEnd curve_end = CurveEnd::kStop;
  // kHinge, kSlider: a motor or spring on the angle (rad) or offset (m), with its targets.
  DriveGains axis_drive;
  double target_position = 0.0;
  double target_velocity = 0.0;
  // kDrive: pulls A's anchor onto B's, per axis of B's frame.
  DriveGains linear_drive;
  // kBall, kDrive: turns B's frame towards A's frame turned by target_orientation (kBall;
  // kDrive: none), per axis of that target frame.
  DriveGains angular_drive;
  Quat target_orientation = Quat::Identity();
  // kBall, kDrive: the targets' velocities, in A's frame (feed-forward of the damping).
  Vec3 target_linear_velocity = Vec3::Zero();
  Vec3 target_angular_velocity = Vec3::Zero();
  // The joint breaks (is removed, and reported in the frame) once the force (N) or the
  // torque about B's anchor (N m) it carries exceeds these.
  double break_force = std::numeric_limits<double>::infinity();
  double break_torque = std::numeric_limits<double>::infinity();

  // Whether a drive commands motion (a target velocity), which the bodies must follow.
  bool DrivesMotion() const {
    return (axis_drive.on() && target_velocity != 0.0) ||
           (linear_drive.on() && !target_linear_velocity.isZero()) ||
           (angular_drive.on() && !target_angular_velocity.isZero());
  }
};

// The most blocks a joint emits (a 6-DOF drive: one per axis).
inline constexpr int kMaxJointBlocks = 6;
using JointForces = std::array<Vec3, kMaxJointBlocks>;
inline JointForces ZeroJointForces() {
  JointForces f;
  for (Vec3& v : f) v.setZero();
  return f;
}

// A joint as the world holds it.
struct Joint {
  std::string id;
  JointParams params;
  BodyHandle body_a;             // null for kCurve (the curve is in the world)
  Transform frame_a;             // local to A's centre of mass, or world frame when A is null
  BodyHandle body_b;             // null: the world
  Transform frame_b;             // local to B's centre of mass, or world frame when B is null
  bool collide_connected = false;  // A and B still collide with each other
  // Runtime: warm-start forces of the joint's blocks, in the order it emits them, and the
  // curve segment the point was last on.
  JointForces forces = ZeroJointForces();
  uint32_t curve_segment = 0;
  // Runtime, kCurve: the polyline the point follows, built from params.curve on first use
  // (clear it when params.curve or params.smooth change), and the first across-tangent
  // direction of the last rows, carried along the curve so that warm-start forces keep
  // their meaning from tick to tick.
  std::vector<Vec3> curve_samples;
  Vec3 curve_normal = Vec3::Zero();
};

}  // namespace ligature
