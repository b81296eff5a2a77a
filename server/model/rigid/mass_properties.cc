#include "server/model/rigid/mass_properties.h"

#include <numbers>

namespace ligature {
namespace {

constexpr double kPi = std::numbers::pi;

// Inertia per unit mass of each solid about its centre, principal axes.
Vec3 UnitInertia(const Shape& s) {
  switch (s.type) {
    case ShapeType::kSphere:
      return Vec3::Constant(0.4 * s.radius * s.radius);
    case ShapeType::kBox: {
      const Vec3 e = 2.0 * s.half_extents;
      return Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                  e.x() * e.x() + e.y() * e.y()) / 12.0;
    }
    case ShapeType::kCapsule: {
      // Cylinder plus two hemispheres (parallel-axis theorem for the caps), axis along Y.
      const double r = s.radius, h = 2.0 * s.half_length;
      const double v_cyl = kPi * r * r * h, v_caps = 4.0 / 3.0 * kPi * r * r * r;
      const double m_cyl = v_cyl / (v_cyl + v_caps), m_caps = 1.0 - m_cyl;
      const double axial = m_cyl * 0.5 * r * r + m_caps * 0.4 * r * r;
      const double transverse = m_cyl * (r * r / 4.0 + h * h / 12.0) +
                                m_caps * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0);
      return Vec3(transverse, axial, transverse);
    }
    case ShapeType::kPlane:
      return Vec3::Zero();
  }
  return Vec3::Zero();
}

}  // namespace

double ShapeVolume(const Shape& s) {
  switch (s.type) {
    case ShapeType::kSphere:
      return 4.0 / 3.0 * kPi * s.radius * s.radius * s.radius;
    case ShapeType::kBox:
      return 8.0 * s.half_extents.prod();
    case ShapeType::kCapsule:
      return kPi * s.radius * s.radius * (2.0 * s.half_length + 4.0 / 3.0 * s.radius);
    case ShapeType::kPlane:
      return 0.0;
  }
  return 0.0;
}

MassProperties ComputeMassProperties(const Shape& shape, const Material& material) {
  MassProperties out;
  out.mass = material.mass > 0.0 ? material.mass : material.density * ShapeVolume(shape);
  out.inertia = out.mass * UnitInertia(shape);
  return out;
}

CompoundMass ComputeCompoundMass(const std::vector<ChildShape>& children,
                                 const Material& material) {
  // Each child at the material's density; the mass override is applied to the sum.
  Material per_child = material;
  per_child.mass = 0.0;
  CompoundMass out;
  for (const ChildShape& c : children) {
    const double m = ComputeMassProperties(c.shape, per_child).mass;
    out.mass += m;
    out.center += m * c.local.position;
  }
  if (out.mass <= 0.0) return out;
  out.center /= out.mass;
  // Each child's principal inertia rotated to the body axes, moved to the centre of mass
  // by the parallel-axis theorem.
  for (const ChildShape& c : children) {
    const MassProperties mp = ComputeMassProperties(c.shape, per_child);
    const Mat3 r = c.local.orientation.toRotationMatrix();
    const Vec3 d = c.local.position - out.center;
    out.inertia += r * mp.inertia.asDiagonal() * r.transpose() +
                   mp.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  if (material.mass > 0.0) {
    out.inertia *= material.mass / out.mass;
    out.mass = material.mass;
  }
  return out;
}

}  // namespace ligature
