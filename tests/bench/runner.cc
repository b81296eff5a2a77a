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

Side BuildSide(const SideSpec& spec) {
  Side side;
  side.label = spec.label;
  absl::StatusOr<std::unique_ptr<SteppedScene>> scene = spec.factory();
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
  side.scene->ResetSummary();
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

std::string ContactsOf(const Side& side) {
  return side.ready() ? std::to_string(side.scene->Contacts()) : std::string("n/a");
}

// The free-text notes of one line (one variant of ours against one peer or none): our
// side's own facts first, then contacts, the scene, the peer's tail, the protocol and any
// failure.
std::string BuildNotes(const StepBench& bench, const Side& ours, const Side* peer, int sides,
                       bool budget_hit) {
  std::string notes;
  auto add = [&notes](const std::string& part) {
    if (part.empty()) return;
    if (!notes.empty()) notes += ", ";
    notes += part;
  };
  if (ours.ready()) add(ours.scene->Notes());
  add("contacts ours=" + ContactsOf(ours) + (peer ? " peer=" + ContactsOf(*peer) : ""));
  add(bench.setup);
  if (peer != nullptr && peer->ready() && !peer->step_ms.empty()) {
    add("peer p99=" + FormatMs(Percentile(peer->step_ms, 99.0)) +
        " ms n=" + std::to_string(peer->step_ms.size()));
  }
  if (peer != nullptr && peer->ready()) add(peer->scene->Notes());
  add("interleaved chunks of " + std::to_string(bench.chunk_steps) + " steps over " +
      std::to_string(sides) + " sides, " + std::to_string(bench.settle_steps) + " settling steps");
  if (budget_hit) add("stopped early at the quick time budget");
  if (!ours.error.empty()) add("ours failed: " + ours.error);
  if (peer != nullptr && !peer->error.empty()) add("peer failed: " + peer->error);
  if (bench.paper && !bench.paper_source.empty()) add("paper: " + bench.paper_source);
  return notes;
}

// One result line: `ours` against `peer` (or alone when peer is null).
std::string FormatLine(const StepBench& bench, const Side& ours, const Side* peer, int sides,
                       bool budget_hit) {
  std::optional<double> ours_median, ours_p99, peer_median, ratio;
  if (!ours.step_ms.empty()) {
    ours_median = Median(ours.step_ms);
    ours_p99 = Percentile(ours.step_ms, 99.0);
  }
  if (peer != nullptr && !peer->step_ms.empty()) peer_median = Median(peer->step_ms);
  if (ours_median && peer_median && *peer_median > 0.0) ratio = *ours_median / *peer_median;

  JsonLine line;
  line.String("bench", bench.name)
      .String("metric", bench.metric)
      .Number("median", ours_median)
      .Number("p99", ours_p99)
      .Integer("n", static_cast<long long>(ours.step_ms.size()))
      .Number("paper", bench.paper)
      .String("peer", peer ? std::optional<std::string>(peer->label) : std::nullopt)
      .Number("peer_median", peer_median)
      .Number("ratio", ratio);
  // Each side's own figures, ours as named and the peer's with a "peer_" prefix.
  if (ours.ready()) {
    for (const auto& [name, value] : ours.scene->Figures()) line.Number(name, value);
  }
  if (peer != nullptr && peer->ready()) {
    for (const auto& [name, value] : peer->scene->Figures()) line.Number("peer_" + name, value);
  }
  line.String("notes", BuildNotes(bench, ours, peer, sides, budget_hit));
  return line.Finish();
}

}  // namespace

RunResult RunStepBench(const StepBench& bench, const RunOptions& options) {
  const Clock::time_point start = Clock::now();
  const int target = options.quick ? bench.quick_timed_steps : bench.timed_steps;
  const int chunk = std::max(1, bench.chunk_steps);

  // Build every side, then settle them all before any timing.
  std::vector<Side> ours, peers;
  for (const SideSpec& spec : bench.ours) ours.push_back(BuildSide(spec));
  for (const SideSpec& spec : bench.peers) peers.push_back(BuildSide(spec));
  std::vector<Side*> sides;
  for (Side& side : ours) sides.push_back(&side);
  for (Side& side : peers) sides.push_back(&side);
  std::fprintf(stderr, "[%s] settling %d steps on %zu sides\n", bench.name.c_str(),
               bench.settle_steps, sides.size());
  for (Side* side : sides) Settle(*side, bench.settle_steps);

  // Alternate chunks over all sides in a fixed order.
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

  // Summaries on stderr; the result lines go back to the caller for stdout.
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

  // One line per variant of ours and per peer, or per variant alone without peers.
  RunResult result;
  const int count = static_cast<int>(sides.size());
  for (const Side& variant : ours) {
    if (peers.empty()) {
      result.json_lines.push_back(FormatLine(bench, variant, nullptr, count, budget_hit));
    }
    for (const Side& peer : peers) {
      result.json_lines.push_back(FormatLine(bench, variant, &peer, count, budget_hit));
    }
  }
  for (const Side* side : sides) result.ok = result.ok && side->ready();
  return result;
}

}  // namespace ligature::bench
