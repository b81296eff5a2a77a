#pragma once
// Bullet's side of query/raycast_mesh: a btCollisionWorld (DBVT broadphase) holding the
// terrain as a btBvhTriangleMeshShape and the solids as btSphereShape and btBoxShape
// objects, asked rayTest with a ClosestRayResultCallback per ray.

#include <memory>

#include "tests/bench/query/ray_scene.h"

namespace ligature::bench {

std::unique_ptr<RayCaster> MakeBulletRays(const RayScene& scene);

}  // namespace ligature::bench
