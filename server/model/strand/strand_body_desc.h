#pragma once
// A strand as a body of a world, as clients describe it: the model's description (rest
// curve, tree, materials) plus where its base is, what it follows, its art direction and
// its contact parameters. The world turns it into a StrandSimulation.

#include <string>

#include "server/geometry/collision_filter.h"
#include "server/math/transform.h"
#include "server/model/strand/strand_model.h"

namespace ligature {

struct StrandBodyDesc {
  std::string id;
  // Rest curve, tree and materials, in the base frame.
  StrandDesc strand;
  // The base frame: in the world, or, with follow_body, in that body's frame (the base
  // then takes the body's pose each tick).
  Transform pose;
  std::string follow_body;
  // Art direction (section 6 of the oriented-strands formulation). local_dynamics blends
  // out that fraction of the motion of local_dynamics_body (empty: of the base itself).
  double time_scale = 1.0;
  double local_dynamics = 0.0;
  std::string local_dynamics_body;
  // Posable dynamics: springs from every segment tip to its place in the rest shape.
  double pose_strength = 0.0;  // N/m
  double pose_damping = 0.0;   // N s/m
  // Rest joints rewritten at creation so the strand hangs in its rest curve under gravity.
  bool zero_gravity_rest_shape = false;
  // Contacts with the world's rigid shapes.
  double friction = 0.3;     // Coulomb coefficient, >= 0
  double restitution = 0.0;  // [0, 1]
  // Its layers and mask, against rigid shapes and queries (never a sensor).
  CollisionFilter collision;
  // Uniform wind (world, m/s): air drag acts on the segments' velocity relative to it.
  Vec3 wind = Vec3::Zero();
};

}  // namespace ligature
