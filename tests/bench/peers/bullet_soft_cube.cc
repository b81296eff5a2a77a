#include "tests/bench/peers/bullet_soft_cube.h"

#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ligature::bench {
namespace {

constexpr double kMargin = 0.001;  // m, the soft body's collision margin
constexpr int kPositionIterations = 10;

}  // namespace

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
  int boundary_faces = 0;

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
  // The boundary: each tet face that belongs to one tet only, turned to face away from
  // that tet's fourth vertex. Bullet's volume conservation works on faces (the body's
  // volume and the nodes' areas come from them).
  std::map<std::array<int, 3>, std::pair<int, std::array<int, 4>>> faces;
  for (const auto& t : spec.mesh.tets) {
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f{};
      for (int i = 0, k = 0; i < 4; ++i) {
        if (i != skip) f[k++] = t[i];
      }
      std::array<int, 3> key = f;
      std::sort(key.begin(), key.end());
      auto& [count, tet] = faces[key];
      ++count;
      tet = {f[0], f[1], f[2], t[skip]};
    }
  }
  int boundary = 0;
  for (const auto& [key, entry] : faces) {
    if (entry.first != 1) continue;
    auto [a, b, c, opposite] = entry.second;
    const Vec3& pa = spec.mesh.vertices[a];
    const Vec3 n = (spec.mesh.vertices[b] - pa).cross(spec.mesh.vertices[c] - pa);
    if (n.dot(spec.mesh.vertices[opposite] - pa) > 0.0) std::swap(b, c);
    s.body->appendFace(a, b, c);
    ++boundary;
  }
  s.boundary_faces = boundary;
  s.body->setTotalMass(static_cast<btScalar>(spec.mass), false);
  s.body->m_cfg.collisions = btSoftBody::fCollision::SDF_RS;
  // Bullet's default soft-body margin (0.25 m) would hold the cube a hand's breadth above
  // the ground; 1 mm keeps it where ours rests.
  s.body->getCollisionShape()->setMargin(static_cast<btScalar>(kMargin));
  // Volume conservation against the rest volume (setPose records it).
  s.body->m_cfg.kVC = 1;
  s.body->setPose(/*bvolume=*/true, /*bframe=*/false);
  // Ten position iterations: with Bullet's default of one the cube, held by a 1 mm
  // margin, squashes (some 109 nodes on the ground against the 49 of its bottom face).
  s.body->m_cfg.piterations = kPositionIterations;
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

int BulletSoftCube::OnGround() const {
  int count = 0;
  for (int i = 0; i < impl_->body->m_nodes.size(); ++i) {
    if (impl_->body->m_nodes[i].m_x.y() < kMargin + 1e-3) ++count;
  }
  return count;
}

std::string BulletSoftCube::Notes() const {
  return absl::StrCat("piterations=", impl_->body->m_cfg.piterations,
                      ", links=", impl_->body->m_links.size(),
                      ", tetras=", impl_->body->m_tetras.size(),
                      ", faces=", impl_->boundary_faces, ", margin=", kMargin, ", kVC=", impl_->body->m_cfg.kVC,
                      " (volume conservation on the boundary faces)", ", lowest_y=", Lowest(),
                      ", vertices_on_ground=", OnGround());
}

}  // namespace ligature::bench
