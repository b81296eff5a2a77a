#pragma once
// Distances to the rigid obstacles a strand collides with (section 5 of the
// oriented-strands formulation), and the search for collision points. Obstacles are
// inputs (server/geometry/obstacle.h): the world hands each strand its rigid shapes with
// their motion and the strand's friction and restitution each step.

#include <vector>

#include "server/geometry/obstacle.h"
#include "server/math/transform.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

// Signed distance from a world point to the obstacle's surface (negative inside) and the
// outward unit normal at the closest surface point.
struct SurfaceDistance {
  double distance = 0.0;
  Vec3 normal = Vec3::UnitY();
};
SurfaceDistance Distance(const Obstacle& obstacle, const Vec3& p);

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
                                        const std::vector<Obstacle>& obstacles,
                                        double margin, double h);

}  // namespace ligature
