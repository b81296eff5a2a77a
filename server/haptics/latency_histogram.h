#pragma once
// A histogram of durations kept as plain atomics (fixed bucket bounds, a count and a sum),
// so the haptic threads can record into it without locks and without knowing how it is
// published; the metrics module reads it at each scrape.

#include <array>
#include <atomic>
#include <cstdint>

namespace ligature::haptics {

class LatencyHistogram {
 public:
  // Upper bounds of the buckets, in microseconds; durations above the last one are counted
  // only in the total. Chosen around a 1 kHz device period.
  static constexpr std::array<double, 12> kBoundsUs = {10,  25,  50,   100,  250,  500,
                                                       1000, 2000, 5000, 10000, 50000, 250000};

  // Adds one duration (negative ones count as zero).
  void Record(int64_t ns) {
    if (ns < 0) ns = 0;
    const double us = static_cast<double>(ns) * 1e-3;
    for (size_t i = 0; i < kBoundsUs.size(); ++i) {
      if (us <= kBoundsUs[i]) {
        buckets_[i].fetch_add(1, std::memory_order_relaxed);
        break;
      }
    }
    sum_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
  }

  // Samples in bucket i alone (not cumulative).
  uint64_t bucket(size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum_seconds() const {
    return static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) * 1e-9;
  }

 private:
  std::array<std::atomic<uint64_t>, kBoundsUs.size()> buckets_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_ns_{0};
};

}  // namespace ligature::haptics
