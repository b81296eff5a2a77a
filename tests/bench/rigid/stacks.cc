// rigid/stacks: box stacks of 5, 10 and 20 one-metre cubes and a 10-level pyramid on a
// plane at 60 Hz, each run for 10 s from rest: how far the top box has moved (top_drift_m,
// peer_top_drift_m; a stack that stands keeps it near 0) and what a step costs. Two
// benchmarks per scene: every side at its own defaults ("defaults"), and every side at 20
// iterations with no early exit ("equal"), against Bullet and MuJoCo in the same run.

#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/peers/mujoco_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"

namespace ligature::bench {
namespace {

constexpr double kRateHz = 60.0;
constexpr int kSteps = 600;  // 10 s at 60 Hz
constexpr double kEdge = 1.0;  // m
constexpr int kEqualIterations = 20;
constexpr int kSubsteps = 4;
// Bullet's sequential impulse solver runs 10 iterations unless told otherwise
// (btContactSolverInfo::m_numIterations).
constexpr int kBulletDefaultIterations = 10;

BodyDesc Cube(std::string id, const Vec3& center) {
  BodyDesc body;
  body.id = std::move(id);
  RigidBodyDesc rigid;
  rigid.shape = Shape::Box(Vec3::Constant(kEdge / 2.0));
  rigid.pose.position = center;
  body.body = rigid;
  return body;
}

// A static ground plane at y = 0, then the boxes; default materials and settings but the rate.
SceneDesc Ground() {
  SceneDesc scene;
  scene.settings.rate_hz = kRateHz;
  BodyDesc ground;
  ground.id = "ground";
  ground.kind = BodyKind::kStatic;
  RigidBodyDesc plane;
  plane.shape = Shape::Plane();
  ground.body = plane;
  scene.bodies.push_back(ground);
  return scene;
}

// `boxes` cubes one on another, each face resting on the one below; the top one is last.
SceneDesc Stack(int boxes) {
  SceneDesc scene = Ground();
  for (int i = 0; i < boxes; ++i) {
    scene.bodies.push_back(Cube(absl::StrCat("box", i), Vec3(0.0, kEdge * (i + 0.5), 0.0)));
  }
  return scene;
}

// A pyramid of `levels` rows: the bottom row has `levels` cubes 5 cm apart, each row one
// fewer, centred on the gaps below; the top one is last.
SceneDesc Pyramid(int levels) {
  constexpr double kPitch = 1.05 * kEdge;
  SceneDesc scene = Ground();
  for (int row = 0; row < levels; ++row) {
    const int count = levels - row;
    for (int k = 0; k < count; ++k) {
      const double x = (k - 0.5 * (count - 1)) * kPitch;
      scene.bodies.push_back(
          Cube(absl::StrCat("box", row, "_", k), Vec3(x, kEdge * (row + 0.5), 0.0)));
    }
  }
  return scene;
}

// Wraps one side's scene and follows its top box (the scene's last body) from where it
// starts: the figure top_drift_m is how far it is from there after the last step.
class TopDrift : public SteppedScene {
 public:
  TopDrift(std::unique_ptr<SteppedScene> inner, size_t top)
      : inner_(std::move(inner)), top_(top), start_(inner_->Position(top_)) {}

  void Step() override { inner_->Step(); }
  int Contacts() const override { return inner_->Contacts(); }
  void ResetSummary() override { inner_->ResetSummary(); }
  std::string Notes() const override { return inner_->Notes(); }
  std::vector<std::pair<std::string, double>> Figures() const override {
    const std::optional<std::array<double, 3>> now = inner_->Position(top_);
    if (!start_ || !now) return {{"top_drift_m", NAN}};
    const double dx = (*now)[0] - (*start_)[0], dy = (*now)[1] - (*start_)[1],
                 dz = (*now)[2] - (*start_)[2];
    return {{"top_drift_m", std::sqrt(dx * dx + dy * dy + dz * dz)}};
  }

 private:
  std::unique_ptr<SteppedScene> inner_;
  size_t top_;
  std::optional<std::array<double, 3>> start_;
};

using SceneMaker = std::function<SceneDesc()>;
using Builder =
    std::function<absl::StatusOr<std::unique_ptr<SteppedScene>>(const SceneDesc& scene)>;

// A side: the scene from `make`, changed by `adjust`, built by `build`, followed by TopDrift.
SceneFactory Side(SceneMaker make, std::function<void(SceneDesc&)> adjust, Builder build) {
  return [make = std::move(make), adjust = std::move(adjust),
          build = std::move(build)]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    SceneDesc scene = make();
    if (adjust) adjust(scene);
    absl::StatusOr<std::unique_ptr<SteppedScene>> inner = build(scene);
    if (!inner.ok()) return inner.status();
    return std::unique_ptr<SteppedScene>(
        std::make_unique<TopDrift>(*std::move(inner), scene.bodies.size() - 1));
  };
}

StepBench Base(const std::string& scene, const std::string& variant, const std::string& setup) {
  StepBench bench;
  bench.name = absl::StrCat("rigid/stacks/", scene, "/", variant);
  bench.setup = setup;
  bench.settle_steps = 0;
  bench.timed_steps = kSteps;
  bench.quick_timed_steps = kSteps;
  bench.chunk_steps = 60;
  return bench;
}

// Every side at its own defaults: ours as a new world comes (the Gauss-Seidel solver, 20
// iterations, its tolerance), Bullet's 10 iterations, MuJoCo's own solver and iterations.
StepBench Defaults(const std::string& scene, const std::string& setup, SceneMaker make) {
  StepBench bench = Base(scene, "defaults", setup + ", every side at its own defaults");
  bench.ours.push_back({"defaults", Side(make, nullptr, MakeLigatureScene)});
  bench.peers.push_back({BulletPeerName(), Side(make,
                                                [](SceneDesc& s) {
                                                  s.settings.solver.max_iterations =
                                                      kBulletDefaultIterations;
                                                },
                                                [](const SceneDesc& s) {
                                                  return MakeBulletScene(s);
                                                })});
  if (MujocoPeerAvailable()) {
    const MujocoSceneOptions defaults = MujocoDefaultOptions();
    bench.peers.push_back({MujocoPeerName(defaults.solver),
                           Side(make, nullptr, [defaults](const SceneDesc& s) {
                             return MakeMujocoScene(s, defaults);
                           })});
  }
  return bench;
}

// Every side at 20 iterations, all of them run: both of our solvers at tolerance 0 (and
// Gauss-Seidel in 4 substeps of 5 sweeps), Bullet, and MuJoCo's projected Gauss-Seidel at
// tolerance 0.
StepBench Equal(const std::string& scene, const std::string& setup, SceneMaker make) {
  StepBench bench = Base(scene, "equal",
                         absl::StrCat(setup, ", ", kEqualIterations, " iterations on every side"));
  for (const SolverKind kind : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    bench.ours.push_back({SolverName(kind), Side(make,
                                                 [kind](SceneDesc& s) {
                                                   s.settings.solver.kind = kind;
                                                   s.settings.solver.max_iterations =
                                                       kEqualIterations;
                                                   s.settings.solver.tolerance = 0.0;
                                                 },
                                                 MakeLigatureScene)});
  }
  // Gauss-Seidel in substeps: the same 20 sweeps a tick, spread over them.
  bench.ours.push_back({absl::StrCat("gauss-seidel-", kSubsteps, "-substeps"),
                        Side(
                            make,
                            [](SceneDesc& s) {
                              s.settings.solver.substeps = kSubsteps;
                              s.settings.solver.max_iterations = kEqualIterations;
                              s.settings.solver.tolerance = 0.0;
                            },
                            MakeLigatureScene)});
  const auto equal = [](SceneDesc& s) { s.settings.solver.max_iterations = kEqualIterations; };
  bench.peers.push_back({BulletPeerName(), Side(make, equal, [](const SceneDesc& s) {
                           return MakeBulletScene(s);
                         })});
  if (MujocoPeerAvailable()) {
    bench.peers.push_back({MujocoPeerName(MujocoSolver::kPgs),
                           Side(make, equal, [](const SceneDesc& s) {
                             return MakeMujocoScene(s, {});
                           })});
  }
  return bench;
}

// Both benchmarks of one scene.
struct StackBenches {
  Registrar defaults;
  Registrar equal;
  StackBenches(const std::string& scene, const std::string& setup, SceneMaker make)
      : defaults(Defaults(scene, setup, make)), equal(Equal(scene, setup, make)) {}
};

const StackBenches kBox5("box5", "5 one-metre cubes stacked on a plane, 10 s at 60 Hz",
                         [] { return Stack(5); });
const StackBenches kBox10("box10", "10 one-metre cubes stacked on a plane, 10 s at 60 Hz",
                          [] { return Stack(10); });
const StackBenches kBox20("box20", "20 one-metre cubes stacked on a plane, 10 s at 60 Hz",
                          [] { return Stack(20); });
const StackBenches kPyramid10("pyramid10",
                              "a 10-level pyramid of 55 one-metre cubes 5 cm apart on a plane, "
                              "10 s at 60 Hz",
                              [] { return Pyramid(10); });

}  // namespace
}  // namespace ligature::bench
