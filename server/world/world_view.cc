// Queries on a world's bodies that the stages and the couplings share.

#include "server/world/world_view.h"

#include "server/collision/placed_shape.h"

namespace ligature {

absl::flat_hash_set<uint32_t> WorldView::Handles() const {
  absl::flat_hash_set<uint32_t> handles;
  auto handle = [&](const std::string& id) {
    auto it = body_ids.find(id);
    if (it != body_ids.end()) handles.insert(bodies.Index(it->second));
  };
  for (const RodConstraint& c : rods.constraints()) handle(c.desc.follow_body);
  for (const SoftConstraintDesc& c : soft.constraints()) handle(c.follow_body);
  return handles;
}

void WorldView::AppendObstacles(uint32_t i, double reach, std::vector<Obstacle>* out) const {
  const Transform pose{bodies.position[i], bodies.orientation[i]};
  for (size_t k = 0; k < bodies.shapes[i].size(); ++k) {
    const CollisionFilter& filter = bodies.ChildFilter(i, k);
    if (filter.sensor) continue;  // sensors push nothing
    const ChildShape& child = bodies.shapes[i][k];
    const PlacedShape placed = PlaceShape(child, pose, reach);
    Obstacle& o = out->emplace_back();
    o.body = i;
    o.filter = filter;
    o.shape = child.shape;
    o.pose = placed.pose;
    o.bounds = placed.bounds;
    o.reach = reach;
  }
}

ContactBody WorldView::RigidContactBody(uint32_t i, const Vec3& origin) const {
  return {bodies.Moves(i) ? i : kWorldBody, origin, bodies.linear_velocity[i],
          bodies.angular_velocity[i]};
}

}  // namespace ligature
