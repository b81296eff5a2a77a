// rigid/spheres375/budget-check: does the tunable solver keep its per-tick time budget?
// The settled 375-sphere pile runs with a 1 ms budget (iteration cap 200), well above what
// the solver must always do (prepare its rows and take one step, some 0.2-0.4 ms here), so
// that the check is about where the solver stops, not about that floor.
//
// What is timed: the solve stage of each World::Step, the wall time of its solver calls as
// the world reports it (StepStats::solve_ms, what the budget covers; assembling the rows is
// not part of it). Each whole step is also timed, on the wall clock and on the thread's
// CPU clock, for the notes and to find the ticks the operating system took the core away
// from (wall time more than 50 us beyond CPU time): those are counted and left out of the
// verdict, which they would decide whatever the solver did.
//
// An unbudgeted twin, interleaved with it, gives the cost of one iteration (its solve time /
// its iterations, median over ticks). The check passes when the p99 solve time of the
// budgeted world's undisturbed ticks is within the budget plus one iteration plus a margin
// for a shared machine (kMarginUs), over at least half the ticks; otherwise the run exits 1
// (the ctest bench/budget_gate runs the quick form). Another process on the other core can
// slow a few ticks' solves without taking the core away, so a failed check runs once more
// and the second run decides (both print their line); a solver that overruns its budget
// fails both. The line keeps the standard fields (median and p99 of the budgeted solve); the
// notes carry the distributions and verdict.

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "rigid/spheres375/budget-check";
constexpr double kBudgetUs = 1000.0;
constexpr int kIterationCap = 200;
constexpr int kSettleSteps = 300;
constexpr int kChunkSteps = 50;
// Allowance for a shared (CI) machine and for the part of a pass that the budget cannot
// cut short (its preparation and first step; 0.2-0.4 ms here): half the budget.
constexpr double kMarginUs = 500.0;
constexpr double kPreemptedUs = 50.0;    // wall beyond CPU time that marks a disturbed tick

// Per-tick figures of one world over its timed steps.
struct Samples {
  std::vector<double> step_us;
  std::vector<double> solve_us;  // the solve stage alone (StepStats::solve_ms)
  std::vector<double> iterations;
  std::vector<double> residual;     // m
  std::vector<double> penetration;  // m, deepest overlap left by the step
  std::vector<bool> disturbed;      // the thread lost the core during the step
  int exhausted = 0;
};

// The pile with the tunable solver, the iteration cap and `budget_us` (0: none).
absl::StatusOr<std::unique_ptr<World>> MakeWorld(double budget_us) {
  absl::StatusOr<SceneDesc> scene = LoadScene("spheres375");
  if (!scene.ok()) return scene.status();
  scene->settings.solver.kind = SolverKind::kTunableLcp;
  scene->settings.solver.max_iterations = kIterationCap;
  scene->settings.solver.time_budget_us = budget_us;
  return World::FromScene("bench", *scene, WorldLimits{});
}

// The calling thread's CPU time (us).
double ThreadCpuUs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

// Times `steps` ticks of `world`, each World::Step on its own clock.
void TimeSteps(World& world, int steps, Samples* out) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < steps; ++i) {
    const double cpu0 = ThreadCpuUs();
    const Clock::time_point t0 = Clock::now();
    world.Step();
    const Clock::time_point t1 = Clock::now();
    const double cpu_us = ThreadCpuUs() - cpu0;
    const double wall_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    out->step_us.push_back(wall_us);
    out->disturbed.push_back(wall_us - cpu_us > kPreemptedUs);
    const StepStats& stats = world.last_stats();
    out->solve_us.push_back(stats.solve_ms * 1000.0);
    out->iterations.push_back(stats.iterations);
    out->residual.push_back(stats.residual);
    out->penetration.push_back(stats.max_penetration);
    if (stats.budget_exhausted) ++out->exhausted;
  }
}

std::string Format(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", value);
  return buf;
}

// "p50=... p99=... max=..." of `values`.
std::string Distribution(const std::vector<double>& values) {
  return absl::StrCat("p50=", Format(Median(values)), " p99=", Format(Percentile(values, 99.0)),
                      " max=", Format(*std::max_element(values.begin(), values.end())));
}

// The result line: standard fields from the budgeted solves (in ms), the rest in notes.
std::string FormatLine(const Samples& budgeted, const std::string& notes) {
  std::optional<double> median, p99;
  if (!budgeted.solve_us.empty()) {
    median = Median(budgeted.solve_us) / 1000.0;
    p99 = Percentile(budgeted.solve_us, 99.0) / 1000.0;
  }
  JsonLine line;
  line.String("bench", kName)
      .String("metric", "solve_ms")
      .Number("median", median)
      .Number("p99", p99)
      .Integer("n", static_cast<long long>(budgeted.step_us.size()))
      .Number("paper", std::nullopt)
      .String("peer", std::nullopt)
      .Number("peer_median", std::nullopt)
      .Number("ratio", std::nullopt)
      .String("notes", notes);
  return line.Finish();
}

RunResult RunOnce(const RunOptions& options) {
  const int ticks = options.quick ? 300 : 3000;
  const int reference_ticks = options.quick ? 50 : 300;
  RunResult result;

  // Both worlds from the same scene, settled under their own settings.
  absl::StatusOr<std::unique_ptr<World>> budgeted = MakeWorld(kBudgetUs);
  absl::StatusOr<std::unique_ptr<World>> reference = MakeWorld(0.0);
  if (!budgeted.ok() || !reference.ok()) {
    const absl::Status error = budgeted.ok() ? reference.status() : budgeted.status();
    result.json_lines.push_back(FormatLine({}, "failed: " + std::string(error.message())));
    result.ok = false;
    return result;
  }
  std::fprintf(stderr, "[%s] settling %d steps on 2 worlds\n", kName, kSettleSteps);
  for (int i = 0; i < kSettleSteps; ++i) (*budgeted)->Step();
  for (int i = 0; i < kSettleSteps; ++i) (*reference)->Step();

  // Interleaved chunks, budgeted then unbudgeted, until each has its count.
  Samples with_budget, without_budget;
  while (static_cast<int>(with_budget.step_us.size()) < ticks) {
    TimeSteps(**budgeted,
              std::min(kChunkSteps, ticks - static_cast<int>(with_budget.step_us.size())),
              &with_budget);
    const int left = reference_ticks - static_cast<int>(without_budget.step_us.size());
    if (left > 0) TimeSteps(**reference, std::min(kChunkSteps, left), &without_budget);
  }

  // One iteration's cost: the unbudgeted solve time per iteration, median over ticks.
  std::vector<double> per_iteration;
  for (size_t i = 0; i < without_budget.solve_us.size(); ++i) {
    per_iteration.push_back(without_budget.solve_us[i] /
                            std::max(1.0, without_budget.iterations[i]));
  }
  const double one_iteration_us = Median(per_iteration);
  const double limit_us = kBudgetUs + one_iteration_us;
  const long over = std::count_if(with_budget.solve_us.begin(), with_budget.solve_us.end(),
                                  [limit_us](double us) { return us > limit_us; });
  // The verdict on the undisturbed ticks.
  std::vector<double> clean;
  for (size_t i = 0; i < with_budget.solve_us.size(); ++i) {
    if (!with_budget.disturbed[i]) clean.push_back(with_budget.solve_us[i]);
  }
  const bool enough = 2 * clean.size() >= with_budget.solve_us.size();
  const double p99_us = clean.empty() ? 0.0 : Percentile(clean, 99.0);
  const bool pass = enough && p99_us <= limit_us + kMarginUs;

  // Notes: the settings, the reference, both distributions, then the verdict.
  const std::string notes = absl::StrCat(
      "solver=tunable, budget_us=", Format(kBudgetUs), ", max_iterations=", kIterationCap,
      ", one_iteration_us=", Format(one_iteration_us), " (unbudgeted solve p50 ",
      Format(Median(without_budget.solve_us)), " us over ",
      Format(Median(without_budget.iterations)), " iterations, n=", without_budget.step_us.size(),
      "), limit_us=", Format(limit_us), ", solve_us ", Distribution(with_budget.solve_us),
      ", step_us ", Distribution(with_budget.step_us),
      ", iterations ", Distribution(with_budget.iterations),
      ", residual=", Format(Median(with_budget.residual)), ", max_penetration ",
      Distribution(with_budget.penetration), ", exhausted=", with_budget.exhausted, "/",
      with_budget.step_us.size(), ", over_limit=", over, "/", with_budget.step_us.size(),
      ", contacts=", (*budgeted)->last_stats().contacts, ", disturbed ticks=",
      with_budget.solve_us.size() - clean.size(), ", undisturbed solve p99=", Format(p99_us),
      ", check=", pass ? "PASS" : "FAIL", " (undisturbed solve p99 <= budget + one iteration + ",
      Format(kMarginUs), " us, over at least half the ticks), ", kSettleSteps,
      " settling steps, interleaved chunks of ", kChunkSteps, " steps");
  std::fprintf(
      stderr,
      "[%s] %s: undisturbed solve p99 %.1f us (%zu of %zu ticks), limit %.1f us + margin %.0f us\n",
      kName, pass ? "PASS" : "FAIL", p99_us, clean.size(), with_budget.solve_us.size(), limit_us,
      kMarginUs);
  result.json_lines.push_back(FormatLine(with_budget, notes));
  result.ok = pass;
  return result;
}

// One run, and a second when the first one's check fails.
RunResult Run(const RunOptions& options) {
  RunResult first = RunOnce(options);
  if (first.ok) return first;
  std::fprintf(stderr, "[%s] the check failed: running it once more\n", kName);
  RunResult second = RunOnce(options);
  second.json_lines.insert(second.json_lines.begin(), first.json_lines.begin(),
                           first.json_lines.end());
  return second;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
