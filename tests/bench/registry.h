#pragma once
// The benchmark registry: each benchmark names itself and says how to run it. Most are step
// benchmarks (one or more variants of our engine timed against zero or more peer engines
// on the same scene, interleaved); a few run their own protocol and format their own lines.

#include <array>
#include <cstddef>
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
  // Forgets what Notes() summarizes; called once settling is over, before timing.
  virtual void ResetSummary() {}
  // Optional facts about this side's steps since ResetSummary() for the notes, as
  // comma-separated key=value pairs (e.g. "iterations=10").
  virtual std::string Notes() const { return ""; }
  // The world position (m) of the centre of mass of body `index` (in scene order) after
  // the last step; nullopt for a static body or a side that does not report positions.
  virtual std::optional<std::array<double, 3>> Position(size_t /*index*/) const {
    return std::nullopt;
  }
  // Figures of this side a benchmark prints as fields of their own, in a fixed order.
  virtual std::vector<std::pair<std::string, double>> Figures() const { return {}; }
};

using SceneFactory = std::function<absl::StatusOr<std::unique_ptr<SteppedScene>>()>;

// One side of a step benchmark.
struct SideSpec {
  std::string label;  // ours: the variant (e.g. "tunable"); a peer: its name ("bullet-3.24")
  SceneFactory factory;
};

// A benchmark timing whole world steps (metric step_ms). Every side is stepped in turn, in
// chunks (A B C A B C ...), so machine noise lands on all alike. It prints one line per
// variant of ours and per peer (ratio = that variant's median / that peer's median), or one
// line per variant when there is no peer.
struct StepBench {
  std::string name;  // family/scene, e.g. "rigid/spheres375"
  std::string metric = "step_ms";
  std::optional<double> paper;  // the seed paper's figure for this scene, in `metric` units
  std::string paper_source;     // where `paper` comes from, for the notes
  std::vector<SideSpec> ours;   // at least one
  std::vector<SideSpec> peers;  // may be empty
  int settle_steps = 300;       // untimed steps run on every side first
  int timed_steps = 1000;       // per side, full run
  int quick_timed_steps = 200;  // per side, --quick
  int chunk_steps = 50;         // steps per side between switches
  std::string setup;            // scene facts for the notes, e.g. "dt=0.01"
};

struct RunOptions {
  bool quick = false;
  // With --quick, stop adding timed chunks once a benchmark has used this much wall time,
  // so a slow side cannot push the whole quick run past its one-minute budget.
  double quick_budget_s = 7.0;
};

struct RunResult {
  std::vector<std::string> json_lines;  // the stdout lines, without newlines
  bool ok = true;                       // false when a side failed to build
};

// Any registered benchmark: a name and the function that runs it.
struct Benchmark {
  std::string name;
  std::function<RunResult(const RunOptions&)> run;
};

// All registered benchmarks, sorted by name.
class Registry {
 public:
  static Registry& Global();

  void Add(Benchmark bench);
  const std::vector<Benchmark>& benches() const { return benches_; }

 private:
  std::vector<Benchmark> benches_;
};

// Registers a benchmark from a namespace-scope static: `const Registrar kReg(MakeSpec());`.
struct Registrar {
  explicit Registrar(Benchmark bench);
  explicit Registrar(StepBench bench);
};

}  // namespace ligature::bench
