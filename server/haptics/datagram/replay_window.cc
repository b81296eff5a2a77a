#include "server/haptics/datagram/replay_window.h"

namespace ligature::haptics {

ReplayWindow::Verdict ReplayWindow::Check(uint64_t sequence) const {
  if (sequence > newest_) return Verdict::kNewest;
  const uint64_t age = newest_ - sequence;
  if (age >= kWidth) return Verdict::kStale;  // beyond the window: cannot tell, never applied
  return (seen_ >> age) & 1 ? Verdict::kReplayed : Verdict::kStale;
}

void ReplayWindow::Record(uint64_t sequence) {
  if (sequence > newest_) {
    const uint64_t shift = sequence - newest_;
    seen_ = shift >= kWidth ? 0 : seen_ << shift;
    seen_ |= 1;
    newest_ = sequence;
    return;
  }
  const uint64_t age = newest_ - sequence;
  if (age < kWidth) seen_ |= uint64_t{1} << age;
}

}  // namespace ligature::haptics
