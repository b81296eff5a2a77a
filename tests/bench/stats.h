#pragma once
// Order statistics over timing samples: the median and the p-th percentile.

#include <vector>

namespace ligature::bench {

// Median of `samples` (mean of the two middle values when the count is even).
// Returns NaN for an empty input.
double Median(std::vector<double> samples);

// The p-th percentile (0 <= p <= 100) of `samples`, interpolating linearly between the
// two closest ranks (the common "type 7" definition). Returns NaN for an empty input.
double Percentile(std::vector<double> samples, double p);

}  // namespace ligature::bench
