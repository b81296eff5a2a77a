#include "server/haptics/datagram/datagram_endpoint.h"

namespace ligature::haptics {

absl::StatusOr<std::string> DatagramSender::Seal(int64_t timestamp_ns, std::string_view payload) {
  DatagramHeader next = header_;
  ++next.sequence;
  absl::StatusOr<std::string> out = SealDatagram(key_, next, timestamp_ns, payload);
  // A failed seal keeps its number unused; a sealed datagram's number is never sealed again.
  if (out.ok()) header_ = next;
  return out;
}

// The cheap checks first (header, session, window), the tag last; only an authentic
// datagram moves the window, so a forged one cannot push genuine ones out.
std::optional<OpenedDatagram> DatagramReceiver::Receive(std::string_view bytes) {
  const absl::StatusOr<DatagramHeader> header = ReadDatagramHeader(bytes);
  if (!header.ok()) {
    ++counts_.malformed;
    return std::nullopt;
  }
  if (header->session != session_ || header->direction != direction_) {
    ++counts_.wrong_session;
    return std::nullopt;
  }
  const ReplayWindow::Verdict verdict = window_.Check(header->sequence);
  absl::StatusOr<OpenedDatagram> opened = OpenDatagram(key_, bytes);
  if (!opened.ok()) {
    ++counts_.forged;
    return std::nullopt;
  }
  window_.Record(header->sequence);
  switch (verdict) {
    case ReplayWindow::Verdict::kReplayed: ++counts_.replayed; return std::nullopt;
    case ReplayWindow::Verdict::kStale: ++counts_.stale; return std::nullopt;
    case ReplayWindow::Verdict::kNewest: break;
  }
  ++counts_.taken;
  return *std::move(opened);
}

}  // namespace ligature::haptics
