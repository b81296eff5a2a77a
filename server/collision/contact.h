#pragma once
// Contact points produced by the narrowphase.

#include <array>

#include "server/math/types.h"

namespace ligature {

// One contact point between shape A and shape B.
//  - normal: unit, world space, pointing from A towards B (B is pushed along +normal).
//  - position: world-space point midway between the two closest surface points.
//  - distance: signed separation along normal (m); negative when the shapes overlap.
struct ContactPoint {
  Vec3 position = Vec3::Zero();
  Vec3 normal = Vec3::UnitY();
  double distance = 0.0;
};

// Up to four points for a pair; box-box and flat capsule contacts reduce to at most four.
struct ContactManifold {
  static constexpr int kMaxPoints = 4;
  std::array<ContactPoint, kMaxPoints> points;
  int count = 0;

  void Add(const ContactPoint& p) {
    if (count < kMaxPoints) points[count++] = p;
  }
};

}  // namespace ligature
