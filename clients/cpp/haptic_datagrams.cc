#include "clients/cpp/haptic_datagrams.h"

#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "server/haptics/clock.h"

namespace ligature::client {

absl::StatusOr<std::unique_ptr<HapticDatagramLink>> HapticDatagramLink::Connect(
    const std::string& host, const v1::HapticDatagramOffer& offer) {
  if (offer.port() == 0 || offer.port() > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("opened.datagrams.port: ", offer.port(), " is not a UDP port"));
  }
  if (offer.key().size() != haptics::kSessionKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("opened.datagrams.key: ", haptics::kSessionKeyBytes, " bytes expected, got ",
                     offer.key().size()));
  }
  if (offer.session() == 0) {
    return absl::InvalidArgumentError("opened.datagrams.session: must not be zero");
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const std::string service = absl::StrCat(offer.port());
  if (int e = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); e != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("datagram_host: cannot resolve '", host, "': ", gai_strerror(e)));
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("datagram_host: cannot reach ", host, ":", offer.port(), " (UDP)"));
  }
  haptics::SessionKey key;
  std::memcpy(key.data(), offer.key().data(), key.size());
  return std::unique_ptr<HapticDatagramLink>(new HapticDatagramLink(fd, key, offer.session()));
}

HapticDatagramLink::HapticDatagramLink(int fd, const haptics::SessionKey& key, uint32_t session)
    : fd_(fd),
      sender_(key, session, haptics::Direction::kToServer),
      receiver_(key, session, haptics::Direction::kToClient) {}

HapticDatagramLink::~HapticDatagramLink() { close(fd_); }

bool HapticDatagramLink::Send(const v1::HapticDatagram& datagram, int copies) {
  const std::string payload = datagram.SerializeAsString();
  // Every copy is tried: one refused (a full buffer, a firewall) says nothing of the next.
  int sent = 0;
  for (int copy = 0; copy < copies; ++copy) {
    absl::StatusOr<std::string> sealed = sender_.Seal(haptics::MonotonicNanos(), payload);
    if (sealed.ok() && send(fd_, sealed->data(), sealed->size(), MSG_DONTWAIT) ==
                           static_cast<ssize_t>(sealed->size())) {
      ++sent;
    }
  }
  return sent == copies;
}

// Polls the socket until `spin_until`, then sleeps in ppoll (nanosecond timeouts: a device
// period is about a millisecond). Arming a timer for a sleep costs tens of microseconds of
// wake-up on some virtual machines, more than a reply on loopback takes to come.
std::optional<v1::HapticDatagram> HapticDatagramLink::Receive(double deadline, double spin_until) {
  std::array<char, 2048> buffer;
  while (true) {
    const ssize_t n = recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (n >= 0) {
      std::optional<haptics::OpenedDatagram> opened =
          receiver_.Receive(std::string_view(buffer.data(), static_cast<size_t>(n)));
      v1::HapticDatagram datagram;
      if (opened && datagram.ParseFromString(opened->payload)) return datagram;
      continue;
    }
    const double now = haptics::MonotonicSeconds();
    const double wait = deadline - now;
    if (wait <= 0.0) return std::nullopt;
    if (now < spin_until) {
      sched_yield();  // a thread this one woke (the server's, on loopback) may need the core
      continue;
    }
    timespec timeout;
    timeout.tv_sec = static_cast<time_t>(wait);
    timeout.tv_nsec = static_cast<long>((wait - std::floor(wait)) * 1e9);
    pollfd fds = {fd_, POLLIN, 0};
    ppoll(&fds, 1, &timeout, nullptr);
  }
}

}  // namespace ligature::client
