#pragma once
// The constraints on rods (Theetten and Grisoni, "MICADO", 2008), as descriptions. Each one
// relates one or two rod points, a rod point being a rod and an arc-length coordinate u:
//
//   absolute (one rod point and the environment)
//     kPosition      x(u) = target                                       3 rows
//     kOrientation   x'(u) parallel to `direction` (|x'| kept); with     3 rows (+1)
//                    `twist` set, theta(u) = twist as well
//     kPlane         (x(u) - target) . normal = 0                         1 row
//     kAxis          x(u) on the line through target along `direction`   2 rows
//     kSphere        |x(u) - target| = distance                           1 row
//     kKeyhole       x(s) = target with s free: the rod slides through    3 rows + ds
//                    the point (viscous friction along it); `oriented`
//                    also holds the tangent there along `direction`       (+3 rows)
//   relative (two rod points, on one rod or two)
//     kFusion        x_a(u_a) = x_b(u_b) and the tangents keep their      6 rows
//                    relative direction (branching, cable trees)
//     kDistance      |x_a(u_a) - x_b(u_b)| = distance (>= with unilateral) 1 row
//     kRelativePlane (x_a(u_a) - x_b(u_b)) . n = 0 (>= 0 with unilateral), 1 row
//                    n a fixed normal or the tangent of rod a at u_a
//     kRelativeKeyhole  x_a(s) = x_b(u_b), s free on rod a: rod a slides   3 rows + ds
//                    through a point of rod b (a slipknot, an arrow on a bow)
//
// Targets of absolute constraints may follow a rigid body (a device-driven tool): the
// target is then that body's pose applied to `target` (and `direction`), in its frame.

#include <optional>
#include <string>

#include "server/math/types.h"
#include "server/model/rigid/rigid_bodies.h"

namespace ligature {

enum class RodConstraintKind {
  kPosition,
  kOrientation,
  kPlane,
  kAxis,
  kSphere,
  kKeyhole,
  kFusion,
  kDistance,
  kRelativePlane,
  kRelativeKeyhole,
};

struct RodPointRef {
  std::string rod;  // rod id
  double u = 0.0;   // m, in [0, length]
};

struct RodConstraintDesc {
  std::string id;
  RodConstraintKind kind = RodConstraintKind::kPosition;
  RodPointRef a;
  RodPointRef b;                   // relative kinds only
  Vec3 target = Vec3::Zero();      // m, world frame (or the followed body's frame)
  Vec3 direction = Vec3::UnitX();  // unit: orientation, axis, keyhole; normal: plane kinds
  double distance = 0.0;           // m: sphere, distance
  std::optional<double> twist;     // rad: orientation
  bool unilateral = false;         // distance, relative plane: only pushes apart
  bool normal_from_tangent = false;  // relative plane: n = tangent of rod a at u_a
  bool oriented = false;           // keyholes
  double friction = 0.0;           // N s/m, viscous, along a keyhole
  std::string follow_body;         // absolute kinds: body id whose pose moves the target
};

// Whether a kind relates two rod points.
inline bool IsRelative(RodConstraintKind kind) {
  return kind == RodConstraintKind::kFusion || kind == RodConstraintKind::kDistance ||
         kind == RodConstraintKind::kRelativePlane ||
         kind == RodConstraintKind::kRelativeKeyhole;
}
// Scalar rows (Lagrange multipliers) a constraint adds, as listed above.
inline int RodConstraintRows(const RodConstraintDesc& d) {
  switch (d.kind) {
    case RodConstraintKind::kPosition: return 3;
    case RodConstraintKind::kOrientation: return d.twist ? 4 : 3;
    case RodConstraintKind::kPlane: return 1;
    case RodConstraintKind::kAxis: return 2;
    case RodConstraintKind::kSphere: return 1;
    case RodConstraintKind::kKeyhole: return d.oriented ? 6 : 3;
    case RodConstraintKind::kFusion: return 6;
    case RodConstraintKind::kDistance: return 1;
    case RodConstraintKind::kRelativePlane: return 1;
    case RodConstraintKind::kRelativeKeyhole: return 3;
  }
  return 0;
}

// Whether a kind has a sliding coordinate (an extra unknown ds).
inline bool IsSliding(RodConstraintKind kind) {
  return kind == RodConstraintKind::kKeyhole || kind == RodConstraintKind::kRelativeKeyhole;
}

}  // namespace ligature
