#include "server/rpc/haptic_datagram_port.h"

#include <netdb.h>
#include <unistd.h>

#include <array>
#include <random>

#include "absl/strings/str_cat.h"
#include "server/haptics/clock.h"

namespace ligature {

absl::StatusOr<std::unique_ptr<HapticDatagramPort>> HapticDatagramPort::Start(
    const std::string& host, int port, DatagramCounters* counters) {
  const std::string where = absl::StrCat(host.empty() ? "*" : host, ":", port, " (UDP)");
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("haptic datagram port ", port, ": not in [0, 65535]"));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = absl::StrCat(port);
  if (int e = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
      e != 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", where, ": ", gai_strerror(e)));
  }
  std::unique_ptr<HapticDatagramPort> out(new HapticDatagramPort());
  out->counters_ = counters;
  for (addrinfo* a = found; a != nullptr && out->fd_ < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0) {
      out->fd_ = fd;
    } else {
      close(fd);
    }
  }
  freeaddrinfo(found);
  if (out->fd_ < 0) return absl::UnavailableError(absl::StrCat("cannot listen on ", where));
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(out->fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  out->port_ =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  // Session numbers start at a random point, so that a restarted server's numbers do not
  // repeat its last run's (a stale client's datagrams then name no session).
  {
    absl::MutexLock lock(&out->mu_);
    out->next_session_ = std::random_device()();
  }
  out->receiver_ = std::thread([raw = out.get()] { raw->ReceiveLoop(); });
  return out;
}

HapticDatagramPort::~HapticDatagramPort() {
  if (receiver_.joinable()) {
    stopping_.store(true);
    shutdown(fd_, SHUT_RDWR);
    receiver_.join();
  }
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<HapticDatagramPort::Session> HapticDatagramPort::Register(Handler* handler) {
  absl::StatusOr<haptics::SessionKey> key = haptics::NewSessionKey();
  if (!key.ok()) return key.status();
  absl::MutexLock lock(&mu_);
  uint32_t number = ++next_session_;
  while (number == 0 || sessions_.contains(number)) number = ++next_session_;
  sessions_.emplace(
      number,
      std::make_unique<Entry>(
          Entry{handler, haptics::DatagramReceiver(*key, number, haptics::Direction::kToServer)}));
  return Session{number, *key};
}

void HapticDatagramPort::Unregister(uint32_t session) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  sessions_.erase(it);
}

void HapticDatagramPort::Send(const DatagramPeer& to, std::string_view bytes) const {
  if (sendto(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT,
             reinterpret_cast<const sockaddr*>(&to.address),
             to.length) != static_cast<ssize_t>(bytes.size())) {
    counters_->send_failures.fetch_add(1, std::memory_order_relaxed);
  }
}

// Blocks in recvfrom, as a plain echo would: shutting the socket down (the destructor)
// wakes it with nothing.
void HapticDatagramPort::ReceiveLoop() {
  std::array<char, 2048> buffer;
  while (!stopping_.load(std::memory_order_relaxed)) {
    DatagramPeer from;
    from.length = sizeof(from.address);
    const ssize_t n = recvfrom(fd_, buffer.data(), buffer.size(), 0,
                               reinterpret_cast<sockaddr*>(&from.address), &from.length);
    if (n <= 0) continue;  // EINTR, a queued error (ICMP), or the shutdown
    Dispatch(std::string_view(buffer.data(), static_cast<size_t>(n)), haptics::MonotonicNanos(),
             from);
  }
}

// Header first (to find the session), then the session's receiver (tag and window), then
// the payload; the handler runs under `mu_` (see the header).
void HapticDatagramPort::Dispatch(std::string_view bytes, int64_t received_ns,
                                  const DatagramPeer& from) {
  absl::MutexLock lock(&mu_);
  const absl::StatusOr<haptics::DatagramHeader> header = haptics::ReadDatagramHeader(bytes);
  if (!header.ok()) {
    counters_->malformed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto it = sessions_.find(header->session);
  if (it == sessions_.end()) {
    counters_->unknown_session.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  haptics::DatagramReceiver& receiver = it->second->receiver;
  const haptics::DatagramCounts before = receiver.counts();
  std::optional<haptics::OpenedDatagram> opened = receiver.Receive(bytes);
  CountReceived(before, receiver.counts());
  if (!opened) return;
  v1::HapticDatagram datagram;
  if (!datagram.ParseFromString(opened->payload) || datagram.has_force() ||
      datagram.kind_case() == v1::HapticDatagram::KIND_NOT_SET) {
    counters_->bad_payload.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  it->second->handler->OnDatagram(datagram, received_ns, from);
}

void HapticDatagramPort::CountReceived(const haptics::DatagramCounts& before,
                                       const haptics::DatagramCounts& after) const {
  const auto add = [](std::atomic<uint64_t>& to, uint64_t was, uint64_t is) {
    if (is != was) to.fetch_add(is - was, std::memory_order_relaxed);
  };
  add(counters_->taken, before.taken, after.taken);
  // The port found the session by its number: a mismatch can only be the direction.
  add(counters_->malformed, before.malformed + before.wrong_session,
      after.malformed + after.wrong_session);
  add(counters_->forged, before.forged, after.forged);
  add(counters_->replayed, before.replayed, after.replayed);
  add(counters_->stale, before.stale, after.stale);
}

}  // namespace ligature
