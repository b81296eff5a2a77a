#include "tests/bench/peers/bullet_rays.h"

#include <BulletCollision/NarrowPhaseCollision/btRaycastCallback.h>
#include <btBulletCollisionCommon.h>

#include <memory>
#include <string>
#include <vector>

namespace ligature::bench {
namespace {

btVector3 ToBullet(const Vec3& v) {
  return btVector3(static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()),
                   static_cast<btScalar>(v.z()));
}

btTransform ToBullet(const Transform& t) {
  const Quat& q = t.orientation;
  return btTransform(btQuaternion(static_cast<btScalar>(q.x()), static_cast<btScalar>(q.y()),
                                  static_cast<btScalar>(q.z()), static_cast<btScalar>(q.w())),
                     ToBullet(t.position));
}

class BulletRays : public RayCaster {
 public:
  explicit BulletRays(const RayScene& scene)
      : dispatcher_(&config_), world_(&dispatcher_, &broadphase_, &config_) {
    // The terrain's triangles at Bullet's precision, read in place by its quantized BVH
    // (built here, once, as our mesh's tree is built once with the mesh).
    for (const Vec3& v : scene.vertices) {
      vertices_.insert(vertices_.end(), {static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()),
                                         static_cast<btScalar>(v.z())});
    }
    indices_.assign(scene.indices.begin(), scene.indices.end());
    mesh_ = std::make_unique<btTriangleIndexVertexArray>(
        static_cast<int>(indices_.size() / 3), indices_.data(), 3 * sizeof(int),
        static_cast<int>(scene.vertices.size()), vertices_.data(), 3 * sizeof(btScalar));
    shapes_.push_back(std::make_unique<btBvhTriangleMeshShape>(mesh_.get(), true, true));
    Add(shapes_.back().get(), btTransform::getIdentity(), 0);
    // The solids: a sphere's margin is its radius (exact); a box's is set to 0 so that its
    // corners are sharp, as ours and Embree's are.
    for (size_t k = 0; k < scene.solids.size(); ++k) {
      const RaySolid& s = scene.solids[k];
      if (s.is_box) {
        auto box = std::make_unique<btBoxShape>(ToBullet(s.half));
        box->setMargin(0.0f);
        shapes_.push_back(std::move(box));
      } else {
        shapes_.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(s.radius)));
      }
      Add(shapes_.back().get(), ToBullet(s.pose), static_cast<int>(k) + 1);
    }
  }

  ~BulletRays() override {
    for (auto& object : objects_) world_.removeCollisionObject(object.get());
  }

  // Per batch: every object's bounds into the broadphase (what a published frame asks of
  // Bullet), then rayTest per ray, backfaces filtered as ours and the mesh's fronts only.
  void Batch(const RaySet& rays, std::vector<RayAnswer>* answers) override {
    world_.updateAabbs();
    const btScalar max = static_cast<btScalar>(rays.max_distance);
    for (size_t i = 0; i < rays.origins.size(); ++i) {
      const btVector3 from = ToBullet(rays.origins[i]);
      const btVector3 to = from + ToBullet(rays.directions[i]) * max;
      btCollisionWorld::ClosestRayResultCallback callback(from, to);
      callback.m_flags |= btTriangleRaycastCallback::kF_FilterBackfaces;
      world_.rayTest(from, to, callback);
      RayAnswer& answer = (*answers)[i];
      answer = RayAnswer{};
      if (callback.hasHit()) {
        answer.body = callback.m_collisionObject->getUserIndex();
        answer.distance = static_cast<double>(callback.m_closestHitFraction) * rays.max_distance;
      }
    }
  }

  std::string Notes() const override {
    return "bullet: a btCollisionWorld (btDbvtBroadphase) of a btBvhTriangleMeshShape "
           "(quantized BVH, built once untimed) and btSphereShape/btBoxShape (margin 0) "
           "objects, single precision; per batch updateAabbs() then per ray rayTest with a "
           "ClosestRayResultCallback (kF_FilterBackfaces, default sub-simplex convex cast)";
  }

 private:
  void Add(btCollisionShape* shape, const btTransform& pose, int body) {
    auto object = std::make_unique<btCollisionObject>();
    object->setCollisionShape(shape);
    object->setWorldTransform(pose);
    object->setUserIndex(body);
    world_.addCollisionObject(object.get());
    objects_.push_back(std::move(object));
  }

  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  btCollisionWorld world_;
  std::vector<btScalar> vertices_;
  std::vector<int> indices_;
  std::unique_ptr<btTriangleIndexVertexArray> mesh_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btCollisionObject>> objects_;
};

}  // namespace

std::unique_ptr<RayCaster> MakeBulletRays(const RayScene& scene) {
  return std::make_unique<BulletRays>(scene);
}

}  // namespace ligature::bench
