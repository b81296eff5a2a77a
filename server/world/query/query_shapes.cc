#include "server/world/query/query_shapes.h"

#include "server/world/world.h"

namespace ligature {

QueryShapes BuildQueryShapes(const World& world) {
  QueryShapes out;
  // Rigid bodies: shapes are held about the centre of mass; queries place them from the
  // body frame's pose, which is what frames publish.
  const RigidBodies& rigid = world.bodies();
  for (int i = 0; i < rigid.size(); ++i) {
    QueryBody& b = out.bodies.emplace_back();
    b.id = rigid.id[i];
    b.kind = QueryBodyKind::kRigid;
    b.shapes = rigid.shapes[i];
    b.collision = rigid.collision[i];
    for (ChildShape& child : b.shapes) child.local.position += rigid.center_local[i];
  }
  for (const RodWorld::Rod& rod : world.rods().rods()) {
    QueryBody& b = out.bodies.emplace_back();
    b.id = rod.desc.id;
    b.kind = QueryBodyKind::kRod;
    b.radius = rod.desc.material.radius;
    b.length = rod.model.length();
    b.collision = rod.desc.collision;
  }
  for (const SoftWorld::Body& soft : world.soft_bodies().bodies()) {
    QueryBody& b = out.bodies.emplace_back();
    b.id = soft.desc.id;
    b.kind = QueryBodyKind::kSoft;
    b.collision = soft.desc.collision;
  }
  for (const StrandWorld::Strand& strand : world.strands().strands()) {
    QueryBody& b = out.bodies.emplace_back();
    b.id = strand.desc.id;
    b.kind = QueryBodyKind::kStrand;
    b.collision = strand.desc.collision;
    for (const StrandSegment& s : strand.sim.model().all()) b.segment_radius.push_back(s.radius);
  }
  return out;
}

}  // namespace ligature
