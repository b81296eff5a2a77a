// Soft-body benchmarks.
//  - gissler/cubes_3950 and gissler/cubes_14950: the built-in generated scenes of Gissler's
//    hanging cubes (mass-point cubes under explicit Verlet, nails and points-to-point links),
//    whole World::Step per tick; `paper` is the paper's cost per step (12 ms and 46.15 ms,
//    Pentium 4 3.4 GHz).
//  - gissler/constraint_points: the constraints' own cost, as constrained points handled per
//    millisecond (the paper: about 1000). The 3950-tet scene with its constraints and the
//    same cubes without any are stepped in interleaved chunks; the difference of their
//    median step times is the constraints' cost.
//  - soft/cube_tets: a 1080-tet soft cube resting on the ground (dropped and settled
//    first), ours (corotational FEM and the mass-point model, both under implicit Euler)
//    against Bullet's soft body built from the same tets, same dt.
//  - soft/cut_ligament: the built-in ligament scene with its scalpel pressed in and drawn
//    across; the median cost of the ticks in which a cut happens against those without.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/scene/generated_scenes.h"
#include "server/scene/scene_proto.h"
#include "server/world/world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/peers/bullet_soft_cube.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

using Clock = std::chrono::steady_clock;

// A world stepped as a benchmark scene.
class WorldScene final : public SteppedScene {
 public:
  explicit WorldScene(std::unique_ptr<World> world) : world_(std::move(world)) {}
  void Step() override { world_->Step(); }
  int Contacts() const override { return world_->last_stats().contacts; }
  std::string Notes() const override {
    const SoftWorld& soft = world_->soft_bodies();
    int tets = 0, vertices = 0;
    for (const SoftWorld::Body& b : soft.bodies()) {
      tets += static_cast<int>(b.desc.mesh.tets.size());
      vertices += static_cast<int>(b.positions().size());
    }
    // The lowest vertex, and the vertices on the ground (within 1 mm of y = 0): the
    // contact state whichever way the model meets the ground (solver rows or projection).
    double lowest = 1e30;
    int grounded = 0;
    for (const SoftWorld::Body& b : soft.bodies()) {
      for (const Vec3& x : b.positions()) {
        lowest = std::min(lowest, x.y());
        if (x.y() < 1e-3) ++grounded;
      }
    }
    return absl::StrCat("tets=", tets, ", vertices=", vertices,
                        ", constraints=", soft.constraint_count(), ", lowest_y=", lowest,
                        ", vertices_on_ground=", grounded,
                        ", dt=", world_->settings().dt());
  }
  World& world() { return *world_; }

 private:
  std::unique_ptr<World> world_;
};

absl::StatusOr<std::unique_ptr<World>> GeneratedWorld(const std::string& name,
                                                      bool with_constraints) {
  std::optional<v1::Scene> proto = GenerateScene(name);
  if (!proto) return absl::NotFoundError(name);
  if (!with_constraints) proto->clear_constraints();
  absl::StatusOr<SceneDesc> scene = SceneFromProto(*proto);
  if (!scene.ok()) return scene.status();
  return World::FromScene("bench", *scene, WorldLimits{});
}

StepBench CubesBench(const std::string& scene, double paper_ms, int timed, int quick) {
  StepBench bench;
  bench.name = "gissler/" + scene.substr(std::string("gissler_").size());
  bench.paper = paper_ms;
  bench.paper_source = "gissler-local-constraints Fig. 1 and 2";
  bench.setup = "mass-point cubes, explicit Verlet, 1 kHz";
  bench.ours.push_back({"verlet", [scene]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
                          auto world = GeneratedWorld(scene, true);
                          if (!world.ok()) return world.status();
                          return std::make_unique<WorldScene>(*std::move(world));
                        }});
  bench.settle_steps = 20;
  bench.timed_steps = timed;
  bench.quick_timed_steps = quick;
  bench.chunk_steps = 20;
  return bench;
}

const Registrar kCubes3950(CubesBench("gissler_cubes_3950", 12.0, 1000, 100));
const Registrar kCubes14950(CubesBench("gissler_cubes_14950", 46.15, 300, 40));

// Median step time of `world` over `steps` steps, each timed alone, appended to `out` (ms).
void TimeSteps(World& world, int steps, std::vector<double>* out) {
  for (int i = 0; i < steps; ++i) {
    const Clock::time_point t0 = Clock::now();
    world.Step();
    out->push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
}

std::string ResultLine(const std::string& name, const std::string& metric,
                       std::optional<double> median, std::optional<double> p99, long long n,
                       std::optional<double> paper, const std::string& notes) {
  JsonLine line;
  line.String("bench", name)
      .String("metric", metric)
      .Number("median", median)
      .Number("p99", p99)
      .Integer("n", n)
      .Number("paper", paper)
      .String("peer", std::nullopt)
      .Number("peer_median", std::nullopt)
      .Number("ratio", std::nullopt)
      .String("notes", notes);
  return line.Finish();
}

// Constrained points per millisecond: (nails + 2 links) / (median with - median without).
RunResult ConstraintPoints(const RunOptions& options) {
  constexpr char kName[] = "gissler/constraint_points";
  RunResult result;
  auto with = GeneratedWorld("gissler_cubes_3950", true);
  auto without = GeneratedWorld("gissler_cubes_3950", false);
  if (!with.ok() || !without.ok()) {
    result.json_lines.push_back(ResultLine(kName, "points_per_ms", std::nullopt, std::nullopt, 0,
                                           1000.0, "failed to build the scene"));
    result.ok = false;
    return result;
  }
  int points = 0;
  for (const SoftConstraintDesc& c : (*with)->soft_bodies().constraints()) {
    points += static_cast<int>(c.vertices.size());
  }
  const int chunks = options.quick ? 5 : 25;
  std::vector<double> with_ms, without_ms;
  std::fprintf(stderr, "[%s] %d chunks of 20 steps on 2 worlds\n", kName, chunks);
  for (int c = 0; c < chunks; ++c) {
    TimeSteps(**with, 20, &with_ms);
    TimeSteps(**without, 20, &without_ms);
  }
  const double cost = Median(with_ms) - Median(without_ms);
  const std::optional<double> rate =
      cost > 0.0 ? std::optional<double>(points / cost) : std::nullopt;
  result.json_lines.push_back(ResultLine(
      kName, "points_per_ms", rate, std::nullopt, static_cast<long long>(with_ms.size()), 1000.0,
      absl::StrCat("constrained_points=", points, ", step_ms with=", Median(with_ms),
                   " without=", Median(without_ms),
                   ", the paper's figure is points per ms (higher is better)")));
  return result;
}

const Registrar kConstraintPoints(Benchmark{"gissler/constraint_points", ConstraintPoints});

// The soft cube: 6 x 6 x 5 cells of 6 tets, 0.2 m wide, its bottom 0.3 m above the ground.
constexpr double kCubeDt = 0.005;
TetMesh CubeMesh() {
  TetMesh mesh = MakeBoxMesh(Vec3(0.1, 0.1, 0.1), 6, 5, 6);
  for (Vec3& v : mesh.vertices) v.y() += 0.4;
  return mesh;
}

// Our cube in a world with the ground: `model` set up by `configure`.
SceneFactory OurCube(std::function<void(SoftBodyDesc&)> configure) {
  return [configure]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    SceneDesc scene;
    scene.settings.rate_hz = 1.0 / kCubeDt;
    BodyDesc ground;
    ground.id = "ground";
    ground.kind = BodyKind::kStatic;
    ground.rigid()->shape = Shape::Plane();
    scene.bodies.push_back(ground);
    BodyDesc cube;
    cube.id = "cube";
    SoftBodyDesc soft;
    soft.mesh = CubeMesh();
    configure(soft);
    cube.body = soft;
    scene.bodies.push_back(cube);
    auto world = World::FromScene("bench", scene, WorldLimits{});
    if (!world.ok()) return world.status();
    return std::make_unique<WorldScene>(*std::move(world));
  };
}

StepBench CubeTetsBench() {
  StepBench bench;
  bench.name = "soft/cube_tets";
  bench.setup = "1080 tets, 8 kg, dropped 0.3 m onto the ground and settled 3 s, then timed at rest, dt=0.005";
  // Corotational linear FEM (E 100 kPa), implicit Euler: conjugate gradients preconditioned
  // by the rest system's factorization, every contact in the world's solve.
  bench.ours.push_back({"corotational", OurCube([](SoftBodyDesc& soft) {
                          soft.model = SoftModelKind::kCorotational;
                          soft.fem.young = 1e5;
                          soft.fem.poisson = 0.3;
                          soft.fem.density = 1000;
                          soft.fem.mass_damping = 1.0;
                        })});
  // The mass-point model (edge springs and tet volumes) under implicit Euler: at a 5 ms
  // step its explicit integrators do not stay stable on the ground.
  bench.ours.push_back({"mass-point-implicit", OurCube([](SoftBodyDesc& soft) {
                          soft.model = SoftModelKind::kMassPoint;
                          soft.integrator = Integrator::kImplicitEuler;
                          soft.mass_point.density = 1000;
                          soft.mass_point.distance_stiffness = 20;
                          soft.mass_point.volume_stiffness = 10;
                          soft.mass_point.damping = 0.05;
                        })});
  bench.peers.push_back({BulletPeerName(), []() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
                           BulletSoftCubeSpec spec;
                           spec.mesh = CubeMesh();
                           spec.mass = 8.0;
                           spec.dt = kCubeDt;
                           return std::make_unique<BulletSoftCube>(spec);
                         }});
  // Both sides fall and come to rest on the ground first, then the resting cubes are
  // timed: the same contact state on every side (the notes give each side's contacts and
  // lowest vertex).
  bench.settle_steps = 600;
  bench.timed_steps = 400;
  bench.quick_timed_steps = 100;
  bench.chunk_steps = 20;
  return bench;
}

const Registrar kCubeTets(CubeTetsBench());

// The ligament stroke of the scene's comment: settle, press 2 mm, draw across, lift; each
// tick timed and sorted by whether it cut.
RunResult CutLigament(const RunOptions& options) {
  constexpr char kName[] = "soft/cut_ligament";
  RunResult result;
  std::vector<double> cut_ms, plain_ms;
  const int strokes = options.quick ? 3 : 20;
  for (int s = 0; s < strokes; ++s) {
    absl::StatusOr<SceneDesc> scene = LoadScene("ligament");
    if (!scene.ok()) {
      result.json_lines.push_back(ResultLine(kName, "step_ms", std::nullopt, std::nullopt, 0,
                                             std::nullopt, "failed to load the scene"));
      result.ok = false;
      return result;
    }
    auto world = World::FromScene("bench", *scene, WorldLimits{});
    if (!world.ok()) {
      result.ok = false;
      return result;
    }
    World& w = **world;
    for (int i = 0; i < 200; ++i) w.Step();
    double top = -1.0;
    for (const Vec3& x : w.soft_bodies().FindBody("ligament")->positions()) {
      if (std::abs(x.x()) < 1e-3) top = std::max(top, x.y());
    }
    auto drive = [&](double y0, double z0, double y1, double z1, int ticks) {
      for (int i = 1; i <= ticks; ++i) {
        const double f = static_cast<double>(i) / ticks;
        const Vec3 at(0, y0 + f * (y1 - y0) + 0.02, z0 + f * (z1 - z0));
        (void)w.SetDeviceTarget("scalpel", Transform{at, Quat::Identity()});
        const Clock::time_point t0 = Clock::now();
        w.Step();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        (w.MakeFrame().cuts.empty() ? plain_ms : cut_ms).push_back(ms);
      }
    };
    const double pressed = top - 0.002;
    drive(top + 0.002, -0.005, pressed, -0.005, 20);
    drive(pressed, -0.005, pressed, 0.014, 100);
    drive(pressed, 0.014, top + 0.03, 0.014, 20);
  }
  const double cut = Median(cut_ms), plain = Median(plain_ms);
  result.json_lines.push_back(ResultLine(
      kName, "step_ms", cut_ms.empty() ? std::nullopt : std::optional<double>(cut),
      cut_ms.empty() ? std::nullopt : std::optional<double>(Percentile(cut_ms, 99.0)),
      static_cast<long long>(cut_ms.size()), std::nullopt,
      absl::StrCat("median and p99 of the ticks that cut; ticks without a cut: median=", plain,
                   " n=", plain_ms.size(), ", cut/no-cut=", plain > 0.0 ? cut / plain : 0.0,
                   ", 96 tets, 200 Hz")));
  return result;
}

const Registrar kCutLigament(Benchmark{"soft/cut_ligament", CutLigament});

}  // namespace
}  // namespace ligature::bench
