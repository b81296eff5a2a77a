// rigid/hull_pile: 300 random convex hulls of 8 to 32 vertices dropped in a 10 x 10 grid of
// three layers onto a plane at 60 Hz, timed once settled (5 s of settling), against Bullet
// in the same run, at 20 iterations with no early exit on every side. Bullet collides
// btConvexHullShapes of the same vertices (1 mm margin, polyhedral contact clipping) and
// gets the same masses and inertias; the contact counts of both sides are in the lines.
// MuJoCo (projected Gauss-Seidel, 20 iterations, tolerance 0) collides mesh geoms of the
// same vertices with its multi-point convex collision.
// rigid/hulls_on_mesh: the same pile on a static terrain mesh of 20,000 triangles (10 m
// square, gentle waves) in place of the plane; Bullet collides a btBvhTriangleMeshShape of
// the same triangles with its internal-edge correction. MuJoCo collides a mesh as its convex
// hull, so it has no line on the terrain.

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/model/rigid/convex_hull_builder.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/peers/mujoco_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"
#include "tests/support/grid_mesh.h"

namespace ligature::bench {
namespace {

constexpr int kHulls = 300;
constexpr int kIterations = 20;

// The grounds: a plane, and a terrain of 100 x 100 cells of 0.1 m, two triangles each,
// heights within 5 cm, built once, the first time a side asks for it (not at start-up).
Shape Plane() { return Shape::Plane(); }
Shape Terrain() {
  static const Shape terrain = Shape::Mesh(testing::GridMesh(
      100, 0.1, [](double x, double z) { return 0.05 * std::sin(1.3 * x) * std::cos(0.9 * z); }));
  return terrain;
}

// The pile on `ground` (a static shape at the origin): hulls of 8 to 32 points on
// ellipsoids with semi-axes 0.1 to 0.2 m, 0.5 m apart in a grid of 10 x 10 per layer,
// layers 0.5 m apart from 0.3 m up; the same hulls (one fixed seed) on every side.
SceneDesc HullPile(const Shape& ground_shape) {
  SceneDesc scene;
  scene.settings.rate_hz = 60.0;
  scene.settings.solver.max_iterations = kIterations;
  scene.settings.solver.tolerance = 0.0;
  BodyDesc ground;
  ground.id = "ground";
  ground.kind = BodyKind::kStatic;
  RigidBodyDesc rigid_ground;
  rigid_ground.shape = ground_shape;
  ground.body = rigid_ground;
  scene.bodies.push_back(ground);

  std::mt19937 rng(2024);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> count(8, 32);
  std::uniform_real_distribution<double> axis(0.1, 0.2);
  for (int i = 0; i < kHulls; ++i) {
    const Vec3 axes(axis(rng), axis(rng), axis(rng));
    std::vector<Vec3> points;
    for (int k = count(rng); k > 0; --k) {
      points.push_back(Vec3(normal(rng), normal(rng), normal(rng)).normalized().cwiseProduct(axes));
    }
    auto hull = BuildConvexHull(points, {});
    if (!hull.ok()) continue;  // a degenerate draw: one hull fewer on both sides
    BodyDesc body;
    body.id = absl::StrCat("hull", i);
    RigidBodyDesc rigid;
    rigid.shape = Shape::Hull(*hull);
    const int layer = i / 100, row = (i % 100) / 10, column = i % 10;
    rigid.pose.position = Vec3(0.5 * (column - 4.5), 0.3 + 0.5 * layer, 0.5 * (row - 4.5));
    rigid.pose.orientation = Quat(normal(rng), normal(rng), normal(rng), normal(rng)).normalized();
    body.body = rigid;
    scene.bodies.push_back(body);
  }
  return scene;
}

// The pile on `ground()`, named `name`, described as lying on `ground_text`.
StepBench HullPileBench(const std::string& name, Shape (*ground)(),
                        const std::string& ground_text) {
  StepBench bench;
  bench.name = name;
  bench.setup = absl::StrCat(kHulls, " hulls of 8-32 vertices on ", ground_text, ", 60 Hz, ",
                             kIterations, " iterations on every side, no early exit");
  bench.settle_steps = 300;
  bench.timed_steps = 600;
  bench.quick_timed_steps = 60;
  bench.chunk_steps = 60;
  for (const SolverKind kind : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    bench.ours.push_back({SolverName(kind), [kind, ground]() {
                            SceneDesc scene = HullPile(ground());
                            scene.settings.solver.kind = kind;
                            return MakeLigatureScene(scene);
                          }});
  }
  bench.peers.push_back(
      {BulletPeerName(), [ground] { return MakeBulletScene(HullPile(ground())); }});
  if (ground == Plane && MujocoPeerAvailable()) {
    bench.peers.push_back({MujocoPeerName(MujocoSolver::kPgs), [] {
                             return MakeMujocoScene(HullPile(Plane()), {});
                           }});
  }
  return bench;
}

const Registrar kHullPile(HullPileBench("rigid/hull_pile", Plane, "a plane"));
const Registrar kHullsOnMesh(HullPileBench("rigid/hulls_on_mesh", Terrain,
                                           "a 20,000-triangle terrain mesh"));

}  // namespace
}  // namespace ligature::bench
