#include "server/world/step_counters.h"

#include <algorithm>

namespace ligature {

void StepCounters::Record(const StepStats& stats) {
  ++steps;
  step_ms_sum += stats.step_ms;
  // The first bound at or above the step time; past the end is the unbounded bucket.
  const auto bound =
      std::lower_bound(kBucketBoundsMs.begin(), kBucketBoundsMs.end(), stats.step_ms);
  ++bucket_steps[bound - kBucketBoundsMs.begin()];
  recovered_bodies += static_cast<uint64_t>(std::max(0, stats.recovered_bodies));
  if (stats.budget_exhausted) ++budget_exhausted_steps;
}

}  // namespace ligature
