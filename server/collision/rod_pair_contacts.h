#pragma once
// Contacts between rods (two rods, or two far-apart parts of one rod): each rod's
// centreline is taken as a polyline of a few chords per spline segment; segments whose
// boxes (the control points' hull, grown by the radius, a margin and the step's motion)
// overlap are paired by a sweep along x, and the closest points of their chords give at
// most one contact per pair of segments. A contact keeps where both rod points were
// (anchors), so that its gap is linear in the rods' unknowns:
//   gap = distance + n . ((x_b(u_b) - anchor_b) - (x_a(u_a) - anchor_a)).

#include <span>
#include <vector>

#include "server/model/rod/rod_model.h"

namespace ligature {

// A rod as contact detection sees it.
struct RodShapeView {
  const RodModel* model = nullptr;
  const RodState* state = nullptr;
  bool collides = false;  // takes part in rod-rod contact
  // Two rods meet only when their filters do (a rod that collides always meets itself).
  CollisionFilter filter;
};

struct RodPairContact {
  int rod_a = 0;
  int rod_b = 0;
  double u_a = 0.0;  // m along rod a
  double u_b = 0.0;
  Vec3 normal = Vec3::UnitY();  // unit, from rod a's point towards rod b's
  Vec3 anchor_a = Vec3::Zero();  // x_a(u_a) when found
  Vec3 anchor_b = Vec3::Zero();
  double distance = 0.0;  // m, gap between the surfaces (negative: overlap)
  bool active = false;    // pushing in the current solve
  double force = 0.0;     // N, along the normal on rod b (and its opposite on rod a)
};

// Points of one rod nearer than this along it are never in contact with each other.
double SelfContactReach(const RodModel& model);

// Arc-length stretches that must not collide (around a joint between two rods): contacts
// with u_a in [lo_a, hi_a] on rod_a and u_b in [lo_b, hi_b] on rod_b are skipped.
struct RodContactExclusion {
  int rod_a = 0, rod_b = 0;
  double lo_a = 0.0, hi_a = 0.0, lo_b = 0.0, hi_b = 0.0;
};

// The contacts among the colliding rods whose gap is below `margin` plus how far the two
// points may approach in a step of h.
void FindRodPairContacts(std::span<const RodShapeView> rods, double h, double margin,
                         std::span<const RodContactExclusion> exclusions,
                         std::vector<RodPairContact>* out);

}  // namespace ligature
