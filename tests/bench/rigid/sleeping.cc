// rigid/sleeping: 10,000 half-metre cubes resting in 2,500 stacks of four on a plane, and
// 100 spheres falling the whole time beside them, at 60 Hz. The step with sleeping on
// against the same world with it off (target: at most 0.15), and against Bullet with its
// deactivation on, in the same run. Every side runs Gauss-Seidel (sequential impulses) at
// 10 iterations, all of them run; the settling steps give Bullet (2 s to deactivate) and
// us (0.5 s) time to put the stacks to sleep before the timing starts.

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"

namespace ligature::bench {
namespace {

constexpr double kRateHz = 60.0;
constexpr int kIterations = 10;
constexpr int kGrid = 50;       // stacks per side of the square
constexpr int kStack = 4;       // cubes per stack
constexpr double kHalf = 0.25;  // m, the cubes' half edge
constexpr double kPitch = 1.0;  // m between stacks
constexpr int kSpheres = 100;

BodyDesc Rigid(std::string id, BodyKind kind, const Shape& shape, const Vec3& at) {
  BodyDesc body;
  body.id = std::move(id);
  body.kind = kind;
  RigidBodyDesc rigid;
  rigid.shape = shape;
  rigid.pose.position = at;
  body.body = rigid;
  return body;
}

// The stacks stand on a 50 x 50 grid from the origin, each cube resting on the one below;
// the spheres fall from 300 to 400 m over the ground beside them (they stay in flight for
// more than 7.8 s, longer than the settling and timed steps together).
SceneDesc Scene(bool sleep) {
  SceneDesc scene;
  scene.settings.rate_hz = kRateHz;
  scene.settings.solver.kind = SolverKind::kGaussSeidel;
  scene.settings.solver.max_iterations = kIterations;
  scene.settings.solver.tolerance = 0.0;
  scene.settings.sleep.enabled = sleep;
  scene.bodies.push_back(Rigid("ground", BodyKind::kStatic, Shape::Plane(), Vec3::Zero()));
  for (int i = 0; i < kGrid; ++i) {
    for (int j = 0; j < kGrid; ++j) {
      for (int k = 0; k < kStack; ++k) {
        scene.bodies.push_back(Rigid(absl::StrCat("box", i, "_", j, "_", k), BodyKind::kDynamic,
                                     Shape::Box(Vec3::Constant(kHalf)),
                                     Vec3(i * kPitch, kHalf * (2 * k + 1), j * kPitch)));
      }
    }
  }
  std::mt19937 random(7);
  std::uniform_real_distribution<double> across(0.0, kGrid * kPitch);
  std::uniform_real_distribution<double> height(300.0, 400.0);
  for (int s = 0; s < kSpheres; ++s) {
    const Vec3 at(-10.0 - across(random) / 5.0, height(random), across(random));
    scene.bodies.push_back(
        Rigid(absl::StrCat("sphere", s), BodyKind::kDynamic, Shape::Sphere(0.2), at));
  }
  return scene;
}

StepBench Make() {
  StepBench bench;
  bench.name = "rigid/sleeping";
  bench.setup = absl::StrCat(
      kGrid * kGrid * kStack, " cubes (0.5 m) resting in ", kGrid * kGrid, " stacks of ", kStack,
      " plus ", kSpheres, " spheres in free fall, dt=1/60, ", kIterations,
      " Gauss-Seidel iterations on every side, no early exit; the peers are the same world "
      "with sleeping off, and Bullet with deactivation on");
  bench.settle_steps = 150;
  bench.timed_steps = 300;
  bench.quick_timed_steps = 60;
  bench.chunk_steps = 30;
  bench.ours.push_back(
      {"gauss-seidel, sleeping on", [] { return MakeLigatureScene(Scene(true)); }});
  bench.peers.push_back(
      {"ligature gauss-seidel, sleeping off", [] { return MakeLigatureScene(Scene(false)); }});
  bench.peers.push_back({BulletPeerName() + ", deactivation on",
                         [] { return MakeBulletScene(Scene(false), {.allow_sleeping = true}); }});
  return bench;
}

const Registrar kSleeping(Make());

}  // namespace
}  // namespace ligature::bench
