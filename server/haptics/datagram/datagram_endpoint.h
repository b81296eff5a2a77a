#pragma once
// One end of a session's datagram channel: the sender numbers and seals what it sends in
// its direction; the receiver takes from the other direction only what is authentic, of its
// session, and newer than everything it took before, and counts what it drops and why.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/haptics/datagram/replay_window.h"
#include "server/haptics/datagram/sealed_datagram.h"

namespace ligature::haptics {

class DatagramSender {
 public:
  DatagramSender(const SessionKey& key, uint32_t session, Direction direction)
      : key_(key), header_{direction, session, 0} {}
  // The next datagram, stamped `timestamp_ns`: INVALID_ARGUMENT for a payload too long.
  absl::StatusOr<std::string> Seal(int64_t timestamp_ns, std::string_view payload);
  uint64_t sent() const { return header_.sequence; }

 private:
  AeadKey key_;
  DatagramHeader header_;
};

// Why datagrams were dropped, and how many were taken.
struct DatagramCounts {
  uint64_t taken = 0;
  uint64_t malformed = 0;      // too short or long, another version, a bad header field
  uint64_t wrong_session = 0;  // another session's, or sent in the receiver's own direction
  uint64_t forged = 0;         // its tag does not verify (changed, or another key's)
  uint64_t replayed = 0;       // an authentic datagram taken or seen before
  uint64_t stale = 0;          // older than the newest taken
};

class DatagramReceiver {
 public:
  // Receives datagrams sent towards `direction` in session `session`.
  DatagramReceiver(const SessionKey& key, uint32_t session, Direction direction)
      : key_(key), session_(session), direction_(direction) {}
  // The datagram when it is taken; nothing (counted) when it is dropped.
  std::optional<OpenedDatagram> Receive(std::string_view bytes);
  const DatagramCounts& counts() const { return counts_; }

 private:
  AeadKey key_;
  uint32_t session_;
  Direction direction_;
  ReplayWindow window_;
  DatagramCounts counts_;
};

}  // namespace ligature::haptics
