#include "tests/bench/stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace ligature::bench {

double Median(std::vector<double> samples) { return Percentile(std::move(samples), 50.0); }

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(samples.begin(), samples.end());
  // Fractional rank in [0, n-1]; the value is interpolated between its two neighbours.
  const double clamped = std::clamp(p, 0.0, 100.0);
  const double rank = clamped / 100.0 * static_cast<double>(samples.size() - 1);
  const std::size_t lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, samples.size() - 1);
  const double frac = rank - static_cast<double>(lower);
  return samples[lower] + frac * (samples[upper] - samples[lower]);
}

}  // namespace ligature::bench
