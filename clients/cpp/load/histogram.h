#pragma once
// A latency histogram with logarithmic buckets (2% wide, 1 us to about 400 s): constant
// memory however long a run is, percentiles within 2%.

#include <array>
#include <cmath>
#include <cstdint>

namespace ligature::load {

class Histogram {
 public:
  void Add(double seconds) {
    ++count_;
    if (seconds > max_) max_ = seconds;
    ++buckets_[Bucket(seconds)];
  }
  void Merge(const Histogram& other) {
    count_ += other.count_;
    if (other.max_ > max_) max_ = other.max_;
    for (size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  }
  int64_t count() const { return count_; }
  double max() const { return max_; }
  // The q-quantile (q in [0, 1]), in seconds: the upper edge of the bucket holding it.
  double Quantile(double q) const {
    if (count_ == 0) return 0.0;
    const int64_t rank = static_cast<int64_t>(std::ceil(q * count_));
    int64_t seen = 0;
    for (size_t i = 0; i < buckets_.size(); ++i) {
      seen += buckets_[i];
      if (seen >= rank && seen > 0) return std::min(kMin * std::pow(kRatio, i + 1.0), max_);
    }
    return max_;
  }

 private:
  static constexpr double kMin = 1e-6;
  static constexpr double kRatio = 1.02;
  static size_t Bucket(double seconds) {
    if (!(seconds > kMin)) return 0;
    const double i = std::log(seconds / kMin) / std::log(kRatio);
    return i >= kBuckets - 1 ? kBuckets - 1 : static_cast<size_t>(i);
  }
  static constexpr size_t kBuckets = 1000;
  std::array<int64_t, kBuckets> buckets_{};
  int64_t count_ = 0;
  double max_ = 0.0;
};

}  // namespace ligature::load
