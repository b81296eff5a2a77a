#pragma once
// The monotonic clock every haptic time stamp is read from (seconds since an arbitrary
// origin): models' publication, pose arrival, watchdog deadlines.

#include <chrono>
#include <cstdint>

namespace ligature::haptics {

inline double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ligature::haptics
