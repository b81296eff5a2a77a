#pragma once
// The client's end of a haptic session's datagram channel: a UDP socket connected to the
// server's datagram port, sealing what it sends towards the server and taking from the
// server only what is authentic and newest (see HapticDatagramOffer).

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/haptics_service.pb.h"
#include "server/haptics/datagram/datagram_endpoint.h"

namespace ligature::client {

class HapticDatagramLink {
 public:
  // Checks `offer` (INVALID_ARGUMENT naming the field: opened.datagrams.port, .key or
  // .session) and connects to its port on `host` (INVALID_ARGUMENT naming datagram_host
  // when it does not resolve).
  static absl::StatusOr<std::unique_ptr<HapticDatagramLink>> Connect(
      const std::string& host, const v1::HapticDatagramOffer& offer);
  ~HapticDatagramLink();

  // Seals and sends `copies` copies of one datagram, each sealed apart; false when one could
  // not be sent.
  bool Send(const v1::HapticDatagram& datagram, int copies = 1);
  // The next authentic, newest datagram from the server that arrives before `deadline`
  // (monotonic seconds; a past deadline only takes what has arrived); nothing by then.
  // Until `spin_until` it polls the socket without sleeping.
  std::optional<v1::HapticDatagram> Receive(double deadline, double spin_until = 0.0);
  const haptics::DatagramCounts& counts() const { return receiver_.counts(); }

 private:
  HapticDatagramLink(int fd, const haptics::SessionKey& key, uint32_t session);
  int fd_;
  haptics::DatagramSender sender_;
  haptics::DatagramReceiver receiver_;
};

}  // namespace ligature::client
