#pragma once
// Contacts between rods and rigid shapes: each rod is sampled along its centreline by
// spheres of its radius (about a radius apart, see FindRodContacts; ends included), and every sample near a shape is collided with it by the narrowphase. A
// contact keeps where the rod point was (anchor), and a dynamic body moves along the
// normal by `push` in the rods' solve (its inertia there is its effective mass at the
// point, shared among its contacts), so that the gap is linear in the unknowns:
//   gap = distance + push - normal . (x(u) - anchor).

#include <cstdint>
#include <span>
#include <vector>

#include "server/geometry/obstacle.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"
#include "server/model/rod/rod_model.h"

namespace ligature {

struct RodContact {
  int rod = 0;
  double u = 0.0;          // m along the rod
  int sample = -1;         // which of the rod's contact samples (u = length k / (count - 1))
  uint32_t body = 0;       // obstacle body
  Vec3 normal = Vec3::UnitY();  // unit, from the rod towards the obstacle
  Vec3 point = Vec3::Zero();    // on the obstacle, world
  Vec3 anchor = Vec3::Zero();   // x(u) when found
  double distance = 0.0;   // m, signed gap (negative: overlap)
  bool active = false;     // pushing in the current solve
  double force = 0.0;      // N, the rod's push on the obstacle along the normal
  // A dynamic obstacle: its effective mass along the normal at the point (kg; 0 for held
  // bodies), shared among its contacts, and how far the solve moved it along the normal.
  double mass = 0.0;
  double push = 0.0;
};

// How many contact samples a rod takes along its length: sample k is at
// u = length k / (count - 1).
int RodContactSampleCount(const RodModel& model);

// The contacts of one rod (whose layers and mask are `filter`) with the obstacles that its
// filter meets and whose gap is below its sample's margin (`margin` plus how far the sample
// moves in a step of h at its velocity).
void FindRodContacts(int rod_index, const RodModel& model, const RodState& state,
                     const CollisionFilter& filter, double h, double margin,
                     std::span<const Obstacle> obstacles, std::vector<RodContact>* out);
// Shares each dynamic body's effective mass among its contacts in `contacts`, so that
// together they move it as one body would move.
void ShareObstacleMass(std::vector<RodContact>* contacts);

}  // namespace ligature
