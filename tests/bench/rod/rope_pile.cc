// rod/rope_pile: what rod-rod contact costs. Eight 0.6 m ropes (30 control points each)
// dropped crosswise, 1 cm apart in height, onto a taut 1 m rope (40 control points) pinned
// at both ends, dt = 2 ms; all with rod contact, so the pile comes to rest on the taut rope
// and on itself. The same scene without rod contact (the ropes pass through each other)
// is timed interleaved with it as the "peer": ratio is the cost factor of rod contact.
// The notes give the contact count, active-set rounds and the smallest surface gap seen.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/world/rod/rod_world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "rod/rope_pile";
constexpr double kDt = 0.002;
constexpr int kDrops = 8;
constexpr int kSettleSteps = 400;
constexpr int kTimedSteps = 1000;
constexpr int kQuickTimedSteps = 200;
constexpr int kChunkSteps = 100;
constexpr double kRadius = 0.001;
const Vec3 kGravity(0.0, -9.81, 0.0);

using Clock = std::chrono::steady_clock;

RodDesc Rope(const std::string& id, const Vec3& a, const Vec3& b, int points, bool contact) {
  RodDesc d;
  d.id = id;
  d.points = {a, b};
  d.control_points = points;
  d.material.radius = kRadius;
  d.material.young = 1.0e9;
  d.material.damping = 2.0;
  d.rod_contact = contact;
  return d;
}

RodConstraintDesc Hold(const std::string& id, double u, const Vec3& target) {
  RodConstraintDesc c;
  c.id = id;
  c.kind = RodConstraintKind::kPosition;
  c.a = {"taut", u};
  c.target = target;
  return c;
}

// The scene, with or without rod contact.
class Pile {
 public:
  explicit Pile(bool contact) {
    ok_ = world_.AddRod(Rope("taut", Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0), 40, contact)).ok() &&
          world_.AddConstraint(Hold("left", 0.0, Vec3(-0.501, 0, 0))).ok() &&
          world_.AddConstraint(Hold("right", 1.0, Vec3(0.501, 0, 0))).ok();
    for (int k = 0; k < kDrops; ++k) {
      // Alternately along z and along a diagonal, each 1 cm above the last.
      const double y = 0.02 + 0.01 * k;
      const double x = -0.2 + 0.05 * k;
      const Vec3 half = k % 2 == 0 ? Vec3(0, 0, 0.3) : Vec3(0.2, 0, 0.22);
      ok_ = ok_ && world_.AddRod(Rope(absl::StrCat("drop", k), Vec3(x, y, 0) - half,
                                      Vec3(x, y, 0) + half, 30, contact)).ok();
    }
  }
  bool ok() const { return ok_; }
  void Step() {
    world_.Step(kDt, kGravity, nullptr);
    contacts_ += world_.last_stats().rod_contacts;
    rounds_ += world_.last_stats().active_set_rounds;
    failed_ += world_.last_stats().solve_failed ? 1 : 0;
    ++steps_;
    for (const RodPairContact& c : world_.rod_contacts()) gap_ = std::min(gap_, c.distance);
  }
  double contacts_per_step() const { return steps_ ? double(contacts_) / steps_ : 0.0; }
  double rounds_per_step() const { return steps_ ? double(rounds_) / steps_ : 0.0; }
  double smallest_gap() const { return gap_; }
  int failed() const { return failed_; }
  int unknowns() const { return world_.last_stats().unknowns; }

 private:
  RodWorld world_;
  bool ok_ = false;
  long long contacts_ = 0, rounds_ = 0;
  int steps_ = 0, failed_ = 0;
  double gap_ = std::numeric_limits<double>::infinity();
};

void TimeChunk(Pile& pile, int steps, std::vector<double>* ms) {
  for (int i = 0; i < steps; ++i) {
    const Clock::time_point t0 = Clock::now();
    pile.Step();
    ms->push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
}

RunResult Run(const RunOptions& options) {
  const Clock::time_point start = Clock::now();
  RunResult result;
  Pile with(true), without(false);
  if (!with.ok() || !without.ok()) {
    JsonLine line;
    line.String("bench", kName).String("metric", "step_ms").String("notes", "scene failed");
    result.json_lines.push_back(line.Finish());
    result.ok = false;
    return result;
  }
  std::fprintf(stderr, "[%s] settling %d steps on 2 sides\n", kName, kSettleSteps);
  for (int i = 0; i < kSettleSteps; ++i) {
    with.Step();
    without.Step();
  }
  const int target = options.quick ? kQuickTimedSteps : kTimedSteps;
  std::vector<double> ours, peer;
  while (static_cast<int>(ours.size()) < target) {
    const int chunk = std::min(kChunkSteps, target - static_cast<int>(ours.size()));
    TimeChunk(with, chunk, &ours);
    TimeChunk(without, chunk, &peer);
    if (options.quick &&
        std::chrono::duration<double>(Clock::now() - start).count() > options.quick_budget_s) {
      break;
    }
  }
  const double ratio = Median(ours) / Median(peer);
  JsonLine line;
  line.String("bench", kName)
      .String("metric", "step_ms")
      .Number("median", Median(ours))
      .Number("p99", Percentile(ours, 99.0))
      .Integer("n", static_cast<long long>(ours.size()))
      .Number("paper", std::nullopt)
      .String("peer", "ligature-without-rod-contact")
      .Number("peer_median", Median(peer))
      .Number("ratio", ratio)
      .String("notes",
              absl::StrCat("dt=", kDt, ", ropes=", kDrops + 1, ", unknowns=", with.unknowns(),
                           ", rod_contacts_per_step=", with.contacts_per_step(),
                           ", active_set_rounds_per_step=", with.rounds_per_step(),
                           ", smallest_gap_m=", with.smallest_gap(),
                           ", failed_steps=", with.failed(),
                           ", peer_failed_steps=", without.failed()));
  std::fprintf(stderr, "[%s] with rod contact %.4g ms, without %.4g ms (x%.3g)\n", kName,
               Median(ours), Median(peer), ratio);
  result.json_lines.push_back(line.Finish());
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
