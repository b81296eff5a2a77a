#pragma once
// Collision layers and masks: a shape is on some of 32 layers and collides with the layers
// its mask names. Two shapes meet only when each one's mask names a layer of the other, so
// either side can refuse a pair. Scene queries see a shape when its layers meet the query's
// mask. A sensor shape takes part in no contact: it reports the shapes it meets as trigger
// events instead.

#include <cstdint>

namespace ligature {

struct CollisionFilter {
  uint32_t layers = 1;          // the layers the shape is on
  uint32_t mask = 0xFFFFFFFFu;  // the layers it collides with
  bool sensor = false;          // overlaps are reported, never pushed apart

  bool Meets(const CollisionFilter& other) const {
    return (layers & other.mask) != 0 && (other.layers & mask) != 0;
  }
  bool operator==(const CollisionFilter&) const = default;
};

}  // namespace ligature
