#pragma once
// A rigid shape placed in the world, as the deformable bodies meet it: rods, soft bodies
// and strands all take the world's rigid shapes as obstacles of this one type. The world
// builds one for each shape of each rigid body it hands them; each user reads the fields
// it needs, as the comment on each field says.

#include <cstdint>

#include "server/geometry/aabb.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

struct Obstacle {
  // The world's dense index of the rigid body the shape belongs to. Rods and soft bodies
  // name it in their contacts (and push on it); strands look its motion up by it.
  uint32_t body = 0;
  // The shape in its own frame (see shape.h: a plane is the local XZ plane with outward
  // normal local +Y, a capsule's segment runs along local Y from -half_length to
  // +half_length). All users.
  Shape shape;
  // World pose of the shape's frame (position in m). All users.
  Transform pose;
  // World-space bounds of the shape, grown by `reach` (m; unbounded for a plane). Rods,
  // soft bodies and strands skip obstacles whose bounds miss them.
  Aabb bounds;
  // A dynamic body's inverse mass (1/kg), world inverse inertia (1/(kg m^2)) and centre of
  // mass (m, world); zero inverse mass: the body is held (static or kinematic). Rods use
  // all three (the body's effective mass at a contact); soft bodies only whether the
  // inverse mass is > 0 (whether to push the body back).
  double inv_mass = 0.0;
  Mat3 inv_inertia = Mat3::Zero();
  Vec3 center = Vec3::Zero();
  // m: how far the obstacle may move over the step; a rod sample's contact margin grows by
  // it (speculative contacts found before the step, see the world's coupled rod contacts).
  // Rods.
  double reach = 0.0;
  // A scalpel's blade: the soft bodies it can cut meet only its tip, which presses and
  // cuts. Soft bodies.
  bool blade = false;
  // The shape's layers and mask (its own, or its body's): a deformable body meets it only
  // when their filters meet. All users.
  CollisionFilter filter;
  // Velocity of the pose's origin (m/s, world) and angular velocity (rad/s, world), held
  // over the step. Strands (the world sets them from the body's motion for each strand).
  Vec3 linear_velocity = Vec3::Zero();
  Vec3 angular_velocity = Vec3::Zero();
  // Coulomb friction coefficient (>= 0) and restitution (in [0, 1]) of a strand's contacts
  // with the obstacle. Strands (the world sets each strand's own).
  double friction = 0.3;
  double restitution = 0.0;

  // Velocity (m/s, world) of the obstacle's material point at world position p.
  Vec3 VelocityAt(const Vec3& p) const {
    return linear_velocity + angular_velocity.cross(p - pose.position);
  }
};

}  // namespace ligature
