#pragma once
// Inter-arrival jitter of one pose stream: how much the gap between two poses differs from
// the gap before it, |(t_i - t_{i-1}) - (t_{i-1} - t_{i-2})|. A steady device at any rate
// has zero jitter; one late pose shows up twice (late, then early by as much).

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace ligature::haptics {

class ArrivalJitter {
 public:
  // Takes the arrival time of the next pose; returns its jitter once two gaps are known.
  std::optional<int64_t> OnArrival(int64_t arrival_ns) {
    std::optional<int64_t> jitter;
    if (arrivals_ >= 1) {
      const int64_t gap = arrival_ns - last_arrival_ns_;
      if (arrivals_ >= 2) jitter = std::llabs(gap - last_gap_ns_);
      last_gap_ns_ = gap;
    }
    last_arrival_ns_ = arrival_ns;
    if (arrivals_ < 2) ++arrivals_;
    return jitter;
  }

 private:
  int arrivals_ = 0;  // saturates at 2
  int64_t last_arrival_ns_ = 0;
  int64_t last_gap_ns_ = 0;
};

}  // namespace ligature::haptics
