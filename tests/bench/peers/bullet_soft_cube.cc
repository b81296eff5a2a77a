#include "tests/bench/peers/bullet_soft_cube.h"

#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ligature::bench {

// The world, the ground and the soft body; the destructor takes the bodies out first.
struct BulletSoftCube::Impl {
  btScalar dt = 0;
  btSoftBodyRigidBodyCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  std::unique_ptr<btSoftRigidDynamicsWorld> world;
  std::unique_ptr<btBoxShape> ground_shape;
  std::unique_ptr<btDefaultMotionState> ground_motion;
  std::unique_ptr<btRigidBody> ground;
  std::unique_ptr<btSoftBody> body;

  ~Impl() {
    if (body != nullptr) world->removeSoftBody(body.get());
    if (ground != nullptr) world->removeRigidBody(ground.get());
  }
};

BulletSoftCube::BulletSoftCube(const BulletSoftCubeSpec& spec) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.dt = static_cast<btScalar>(spec.dt);
  s.world = std::make_unique<btSoftRigidDynamicsWorld>(&s.dispatcher, &s.broadphase, &s.solver,
                                                       &s.config);
  const btVector3 gravity(0, -9.81f, 0);
  s.world->setGravity(gravity);
  btSoftBodyWorldInfo& info = s.world->getWorldInfo();
  info.m_gravity = gravity;

  // A static ground box whose top face is at ground_y.
  s.ground_shape = std::make_unique<btBoxShape>(btVector3(10, 1, 10));
  btTransform at;
  at.setIdentity();
  at.setOrigin(btVector3(0, static_cast<btScalar>(spec.ground_y) - 1, 0));
  s.ground_motion = std::make_unique<btDefaultMotionState>(at);
  s.ground = std::make_unique<btRigidBody>(
      btRigidBody::btRigidBodyConstructionInfo(0, s.ground_motion.get(), s.ground_shape.get()));
  s.world->addRigidBody(s.ground.get());

  // Nodes, then a link per distinct tet edge and a tetra per tet.
  std::vector<btVector3> x;
  std::vector<btScalar> m(spec.mesh.vertices.size(), 1);
  for (const Vec3& v : spec.mesh.vertices) {
    x.emplace_back(static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()),
                   static_cast<btScalar>(v.z()));
  }
  s.body = std::make_unique<btSoftBody>(&info, static_cast<int>(x.size()), x.data(), m.data());
  std::set<std::pair<int, int>> edges;
  for (const auto& t : spec.mesh.tets) {
    s.body->appendTetra(t[0], t[1], t[2], t[3]);
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j) edges.insert(std::minmax(t[i], t[j]));
    }
  }
  for (const auto& [a, b] : edges) s.body->appendLink(a, b);
  s.body->setTotalMass(static_cast<btScalar>(spec.mass), false);
  s.body->m_cfg.collisions = btSoftBody::fCollision::SDF_RS;
  s.body->m_cfg.kVC = 1;  // volume conservation
  s.body->updateBounds();
  s.world->addSoftBody(s.body.get());
}

BulletSoftCube::~BulletSoftCube() = default;

void BulletSoftCube::Step() { impl_->world->stepSimulation(impl_->dt, 0, impl_->dt); }

int BulletSoftCube::Contacts() const { return impl_->body->m_rcontacts.size(); }

double BulletSoftCube::Lowest() const {
  double lowest = 1e30;
  for (int i = 0; i < impl_->body->m_nodes.size(); ++i) {
    lowest = std::min(lowest, static_cast<double>(impl_->body->m_nodes[i].m_x.y()));
  }
  return lowest;
}

std::string BulletSoftCube::Notes() const {
  return absl::StrCat("piterations=", impl_->body->m_cfg.piterations,
                      ", links=", impl_->body->m_links.size(),
                      ", tetras=", impl_->body->m_tetras.size(), ", lowest_y=", Lowest());
}

}  // namespace ligature::bench
