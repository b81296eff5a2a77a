#pragma once
// Collision layers and masks: a shape is on some of 32 layers and collides with the layers
// its mask names. Two shapes meet only when each one's mask names a layer of the other, so
// either side can refuse a pair. Scene queries see a shape when its layers meet the query's
// mask.

#include <cstdint>

namespace ligature {

struct CollisionFilter {
  uint32_t layers = 1;          // the layers the shape is on
  uint32_t mask = 0xFFFFFFFFu;  // the layers it collides with

  bool Meets(const CollisionFilter& other) const {
    return (layers & other.mask) != 0 && (other.layers & mask) != 0;
  }
  bool operator==(const CollisionFilter&) const = default;
};

}  // namespace ligature
