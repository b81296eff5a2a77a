#pragma once
// User constraints between two bodies (or a body and the world): joints and the curve
// constraint. Frames are given in each body's centre-of-mass frame; a joint's axis is its
// frames' local X axis.

#include <array>
#include <cstdint>
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
};

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
  std::array<Vec3, 3> forces = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  uint32_t curve_segment = 0;
  // Runtime, kCurve: the polyline the point follows, built from params.curve on first use
  // (clear it when params.curve or params.smooth change), and the first across-tangent
  // direction of the last rows, carried along the curve so that warm-start forces keep
  // their meaning from tick to tick.
  std::vector<Vec3> curve_samples;
  Vec3 curve_normal = Vec3::Zero();
};

}  // namespace ligature
