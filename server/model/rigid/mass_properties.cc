#include "server/model/rigid/mass_properties.h"

#include <numbers>

#include <Eigen/Eigenvalues>

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
    // Principal moments of the hull's tensor about its centroid.
    case ShapeType::kHull: {
      const Eigen::SelfAdjointEigenSolver<Mat3> eigen(s.hull->unit_inertia, Eigen::EigenvaluesOnly);
      return eigen.eigenvalues() / s.hull->volume;
    }
    // A surface has no volume (meshes are for static and kinematic bodies).
    case ShapeType::kMesh:
      return Vec3::Zero();
  }
  return Vec3::Zero();
}

// A solid's centre and inertia tensor about it, in its shape's frame: a hull's centroid is
// wherever its points put it, and its tensor is full; the other solids are centred on their
// origin with principal axes along the local ones.
struct SolidFrame {
  double mass = 0.0;
  Vec3 center = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};
SolidFrame ComputeSolidFrame(const Shape& shape, const Material& material) {
  const MassProperties mp = ComputeMassProperties(shape, material);
  if (shape.type != ShapeType::kHull) return {mp.mass, Vec3::Zero(), mp.inertia.asDiagonal()};
  return {mp.mass, shape.hull->centroid, mp.mass / shape.hull->volume * shape.hull->unit_inertia};
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
    case ShapeType::kHull:
      return s.hull->volume;
    case ShapeType::kMesh:
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
  // A given centre and tensor replace the shape's.
  if (material.inertia && material.mass > 0.0) {
    return {material.mass, material.inertia->center, material.inertia->tensor};
  }
  // Each child at the material's density; the mass override is applied to the sum.
  Material per_child = material;
  per_child.mass = 0.0;
  CompoundMass out;
  std::vector<SolidFrame> solids;
  solids.reserve(children.size());
  for (const ChildShape& c : children) {
    solids.push_back(ComputeSolidFrame(c.shape, per_child));
    out.mass += solids.back().mass;
    out.center += solids.back().mass * c.local.Apply(solids.back().center);
  }
  if (out.mass <= 0.0) return out;
  out.center /= out.mass;
  // Each child's inertia rotated to the body axes, moved to the centre of mass by the
  // parallel-axis theorem.
  for (size_t i = 0; i < children.size(); ++i) {
    const ChildShape& c = children[i];
    const SolidFrame& solid = solids[i];
    const Mat3 r = c.local.orientation.toRotationMatrix();
    const Vec3 d = c.local.Apply(solid.center) - out.center;
    out.inertia += r * solid.inertia * r.transpose() +
                   solid.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  if (material.mass > 0.0) {
    out.inertia *= material.mass / out.mass;
    out.mass = material.mass;
  }
  return out;
}

}  // namespace ligature
