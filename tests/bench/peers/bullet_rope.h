#pragma once
// The Bullet peer of the rope benchmarks: a soft-body rope (btSoftBodyHelpers::CreateRope,
// position-based links) in a btSoftRigidDynamicsWorld, pinned at both ends, with Bullet's
// default soft-body settings.

#include <memory>

#include "server/math/types.h"

namespace ligature::bench {

// The rope to build: laid straight along +X from the origin with its rest length, then the
// last node moved to (span, 0, 0) and both end nodes pinned.
struct BulletRopeSpec {
  double length = 2.0;  // m, rest length (sum of the links' rest lengths)
  double span = 1.8;    // m, distance between the two pinned ends
  int nodes = 100;      // >= 3
  double mass = 0.1;    // kg, spread evenly over all nodes before the ends are pinned
  double dt = 0.001;    // s, one substep per Step()
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);
};

class BulletRope {
 public:
  explicit BulletRope(const BulletRopeSpec& spec);
  ~BulletRope();
  BulletRope(const BulletRope&) = delete;
  BulletRope& operator=(const BulletRope&) = delete;

  // Advances the world by exactly one substep of dt.
  void Step();
  // Sum of the current link lengths over the rest length, minus one.
  double Stretch() const;
  // Drop of the mid-span point below the pinned ends (the average of the two middle nodes
  // for an even count, the middle node for an odd one), m.
  double MidSag() const;

  // Bullet's soft-body settings in use (its defaults).
  int position_iterations() const;  // m_cfg.piterations
  int velocity_iterations() const;  // m_cfg.viterations
  double link_stiffness() const;    // m_materials[0]->m_kLST
  double damping() const;           // m_cfg.kDP
  // Mass of one free node, kg.
  double node_mass() const;

 private:
  struct Impl;  // keeps Bullet's headers out of this one
  std::unique_ptr<Impl> impl_;
};

}  // namespace ligature::bench
