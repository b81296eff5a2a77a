#pragma once
// Step benchmarks on the built-in rigid scenes: both of our solvers against every peer that
// can run the scene (Bullet, and ODE and MuJoCo when built), all interleaved in one run.

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"

namespace ligature::bench {

// A built-in scene (server/scenes/NAME.textproto) as our engine's description; the same
// one every side of a benchmark is built from.
absl::StatusOr<SceneDesc> LoadScene(const std::string& name);

// Builds our engine on the built-in scene `name` after `adjust` has changed its settings.
SceneFactory LigatureFactory(std::string name,
                             std::function<void(WorldSettings&)> adjust = nullptr);

struct SceneBenchSpec {
  std::string scene;            // built-in scene name; the benchmark is "rigid/" + scene
  std::optional<double> paper;  // the paper's time per frame (ms)
  std::string paper_source;
  std::string setup;  // what the scene is, for the notes
  int settle_steps = 300;
  int timed_steps = 1000;
  int quick_timed_steps = 150;
  int chunk_steps = 50;
  // The scene sets a tolerance: also time both solvers with it (they may stop before the
  // iteration cap), as lines of their own beside the equal-work ones.
  bool early_exit = false;
};

// The benchmark "rigid/<scene>": ours with the tunable LCP and with Gauss-Seidel at equal
// work with the peers (the scene's dt and max_iterations, tolerance 0: every iteration
// runs), and with the scene's tolerance as "<solver>, early exit" lines where it sets one,
// against Bullet, ODE and MuJoCo (its projected Gauss-Seidel at tolerance 0) with the same
// dt and iterations. One line per variant and peer; the notes name the solver, its
// tolerance and the iterations it took.
StepBench MakeSceneBench(const SceneBenchSpec& spec);

}  // namespace ligature::bench
