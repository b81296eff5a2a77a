#include "server/model/strand/obstacles.h"

#include <algorithm>
#include <cmath>

namespace ligature {
namespace {

SurfaceDistance SphereDistance(const Vec3& centre, double radius, const Vec3& p) {
  const Vec3 d = p - centre;
  const double len = d.norm();
  return {len - radius, len > 1e-12 ? Vec3(d / len) : Vec3::UnitY()};
}

SurfaceDistance BoxDistance(const Obstacle& box, const Vec3& world) {
  const Vec3 p = box.pose.InverseApply(world);
  const Vec3 h = box.shape.half_extents;
  const Vec3 q = p.cwiseAbs() - h;
  if (q.maxCoeff() > 0.0) {
    // Outside: distance to the clamped point.
    const Vec3 c = p.cwiseMax(-h).cwiseMin(h);
    const Vec3 d = p - c;
    return {d.norm(), box.pose.Rotate(d.normalized())};
  }
  // Inside: the nearest face.
  int axis = 0;
  q.maxCoeff(&axis);
  Vec3 n = Vec3::Zero();
  n[axis] = p[axis] >= 0.0 ? 1.0 : -1.0;
  return {q[axis], box.pose.Rotate(n)};
}

}  // namespace

SurfaceDistance Distance(const Obstacle& o, const Vec3& p) {
  switch (o.shape.type) {
    case ShapeType::kSphere:
      return SphereDistance(o.pose.position, o.shape.radius, p);
    case ShapeType::kPlane: {
      const Vec3 n = o.pose.Rotate(Vec3::UnitY());
      return {n.dot(p - o.pose.position), n};
    }
    case ShapeType::kCapsule: {
      const Vec3 local = o.pose.InverseApply(p);
      const double y = std::clamp(local.y(), -o.shape.half_length, o.shape.half_length);
      return SphereDistance(o.pose.Apply(Vec3(0.0, y, 0.0)), o.shape.radius, p);
    }
    case ShapeType::kBox:
      return BoxDistance(o, p);
    case ShapeType::kHull: {
      const HullSurfacePoint s = NearestSurfacePoint(*o.shape.hull, o.pose.InverseApply(p));
      return {s.distance, o.pose.Rotate(s.normal)};
    }
    case ShapeType::kMesh: {
      const MeshSurfacePoint s = NearestSurfacePoint(*o.shape.mesh, o.pose.InverseApply(p));
      return {s.distance, o.pose.Rotate(s.normal)};
    }
  }
  return {};
}

std::vector<StrandContact> FindContacts(const StrandModel& model, const StrandKinematics& kin,
                                        const std::vector<Obstacle>& obstacles,
                                        double margin, double h) {
  std::vector<StrandContact> contacts;
  for (int i = 0; i < model.segments(); ++i) {
    const StrandSegment& seg = model.segment(i);
    for (const double fraction : {0.5, 1.0}) {
      const Vec3 local(0.0, fraction * seg.length, 0.0);
      const Vec3 p = kin.Position(i, local);
      const Vec3 v = kin.Velocity(i, local);
      for (size_t o = 0; o < obstacles.size(); ++o) {
        const SurfaceDistance d = Distance(obstacles[o], p);
        const Vec3 rel = v - obstacles[o].VelocityAt(p);
        const double gap = d.distance - seg.radius;
        const double approach = std::max(0.0, -rel.dot(d.normal)) * h;
        if (gap > margin + approach) continue;
        contacts.push_back({i, local, static_cast<int>(o), d.normal, -gap, rel});
      }
    }
  }
  return contacts;
}

}  // namespace ligature
