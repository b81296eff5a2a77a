#include "tests/bench/peers/bullet_spheres.h"

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace ligature::bench {
namespace {

class BulletSpheres : public SteppedScene {
 public:
  BulletSpheres(const SpherePile& pile, const BulletSpheresOptions& options);
  ~BulletSpheres() override;

  // Exactly one substep of pile.dt: maxSubSteps = 0 makes Bullet step by timeStep as given.
  void Step() override { world_->stepSimulation(dt_, 0, dt_); }
  int Contacts() const override;
  std::string Notes() const override;

 private:
  btRigidBody* AddBody(btCollisionShape* shape, double mass, const btVector3& position);

  btScalar dt_;
  double friction_ = 0.0;
  bool allow_sleeping_ = false;
  // Destroyed in reverse order: bodies leave the world before the world goes.
  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_{&config_};
  btDbvtBroadphase broadphase_;
  btSequentialImpulseConstraintSolver solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
};

BulletSpheres::BulletSpheres(const SpherePile& pile, const BulletSpheresOptions& options)
    : dt_(static_cast<btScalar>(pile.dt)), allow_sleeping_(options.allow_sleeping) {
  world_ = std::make_unique<btDiscreteDynamicsWorld>(&dispatcher_, &broadphase_, &solver_,
                                                     &config_);
  world_->setGravity(btVector3(0, static_cast<btScalar>(pile.gravity_y), 0));
  world_->getSolverInfo().m_numIterations = pile.iterations;

  // Bullet combines two bodies' coefficients by product; giving every body the square
  // root makes each contact's friction exactly pile.friction, as in our engine.
  friction_ = std::sqrt(pile.friction);

  // Floor: the plane y = 0, normal +Y.
  shapes_.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0));
  AddBody(shapes_.back().get(), 0.0, btVector3(0, 0, 0));

  // Walls: static boxes.
  for (const WallBox& wall : PileWalls(pile)) {
    shapes_.push_back(std::make_unique<btBoxShape>(
        btVector3(static_cast<btScalar>(wall.half_extents[0]),
                  static_cast<btScalar>(wall.half_extents[1]),
                  static_cast<btScalar>(wall.half_extents[2]))));
    AddBody(shapes_.back().get(), 0.0,
            btVector3(static_cast<btScalar>(wall.center[0]), static_cast<btScalar>(wall.center[1]),
                      static_cast<btScalar>(wall.center[2])));
  }

  // Spheres: one shared shape, as a Bullet user would write it.
  shapes_.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(pile.radius)));
  btCollisionShape* sphere = shapes_.back().get();
  for (const std::array<double, 3>& c : pile.centers) {
    btRigidBody* body =
        AddBody(sphere, pile.mass,
                btVector3(static_cast<btScalar>(c[0]), static_cast<btScalar>(c[1]),
                          static_cast<btScalar>(c[2])));
    if (!allow_sleeping_) body->setActivationState(DISABLE_DEACTIVATION);
  }
  for (const auto& body : bodies_) body->setRestitution(static_cast<btScalar>(pile.restitution));
}

BulletSpheres::~BulletSpheres() {
  for (const auto& body : bodies_) world_->removeRigidBody(body.get());
}

btRigidBody* BulletSpheres::AddBody(btCollisionShape* shape, double mass,
                                    const btVector3& position) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0.0) shape->calculateLocalInertia(static_cast<btScalar>(mass), inertia);
  btRigidBody::btRigidBodyConstructionInfo info(static_cast<btScalar>(mass), nullptr, shape,
                                                inertia);
  info.m_startWorldTransform.setIdentity();
  info.m_startWorldTransform.setOrigin(position);
  info.m_friction = static_cast<btScalar>(friction_);
  bodies_.push_back(std::make_unique<btRigidBody>(info));
  world_->addRigidBody(bodies_.back().get());
  return bodies_.back().get();
}

int BulletSpheres::Contacts() const {
  // Sum of the persistent manifolds' points after the last step.
  btDispatcher* dispatcher = world_->getDispatcher();
  int contacts = 0;
  for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
    contacts += dispatcher->getManifoldByIndexInternal(i)->getNumContacts();
  }
  return contacts;
}

std::string BulletSpheres::Notes() const {
  return std::string("sleeping ") + (allow_sleeping_ ? "on" : "off");
}

}  // namespace

std::string BulletPeerName() {
  const int version = btGetVersion();  // e.g. 324
  return "bullet-" + std::to_string(version / 100) + "." + std::to_string(version % 100);
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeBulletSpheres(
    const SpherePile& pile, const BulletSpheresOptions& options) {
  if (pile.dt <= 0.0 || pile.iterations <= 0 || pile.radius <= 0.0 || pile.mass <= 0.0) {
    return absl::InvalidArgumentError("bullet spheres: dt, iterations, radius, mass must be > 0");
  }
  return std::make_unique<BulletSpheres>(pile, options);
}

}  // namespace ligature::bench
