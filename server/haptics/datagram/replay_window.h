#pragma once
// Which sequence numbers of one direction of a session have arrived: the newest, and a
// bitmap of the 64 before it (the sliding window of IPsec's anti-replay check). Only the
// newest datagram of a haptic stream is applied, so a number is either the newest yet
// (taken), one seen before (a replay), or older than the newest and not seen (late, or
// beyond the window): stale.

#include <cstdint>

namespace ligature::haptics {

class ReplayWindow {
 public:
  enum class Verdict { kNewest, kStale, kReplayed };
  static constexpr uint64_t kWidth = 64;

  // What sequence number `sequence` (>= 1) would be, without recording it: the check runs
  // before a datagram is authenticated, and only an authentic one is recorded.
  Verdict Check(uint64_t sequence) const;
  // Records an authentic datagram's sequence number; the window slides when it is the
  // newest.
  void Record(uint64_t sequence);
  uint64_t newest() const { return newest_; }

 private:
  uint64_t newest_ = 0;  // 0: nothing yet
  uint64_t seen_ = 0;    // bit k: newest_ - k arrived (bit 0 is the newest itself)
};

}  // namespace ligature::haptics
