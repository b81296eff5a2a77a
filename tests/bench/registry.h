#pragma once
// The benchmark registry: each benchmark names itself and gives factories for our engine's
// scene and, optionally, a peer engine's copy of the same scene.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace ligature::bench {

// One engine's instance of a benchmark scene, advanced one fixed step at a time.
class SteppedScene {
 public:
  virtual ~SteppedScene() = default;
  // Advances the scene by one fixed time step.
  virtual void Step() = 0;
  // Contact points found by the last step.
  virtual int Contacts() const = 0;
  // Optional facts about this side's last step for the notes (e.g. "iterations=10").
  virtual std::string Notes() const { return ""; }
};

using SceneFactory = std::function<absl::StatusOr<std::unique_ptr<SteppedScene>>()>;

// A benchmark timing whole world steps (metric step_ms), ours against an optional peer.
struct StepBench {
  std::string name;                  // family/scene, e.g. "rigid/spheres375"
  std::string metric = "step_ms";
  std::optional<double> paper;       // the seed paper's figure for this scene, in `metric` units
  std::string paper_source;          // where `paper` comes from, for the notes
  SceneFactory ours;
  std::string peer_name;             // e.g. "bullet-3.24"; empty when there is no peer
  SceneFactory peer;                 // empty when there is no peer
  int settle_steps = 300;            // untimed steps run on both sides first
  int timed_steps = 1000;            // per side, full run
  int quick_timed_steps = 200;       // per side, --quick
  int chunk_steps = 50;              // steps per side between switches (A B A B ...)
  std::string setup;                 // scene facts for the notes, e.g. "dt 0.01, 10 iterations"
};

// All registered benchmarks, sorted by name.
class Registry {
 public:
  static Registry& Global();

  void Add(StepBench bench);
  const std::vector<StepBench>& benches() const { return benches_; }

 private:
  std::vector<StepBench> benches_;
};

// Registers a benchmark from a namespace-scope static: `const Registrar kReg(MakeSpec());`.
struct Registrar {
  explicit Registrar(StepBench bench) { Registry::Global().Add(std::move(bench)); }
};

}  // namespace ligature::bench
