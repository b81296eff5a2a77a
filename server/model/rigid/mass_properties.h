#pragma once
// Mass and principal inertia of a shape from its material.

#include <vector>

#include "server/geometry/shape.h"
#include "server/model/rigid/body_desc.h"

namespace ligature {

struct MassProperties {
  double mass = 0.0;                      // kg
  Vec3 inertia = Vec3::Zero();            // kg m^2, principal moments in the local frame
};

double ShapeVolume(const Shape& shape);

// Mass, centre of mass and inertia tensor of a compound of solids of one material, in the
// body frame. The inertia is about the centre of mass. Overlapping children count twice.
// With material.mass > 0 the mass is set to it and the inertia scaled to match, or, when the
// material gives an inertia, the material's centre and tensor are returned as they are.
struct CompoundMass {
  double mass = 0.0;                 // kg
  Vec3 center = Vec3::Zero();        // m, body frame
  Mat3 inertia = Mat3::Zero();       // kg m^2, body axes, about the centre of mass
};
CompoundMass ComputeCompoundMass(const std::vector<ChildShape>& children,
                                 const Material& material);

// Solid (uniform density) mass properties. When material.mass > 0 it sets the mass and the
// inertia is scaled to match; otherwise mass = density * volume. Planes have none.
MassProperties ComputeMassProperties(const Shape& shape, const Material& material);

}  // namespace ligature
