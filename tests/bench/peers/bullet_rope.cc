#include "tests/bench/peers/bullet_rope.h"

#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <memory>

namespace ligature::bench {

// The world and the rope; members are destroyed in reverse order, and the destructor takes
// the rope out of the world first.
struct BulletRope::Impl {
  btScalar dt = 0;
  double length = 0.0;
  btSoftBodyRigidBodyCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  std::unique_ptr<btSoftRigidDynamicsWorld> world;
  std::unique_ptr<btSoftBody> rope;

  ~Impl() {
    if (rope != nullptr) world->removeSoftBody(rope.get());
  }
};

BulletRope::BulletRope(const BulletRopeSpec& spec) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.dt = static_cast<btScalar>(spec.dt);
  s.length = spec.length;
  const btVector3 gravity(static_cast<btScalar>(spec.gravity.x()),
                          static_cast<btScalar>(spec.gravity.y()),
                          static_cast<btScalar>(spec.gravity.z()));

  // The world; its own btSoftBodyWorldInfo already points at its broadphase and dispatcher
  // (and has its sparse SDF initialized) and carries the gravity the soft bodies feel.
  s.world = std::make_unique<btSoftRigidDynamicsWorld>(&s.dispatcher, &s.broadphase, &s.solver,
                                                       &s.config);
  s.world->setGravity(gravity);
  btSoftBodyWorldInfo& info = s.world->getWorldInfo();
  info.m_gravity = gravity;

  // A straight rope of `nodes` nodes (CreateRope adds the two ends to `res`), its rest
  // lengths set by that straight layout, the mass spread evenly over the nodes.
  const btVector3 from(0, 0, 0);
  const btVector3 to(static_cast<btScalar>(spec.length), 0, 0);
  s.rope.reset(btSoftBodyHelpers::CreateRope(info, from, to, spec.nodes - 2, 0));
  s.rope->setTotalMass(static_cast<btScalar>(spec.mass));
  // Ten position iterations, the setting of the reference measurement of this rope (with
  // Bullet's default of one, the rope never settles: it swings through the line between
  // its pins and stretches by a third).
  s.rope->m_cfg.piterations = 10;

  // The last node moved in to the span (position and previous position), both ends pinned.
  const int last = spec.nodes - 1;
  const btVector3 end(static_cast<btScalar>(spec.span), 0, 0);
  s.rope->m_nodes[last].m_x = end;
  s.rope->m_nodes[last].m_q = end;
  s.rope->setMass(0, 0);
  s.rope->setMass(last, 0);
  s.rope->updateBounds();
  s.world->addSoftBody(s.rope.get());
}

BulletRope::~BulletRope() = default;

void BulletRope::Step() {
  // maxSubSteps = 0: Bullet steps by timeStep as given.
  impl_->world->stepSimulation(impl_->dt, 0, impl_->dt);
}

double BulletRope::Stretch() const {
  double sum = 0.0;
  for (int i = 0; i < impl_->rope->m_links.size(); ++i) {
    const btSoftBody::Link& link = impl_->rope->m_links[i];
    sum += (link.m_n[1]->m_x - link.m_n[0]->m_x).length();
  }
  return sum / impl_->length - 1.0;
}

double BulletRope::MidSag() const {
  const btSoftBody::tNodeArray& nodes = impl_->rope->m_nodes;
  const int n = nodes.size();
  const double ends = 0.5 * (nodes[0].m_x.y() + nodes[n - 1].m_x.y());
  const double mid = n % 2 == 0 ? 0.5 * (nodes[n / 2 - 1].m_x.y() + nodes[n / 2].m_x.y())
                                : nodes[n / 2].m_x.y();
  return ends - mid;
}

int BulletRope::position_iterations() const { return impl_->rope->m_cfg.piterations; }
int BulletRope::velocity_iterations() const { return impl_->rope->m_cfg.viterations; }
double BulletRope::link_stiffness() const { return impl_->rope->m_materials[0]->m_kLST; }
double BulletRope::damping() const { return impl_->rope->m_cfg.kDP; }
double BulletRope::node_mass() const { return impl_->rope->getMass(1); }

}  // namespace ligature::bench
