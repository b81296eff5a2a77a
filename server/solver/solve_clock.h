#pragma once
// The time budget of one solve: started on construction, checked between iterations.

#include <chrono>

namespace ligature {

class SolveClock {
 public:
  // budget_us <= 0: no budget, never expires.
  explicit SolveClock(double budget_us)
      : start_(std::chrono::steady_clock::now()), budget_us_(budget_us) {}

  bool Expired() const {
    if (budget_us_ <= 0.0) return false;
    return ElapsedUs() >= budget_us_;
  }
  double ElapsedUs() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
  double budget_us_;
};

}  // namespace ligature
