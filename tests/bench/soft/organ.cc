// soft/organ: the built-in organ scene (a 5,184-tet corotational body on a rigid tray,
// 100 Hz), dropped and settled, then whole world steps timed one at a time. soft/organ_20k:
// the same scene with a finer organ (20,520 tets: rings 8, around 38, layers 12).
// soft/organ_tunable: the organ scene in a tunable-LCP world (its tray contacts rows of the
// velocity pass).
// The physical floor is measured on the same matrices in the same run: every tenth timed
// step's implicit system A = M + h C + h^2 K is kept, and after the timed steps each gets one
// CHOLMOD supernodal factorization (its symbolic analysis done once, untimed) and one solve
// of that step's right-hand side. The notes give the ratio of our step to the world's tick.
// soft/organ_cut: a scalpel drawn across the organ (see OrganCut).

#include <Eigen/CholmodSupport>
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/world/world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A line with no figures, saying why.
RunResult Failed(const char* name, const std::string& why) {
  RunResult result;
  result.ok = false;
  JsonLine line;
  line.String("bench", name)
      .String("metric", "step_ms")
      .Number("median", std::nullopt)
      .Number("p99", std::nullopt)
      .Integer("n", 0)
      .Number("paper", std::nullopt)
      .String("peer", std::nullopt)
      .Number("peer_median", std::nullopt)
      .Number("ratio", std::nullopt)
      .String("notes", why);
  result.json_lines.push_back(line.Finish());
  return result;
}

// The organ scene, its organ meshed `rings` x `around` x `layers` (0: as built in).
absl::StatusOr<SceneDesc> OrganScene(int rings, int around, int layers) {
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene("organ");
  if (!proto.ok()) return proto.status();
  for (v1::Body& body : *proto->mutable_bodies()) {
    if (body.id() != "organ" || rings == 0) continue;
    v1::SoftCylinderMesh& cylinder = *body.mutable_soft()->mutable_cylinder();
    cylinder.set_rings(rings);
    cylinder.set_around(around);
    cylinder.set_layers(layers);
  }
  return SceneFromProto(*proto);
}

RunResult Organ(const char* name, int rings, int around, int layers, SolverKind solver,
                const RunOptions& options) {
  constexpr int kSettle = 30;  // ticks: it lands on the tray at about tick 13
  const int timed = options.quick ? 15 : 200;
  absl::StatusOr<SceneDesc> scene = OrganScene(rings, around, layers);
  if (!scene.ok()) return Failed(name, absl::StrCat("scene: ", scene.status().message()));
  scene->settings.solver.kind = solver;
  auto world = World::FromScene("bench", *scene, WorldLimits{});
  if (!world.ok()) return Failed(name, absl::StrCat("world: ", world.status().message()));
  World& w = **world;
  const SoftWorld::Body* organ = w.soft_bodies().FindBody("organ");
  if (organ == nullptr || organ->system == nullptr) return Failed(name, "no organ body");
  std::fprintf(stderr, "[%s] settling %d ticks, then %d timed\n", name, kSettle, timed);
  for (int i = 0; i < kSettle; ++i) w.Step();

  // Our steps are timed back to back, as a world steps; every tenth step's system is kept
  // for the floor, which is timed after them on those same systems (interleaved, each
  // side would start from the caches the other left).
  constexpr int kFloorEvery = 10;
  std::vector<double> ours, floor_ms;
  std::vector<std::pair<Eigen::SparseMatrix<double>, Eigen::VectorXd>> systems;
  for (int i = 0; i < timed; ++i) {
    const Clock::time_point t0 = Clock::now();
    w.Step();
    ours.push_back(MsSince(t0));
    if (i % kFloorEvery == 0) systems.emplace_back(organ->system->matrix(), organ->system->rhs());
  }
  // The floor's symbolic analysis, once: the pattern stays while nothing is cut.
  Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>> floor;
  floor.analyzePattern(systems.front().first);
  double worst_residual = 0.0;
  for (const auto& [a, b] : systems) {
    const Clock::time_point t1 = Clock::now();
    floor.factorize(a);
    const Eigen::VectorXd x = floor.solve(b);
    floor_ms.push_back(MsSince(t1));
    // The floor solves the same system the world solved.
    worst_residual = std::max(worst_residual, (a * x - b).norm() / b.norm());
  }
  // The vertices resting on the tray (within 1 mm of the lowest), and those of them in
  // the last step's solve, as the contact state.
  double lowest = organ->positions().front().y();
  for (const Vec3& x : organ->positions()) lowest = std::min(lowest, x.y());
  const auto on_tray = std::count_if(organ->positions().begin(), organ->positions().end(),
                                     [&](const Vec3& x) { return x.y() < lowest + 1e-3; });
  const std::vector<World::ContactReport> contacts = w.LastContacts();
  const auto coupled = std::count_if(contacts.begin(), contacts.end(), [&](const auto& c) {
    return c.a == "organ" && organ->positions()[c.vertex].y() < lowest + 1e-3;
  });
  const double tick_ms = 1000.0 / scene->settings.rate_hz;
  const double median = Median(ours), peer = Median(floor_ms);
  JsonLine line;
  line.String("bench", name)
      .String("metric", "step_ms")
      .Number("median", median)
      .Number("p99", Percentile(ours, 99.0))
      .Integer("n", static_cast<long long>(ours.size()))
      .Number("paper", std::nullopt)
      .String("peer", "cholmod-supernodal-floor")
      .Number("peer_median", peer)
      .Number("ratio", median / peer)
      .String("notes",
              absl::StrCat(
                  "tets=", organ->desc.mesh.tets.size(), ", vertices=", organ->positions().size(),
                  ", unknowns=", organ->system->matrix().rows(),
                  ", nonzeros=", organ->system->matrix().nonZeros(), ", tick=", tick_ms,
                  " ms, step/tick=", median / tick_ms, ", vertices_on_tray=", on_tray,
                  ", of them in the solve=", coupled, ", settled ", kSettle,
                  " ticks on the tray; ours: the whole world step (assembly, conjugate gradients "
                  "on A = M + h C + h^2 K preconditioned by the rest system's factorization turned "
                  "per vertex, "
                  "last step's iterations=",
                  organ->system->iterations(), ", contacts in the world's ",
                  solver == SolverKind::kTunableLcp ? "tunable-LCP" : "Gauss-Seidel",
                  " solve); floor: one CHOLMOD supernodal "
                  "factorization of every tenth timed step's A, after the timed steps (symbolic "
                  "analysis once, untimed), and one solve, floor n=",
                  floor_ms.size(), ", p99=", Percentile(floor_ms, 99.0),
                  " ms, worst floor residual=", worst_residual,
                  "; BLAS: the system's libblas.so.3 (the test command installs OpenBLAS's "
                  "one-thread build)"));
  RunResult result;
  result.json_lines.push_back(line.Finish());
  return result;
}

// soft/organ_cut: the organ settled on its tray, then the scene's scalpel pressed into its top and
// drawn across it (12 cm over 60 ticks) and lifted, five strokes side by side. Reports the
// median and p99 of the ticks in which a cut happens, and of the tick after each (the body
// steps with the factorization it had while the cut mesh's is made on another thread),
// against the ticks without a cut.
RunResult OrganCut(const RunOptions& options) {
  constexpr char kName[] = "soft/organ_cut";
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene("organ");
  if (!proto.ok()) return Failed(kName, absl::StrCat("scene: ", proto.status().message()));
  absl::StatusOr<SceneDesc> scene = SceneFromProto(*proto);
  if (!scene.ok()) return Failed(kName, absl::StrCat("scene: ", scene.status().message()));
  auto world = World::FromScene("bench", *scene, WorldLimits{});
  if (!world.ok()) return Failed(kName, absl::StrCat("world: ", world.status().message()));
  World& w = **world;
  for (int i = 0; i < 30; ++i) w.Step();
  const SoftWorld::Body* organ = w.soft_bodies().FindBody("organ");
  double top = 0.0;
  for (const Vec3& x : organ->positions()) top = std::max(top, x.y());
  const size_t vertices_before = organ->positions().size();

  std::vector<double> cut_ms, after_ms, plain_ms;
  int cuts = 0;
  bool cut_last = false;
  // The scalpel's tip (0.02 m below its centre) driven from a to b over `ticks` ticks.
  auto drive = [&](const Vec3& a, const Vec3& b, int ticks) {
    for (int i = 1; i <= ticks; ++i) {
      const Vec3 tip = a + (static_cast<double>(i) / ticks) * (b - a);
      (void)w.SetDeviceTarget("scalpel", Transform{tip + Vec3(0.0, 0.02, 0.0), Quat::Identity()});
      const Clock::time_point t0 = Clock::now();
      w.Step();
      const double ms = MsSince(t0);
      const int now = static_cast<int>(w.MakeFrame().cuts.size());
      (now > 0 ? cut_ms : cut_last ? after_ms : plain_ms).push_back(ms);
      cuts += now;
      cut_last = now > 0;
    }
  };
  const int strokes = options.quick ? 1 : 5;
  for (int s = 0; s < strokes; ++s) {
    const double z = -0.04 + 0.02 * s;
    const double depth = top - 0.01;
    drive(Vec3(-0.06, top + 0.01, z), Vec3(-0.06, depth, z), 10);
    drive(Vec3(-0.06, depth, z), Vec3(0.06, depth, z), 60);
    drive(Vec3(0.06, depth, z), Vec3(0.06, top + 0.03, z), 10);
  }
  organ = w.soft_bodies().FindBody("organ");
  const double tick_ms = 1000.0 / scene->settings.rate_hz;
  const double median = cut_ms.empty() ? 0.0 : Median(cut_ms);
  JsonLine line;
  line.String("bench", kName)
      .String("metric", "step_ms")
      .Number("median", cut_ms.empty() ? std::nullopt : std::optional<double>(median))
      .Number("p99",
              cut_ms.empty() ? std::nullopt : std::optional<double>(Percentile(cut_ms, 99.0)))
      .Integer("n", static_cast<long long>(cut_ms.size()))
      .Number("paper", std::nullopt)
      .String("peer", "ticks-without-a-cut")
      .Number("peer_median",
              plain_ms.empty() ? std::nullopt : std::optional<double>(Median(plain_ms)))
      .Number("ratio", cut_ms.empty() || plain_ms.empty()
                           ? std::nullopt
                           : std::optional<double>(median / Median(plain_ms)))
      .String(
          "notes",
          absl::StrCat(
              "median and p99 of the ticks that cut; the tick after each cut (stepping with "
              "the factorization from before the cut while another thread makes the cut "
              "mesh's): median=",
              after_ms.empty() ? 0.0 : Median(after_ms),
              " p99=", after_ms.empty() ? 0.0 : Percentile(after_ms, 99.0), " n=", after_ms.size(),
              "; cut tick/tick=", median / tick_ms, ", cuts=", cuts, ", vertices ", vertices_before,
              " -> ", organ->positions().size(), ", toughness ", organ->desc.cutting->toughness,
              " Pa, ", strokes, " strokes 12 cm long, 1 cm deep, 100 Hz"));
  RunResult result;
  result.json_lines.push_back(line.Finish());
  return result;
}

const Registrar kOrgan(Benchmark{"soft/organ", [](const RunOptions& options) {
                                   return Organ("soft/organ", 0, 0, 0, SolverKind::kGaussSeidel,
                                                options);
                                 }});
const Registrar kOrganTunable(Benchmark{"soft/organ_tunable", [](const RunOptions& options) {
                                          return Organ("soft/organ_tunable", 0, 0, 0,
                                                       SolverKind::kTunableLcp, options);
                                        }});
const Registrar kOrganCut(Benchmark{"soft/organ_cut", OrganCut});
const Registrar kOrgan20k(Benchmark{"soft/organ_20k", [](const RunOptions& options) {
                                      return Organ("soft/organ_20k", 8, 38, 12,
                                                   SolverKind::kGaussSeidel, options);
                                    }});

}  // namespace
}  // namespace ligature::bench
