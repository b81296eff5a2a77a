#include "tests/bench/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/bench/json_line.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One engine's scene plus the per-step times measured on it.
struct Side {
  std::string label;
  std::unique_ptr<SteppedScene> scene;
  std::string error;            // why the scene could not be built; empty when it was
  std::vector<double> step_ms;  // one sample per timed step
  double settle_s = 0.0;

  bool ready() const { return scene != nullptr; }
};

Side BuildSide(std::string label, const SceneFactory& factory) {
  Side side;
  side.label = std::move(label);
  absl::StatusOr<std::unique_ptr<SteppedScene>> scene = factory();
  if (!scene.ok()) {
    side.error = std::string(scene.status().message());
  } else if (*scene == nullptr) {
    side.error = "factory returned no scene";
  } else {
    side.scene = *std::move(scene);
  }
  return side;
}

// Untimed steps that let the scene reach the state we want to measure (a settled pile).
void Settle(Side& side, int steps) {
  if (!side.ready()) return;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < steps; ++i) side.scene->Step();
  side.settle_s = SecondsSince(start);
}

// Times `steps` consecutive steps, one clock sample around each.
void TimeChunk(Side& side, int steps) {
  for (int i = 0; i < steps; ++i) {
    const Clock::time_point t0 = Clock::now();
    side.scene->Step();
    const Clock::time_point t1 = Clock::now();
    side.step_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
}

std::string FormatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", ms);
  return buf;
}

// The free-text notes field: contact counts, the protocol, the peer's tail and any failure.
std::string BuildNotes(const StepBench& bench, const Side& ours, const Side* peer,
                       int settle_steps, bool budget_hit) {
  auto contacts = [](const Side& side) {
    return side.ready() ? std::to_string(side.scene->Contacts()) : std::string("n/a");
  };
  std::string notes = "contacts ours=" + contacts(ours);
  if (peer != nullptr) {
    notes += " peer=" + contacts(*peer);
    notes += ", interleaved chunks of " + std::to_string(bench.chunk_steps) + " steps";
  }
  notes += ", " + std::to_string(settle_steps) + " settling steps";
  if (!bench.setup.empty()) notes += ", " + bench.setup;
  if (peer != nullptr && peer->ready() && !peer->step_ms.empty()) {
    notes += ", peer p99=" + FormatMs(Percentile(peer->step_ms, 99.0)) + " ms n=" +
             std::to_string(peer->step_ms.size());
  }
  if (ours.ready()) {
    const std::string extra = ours.scene->Notes();
    if (!extra.empty()) notes += ", ours " + extra;
  }
  if (peer != nullptr && peer->ready()) {
    const std::string extra = peer->scene->Notes();
    if (!extra.empty()) notes += ", peer " + extra;
  }
  if (budget_hit) notes += ", stopped early at the quick time budget";
  if (!ours.error.empty()) notes += ", ours failed: " + ours.error;
  if (peer != nullptr && !peer->error.empty()) notes += ", peer failed: " + peer->error;
  if (bench.paper && !bench.paper_source.empty()) notes += ", paper: " + bench.paper_source;
  return notes;
}

}  // namespace

RunResult RunStepBench(const StepBench& bench, const RunOptions& options) {
  const Clock::time_point start = Clock::now();
  const bool has_peer = static_cast<bool>(bench.peer);
  const int target = options.quick ? bench.quick_timed_steps : bench.timed_steps;
  const int chunk = std::max(1, bench.chunk_steps);

  // Build both sides, then settle both before any timing.
  Side ours = BuildSide("ours", bench.ours);
  std::optional<Side> peer;
  if (has_peer) peer = BuildSide(bench.peer_name, bench.peer);
  std::fprintf(stderr, "[%s] settling %d steps\n", bench.name.c_str(), bench.settle_steps);
  Settle(ours, bench.settle_steps);
  if (peer) Settle(*peer, bench.settle_steps);

  // Alternate chunks, ours then peer, so machine noise lands on both sides alike.
  std::vector<Side*> sides = {&ours};
  if (peer) sides.push_back(&*peer);
  bool budget_hit = false;
  for (;;) {
    bool stepped = false;
    for (Side* side : sides) {
      const int remaining = target - static_cast<int>(side->step_ms.size());
      if (!side->ready() || remaining <= 0) continue;
      TimeChunk(*side, std::min(chunk, remaining));
      stepped = true;
    }
    if (!stepped) break;
    if (options.quick && SecondsSince(start) > options.quick_budget_s) {
      budget_hit = true;
      break;
    }
  }

  // Summaries on stderr; the single result line goes back to the caller for stdout.
  for (const Side* side : sides) {
    if (!side->ready()) {
      std::fprintf(stderr, "[%s] %s failed: %s\n", bench.name.c_str(), side->label.c_str(),
                   side->error.c_str());
      continue;
    }
    std::fprintf(stderr, "[%s] %s: settle %.2f s, median %s ms, p99 %s ms, n %zu, contacts %d\n",
                 bench.name.c_str(), side->label.c_str(), side->settle_s,
                 FormatMs(Median(side->step_ms)).c_str(),
                 FormatMs(Percentile(side->step_ms, 99.0)).c_str(), side->step_ms.size(),
                 side->scene->Contacts());
  }

  std::optional<double> ours_median, ours_p99, peer_median, ratio;
  if (!ours.step_ms.empty()) {
    ours_median = Median(ours.step_ms);
    ours_p99 = Percentile(ours.step_ms, 99.0);
  }
  if (peer && !peer->step_ms.empty()) peer_median = Median(peer->step_ms);
  if (ours_median && peer_median && *peer_median > 0.0) ratio = *ours_median / *peer_median;

  JsonLine line;
  line.String("bench", bench.name)
      .String("metric", bench.metric)
      .Number("median", ours_median)
      .Number("p99", ours_p99)
      .Integer("n", static_cast<long long>(ours.step_ms.size()))
      .Number("paper", bench.paper)
      .String("peer", has_peer ? std::optional<std::string>(bench.peer_name) : std::nullopt)
      .Number("peer_median", peer_median)
      .Number("ratio", ratio)
      .String("notes", BuildNotes(bench, ours, peer ? &*peer : nullptr, bench.settle_steps,
                                  budget_hit));

  RunResult result;
  result.json_line = line.Finish();
  result.ok = ours.ready() && (!peer || peer->ready());
  return result;
}

}  // namespace ligature::bench
