// rigid/spheres375/rates: the 375-sphere pile under both solvers at the scene's 10
// iterations, and Gauss-Seidel in 4 substeps, stepped at 30, 50, 60 and 100 Hz. One line
// per solver and rate (no peer),
// all interleaved in one run; the notes' penetration shows whether the pile comes to rest
// (the slop, 0.5 mm) or keeps moving in itself at that step.

#include <string>

#include "absl/strings/str_cat.h"
#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

constexpr double kRatesHz[] = {30, 50, 60, 100};

StepBench MakeBench() {
  StepBench bench;
  bench.name = "rigid/spheres375/rates";
  bench.metric = "step_ms";
  bench.setup = "375 spheres r 0.1 in a 2 m box on a plane, iterations and tolerance from the "
                "scene, settled 10 s at each rate";
  for (const SolverKind kind : {SolverKind::kTunableLcp, SolverKind::kGaussSeidel}) {
    for (const double rate_hz : kRatesHz) {
      bench.ours.push_back({absl::StrCat(SolverName(kind), " rate_hz=", rate_hz),
                            LigatureFactory("spheres375", [kind, rate_hz](WorldSettings& s) {
                              s.solver.kind = kind;
                              s.rate_hz = rate_hz;
                            })});
    }
  }
  // Gauss-Seidel in 4 substeps, the scene's 10 sweeps shared among them.
  for (const double rate_hz : kRatesHz) {
    bench.ours.push_back({absl::StrCat("gauss-seidel-4-substeps rate_hz=", rate_hz),
                          LigatureFactory("spheres375", [rate_hz](WorldSettings& s) {
                            s.solver.kind = SolverKind::kGaussSeidel;
                            s.solver.substeps = 4;
                            s.rate_hz = rate_hz;
                          })});
  }
  // Settled for 10 s of the slowest rate: the pile has landed on every side.
  bench.settle_steps = 300;
  bench.timed_steps = 300;
  bench.quick_timed_steps = 30;
  bench.chunk_steps = 30;
  return bench;
}

const Registrar kRegistrar(MakeBench());

}  // namespace
}  // namespace ligature::bench
