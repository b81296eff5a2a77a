#pragma once
// What a scene query needs of a world besides a published frame: each body's constant
// geometry (rigid shapes in the body frame, a rod's radius and length, a strand's segment
// radii), in the frame's body order. It changes only with edits, so a host rebuilds it then
// and shares it, unchanged, with every query of every frame until the next edit.

#include <cstdint>
#include <string>
#include <vector>

#include "server/geometry/shape.h"

namespace ligature {

class World;

enum class QueryBodyKind : uint8_t { kRigid = 0, kRod = 1, kSoft = 2, kStrand = 3 };

struct QueryBody {
  std::string id;
  QueryBodyKind kind = QueryBodyKind::kRigid;
  std::vector<ChildShape> shapes;      // rigid: placed in the body frame
  CollisionFilter collision;           // the body's filter (a rigid child may have its own)
  double radius = 0.0;                 // rod (m)
  double length = 0.0;                 // rod: rest length, the range of u (m)
  std::vector<double> segment_radius;  // strand: per segment (m)
};

struct QueryShapes {
  std::vector<QueryBody> bodies;  // in the order World::MakeFrame lists them
};

// The geometry of every body of `world` as it is now.
QueryShapes BuildQueryShapes(const World& world);

}  // namespace ligature
