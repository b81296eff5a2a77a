#pragma once
// The Bullet peer of the soft-cube benchmark: a btSoftBody built node by node from the
// same tetrahedra as ours (a link per tet edge, a tetra per tet, the mesh's boundary
// triangles as faces, Bullet's position-based solver with 10 position iterations and
// volume conservation against the rest volume, a 1 mm collision margin), resting on a static ground box in a
// btSoftRigidDynamicsWorld.

#include <memory>
#include <vector>

#include "server/model/soft/tet_mesh.h"
#include "tests/bench/registry.h"

namespace ligature::bench {

struct BulletSoftCubeSpec {
  TetMesh mesh;             // world frame, at rest
  double mass = 1.0;        // kg, spread over the nodes by Bullet
  double dt = 0.005;        // s, one substep per Step()
  double ground_y = 0.0;    // m, the top of the ground
};

class BulletSoftCube final : public SteppedScene {
 public:
  explicit BulletSoftCube(const BulletSoftCubeSpec& spec);
  ~BulletSoftCube() override;
  void Step() override;
  int Contacts() const override;
  std::string Notes() const override;
  // The lowest node's height, m.
  double Lowest() const;
  // Nodes on the ground: within 1 mm of it beyond the collision margin.
  int OnGround() const;

 private:
  struct Impl;  // keeps Bullet's headers out of this one
  std::unique_ptr<Impl> impl_;
};

}  // namespace ligature::bench
