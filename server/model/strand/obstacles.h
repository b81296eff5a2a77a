#pragma once
// Simple rigid obstacles a strand collides with (section 5 of the oriented-strands
// formulation), and the search for collision points. Obstacles are inputs: the world maps
// its rigid bodies onto them each step.

#include <vector>

#include "server/math/transform.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

struct StrandObstacle {
  enum class Shape { kSphere, kPlane, kCapsule, kBox };
  Shape shape = Shape::kSphere;
  // Sphere: centre; capsule: centre, axis along local y; box: centre and axes; plane: a
  // point on it, its normal along local y.
  Transform pose;
  double radius = 0.0;        // m: sphere, capsule
  double half_height = 0.0;   // m: capsule, of the segment between the cap centres
  Vec3 half_extents = Vec3::Zero();  // m: box
  Vec3 linear_velocity = Vec3::Zero();   // m/s, of the pose's origin
  Vec3 angular_velocity = Vec3::Zero();  // rad/s
  double friction = 0.3;      // Coulomb coefficient, >= 0
  double restitution = 0.0;   // in [0, 1]

  // Velocity of the obstacle's material point at world position p.
  Vec3 VelocityAt(const Vec3& p) const {
    return linear_velocity + angular_velocity.cross(p - pose.position);
  }
};

// Signed distance from a world point to the obstacle's surface (negative inside) and the
// outward unit normal at the closest surface point.
struct SurfaceDistance {
  double distance = 0.0;
  Vec3 normal = Vec3::UnitY();
};
SurfaceDistance Distance(const StrandObstacle& obstacle, const Vec3& p);

struct StrandContact {
  int segment = 0;
  Vec3 point = Vec3::Zero();  // segment coordinates (on the axis)
  int obstacle = 0;
  Vec3 normal = Vec3::UnitY();  // world, away from the obstacle
  double depth = 0.0;           // m, penetration of the strand's surface (> 0 overlapping)
  Vec3 relative_velocity = Vec3::Zero();  // world, strand point minus obstacle point
};

// Collision points: the midpoint and the tip of every segment, whose surface (the axis
// point plus the radius) is within `margin`, or would be within one step h at the current
// approach speed.
std::vector<StrandContact> FindContacts(const StrandModel& model, const StrandKinematics& kin,
                                        const std::vector<StrandObstacle>& obstacles,
                                        double margin, double h);

}  // namespace ligature
