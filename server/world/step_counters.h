#pragma once
// Running totals of a world's steps, for monitoring: how many steps, how long they took (a
// fixed-bucket histogram of wall times) and what the step had to give up (bodies held in
// place after a non-finite state, solves cut short by the time budget). Plain data: the
// World records each step here, its host copies the totals out with each publication, and
// the metrics module reads them there. Nothing here knows how they are published.

#include <array>
#include <cstdint>

#include "server/world/frame.h"

namespace ligature {

struct StepCounters {
  // Upper bounds of the step-time buckets (ms); a last, unbounded bucket follows.
  static constexpr std::array<double, 14> kBucketBoundsMs = {
      0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0};

  uint64_t steps = 0;
  double step_ms_sum = 0.0;
  // Steps per bucket (not cumulative): [i] counts step_ms in (bound[i-1], bound[i]]; the
  // last entry counts the steps longer than every bound.
  std::array<uint64_t, kBucketBoundsMs.size() + 1> bucket_steps{};
  uint64_t recovered_bodies = 0;  // summed over steps
  uint64_t budget_exhausted_steps = 0;
  uint64_t divergences = 0;      // steps that diverged and were rolled back
  uint64_t withheld_frames = 0;  // frames not published for holding a non-finite value

  // Adds one step's figures.
  void Record(const StepStats& stats);
};

}  // namespace ligature
