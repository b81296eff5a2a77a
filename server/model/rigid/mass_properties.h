#pragma once
// Mass and principal inertia of a shape from its material.

#include "server/collision/shape.h"
#include "server/model/rigid/body_desc.h"

namespace ligature {

struct MassProperties {
  double mass = 0.0;                      // kg
  Vec3 inertia = Vec3::Zero();            // kg m^2, principal moments in the local frame
};

double ShapeVolume(const Shape& shape);

// Solid (uniform density) mass properties. When material.mass > 0 it sets the mass and the
// inertia is scaled to match; otherwise mass = density * volume. Planes have none.
MassProperties ComputeMassProperties(const Shape& shape, const Material& material);

}  // namespace ligature
