// rigid/spheres375/budget: the 375-sphere pile with the tunable solver under a per-tick
// time budget, from 100 us to 5 ms, with an iteration cap high enough that the budget is
// what stops the solver. One line per budget (no peer); all budgets interleaved in one run.
// The notes give each budget's residual, deepest penetration and how often it ran out.

#include <string>

#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

constexpr double kBudgetsUs[] = {100, 200, 500, 1000, 2000, 5000};
constexpr int kIterationCap = 200;

StepBench MakeBench() {
  StepBench bench;
  bench.name = "rigid/spheres375/budget";
  bench.metric = "step_ms";
  bench.setup = "375 spheres r 0.1 in a 2 m box on a plane, iteration cap " +
                std::to_string(kIterationCap) + ", tolerance from the scene";
  // One variant of ours per budget, each settled under its own budget.
  for (const double budget_us : kBudgetsUs) {
    bench.ours.push_back({"budget_us=" + std::to_string(static_cast<int>(budget_us)),
                          LigatureFactory("spheres375", [budget_us](WorldSettings& s) {
                            s.solver.kind = SolverKind::kTunableLcp;
                            s.solver.max_iterations = kIterationCap;
                            s.solver.time_budget_us = budget_us;
                          })});
  }
  bench.settle_steps = 300;
  bench.timed_steps = 1000;
  bench.quick_timed_steps = 60;
  bench.chunk_steps = 20;
  return bench;
}

const Registrar kRegistrar(MakeBench());

}  // namespace
}  // namespace ligature::bench
