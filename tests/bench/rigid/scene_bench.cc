#include "tests/bench/rigid/scene_bench.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/peers/mujoco_scene.h"
#include "tests/bench/peers/ode_scene.h"
#include "tests/bench/rigid/ligature_scene.h"

namespace ligature::bench {

absl::StatusOr<SceneDesc> LoadScene(const std::string& name) {
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene(name);
  if (!proto.ok()) return proto.status();
  return SceneFromProto(*proto);
}

SceneFactory LigatureFactory(std::string name, std::function<void(WorldSettings&)> adjust) {
  return [name = std::move(name),
          adjust = std::move(adjust)]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    absl::StatusOr<SceneDesc> scene = LoadScene(name);
    if (!scene.ok()) return scene.status();
    if (adjust) adjust(scene->settings);
    return MakeLigatureScene(*scene);
  };
}

namespace {

using PeerMaker =
    std::function<absl::StatusOr<std::unique_ptr<SteppedScene>>(const SceneDesc& scene)>;

// Builds a peer with `make` on the built-in scene `name`.
SceneFactory PeerFactory(std::string name, PeerMaker make) {
  return [name = std::move(name),
          make = std::move(make)]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    absl::StatusOr<SceneDesc> scene = LoadScene(name);
    if (!scene.ok()) return scene.status();
    return make(*scene);
  };
}

}  // namespace

StepBench MakeSceneBench(const SceneBenchSpec& spec) {
  StepBench bench;
  bench.name = "rigid/" + spec.scene;
  bench.metric = "step_ms";
  bench.paper = spec.paper;
  bench.paper_source = spec.paper_source;
  bench.setup = spec.setup;
  bench.settle_steps = spec.settle_steps;
  bench.timed_steps = spec.timed_steps;
  bench.quick_timed_steps = spec.quick_timed_steps;
  bench.chunk_steps = spec.chunk_steps;

  // The headline lines: both of our solvers at equal work with the peers (the scene's dt
  // and iteration cap, tolerance 0 so that every iteration runs, as the peers run them).
  for (const SolverKind kind : {SolverKind::kTunableLcp, SolverKind::kGaussSeidel}) {
    bench.ours.push_back({SolverName(kind), LigatureFactory(spec.scene, [kind](WorldSettings& s) {
                            s.solver.kind = kind;
                            s.solver.tolerance = 0.0;
                          })});
  }
  // Gauss-Seidel in 4 substeps, the scene's sweeps a tick shared among them.
  bench.ours.push_back({"gauss-seidel-4-substeps",
                        LigatureFactory(spec.scene, [](WorldSettings& s) {
                          s.solver.kind = SolverKind::kGaussSeidel;
                          s.solver.substeps = 4;
                          s.solver.tolerance = 0.0;
                        })});
  // Where the scene sets a tolerance, both again with it: they may stop early.
  if (spec.early_exit) {
    for (const SolverKind kind : {SolverKind::kTunableLcp, SolverKind::kGaussSeidel}) {
      bench.ours.push_back({SolverName(kind) + ", early exit",
                            LigatureFactory(spec.scene, [kind](WorldSettings& s) {
                              s.solver.kind = kind;
                            })});
    }
  }

  // The peers, each built from the same scene file.
  bench.peers.push_back({BulletPeerName(), PeerFactory(spec.scene, [](const SceneDesc& scene) {
                           return MakeBulletScene(scene);
                         })});
  if (OdePeerAvailable()) {
    bench.peers.push_back({OdePeerName(), PeerFactory(spec.scene, MakeOdeScene)});
  } else {
    bench.setup += ", no ODE peer in this build";
  }
  // MuJoCo's projected Gauss-Seidel: the scene's iterations, tolerance 0.
  if (MujocoPeerAvailable()) {
    bench.peers.push_back({MujocoPeerName(MujocoSolver::kPgs),
                           PeerFactory(spec.scene, [](const SceneDesc& scene) {
                             return MakeMujocoScene(scene);
                           })});
  } else {
    bench.setup += ", no MuJoCo peer in this build";
  }
  return bench;
}

}  // namespace ligature::bench
