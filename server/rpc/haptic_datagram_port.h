#pragma once
// The server's UDP port for haptic datagrams: one socket and one receive thread for every
// session. A session registers a handler and gets a fresh key and a session number to offer
// its client; the receive thread opens each datagram with its session's key and replay
// window and hands the handler only what is authentic and newest, with the address it came
// from. Replies are sealed by the session (its own sequence) and sent through Send.
//
// Threading: `mu_` guards the registry and the sessions' receivers, and is held while a
// handler runs, so that once Unregister returns no call to that handler is in flight.
// Handlers take their own locks after `mu_` (never the other way round) and must not call
// Register or Unregister. Send touches only the socket and may be called from any thread.

#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ligature/v1/haptics_service.pb.h"
#include "server/haptics/datagram/datagram_endpoint.h"
#include "server/rpc/session_counters.h"

namespace ligature {

// Where a datagram came from, and where its replies go.
struct DatagramPeer {
  sockaddr_storage address{};
  socklen_t length = 0;
};

class HapticDatagramPort {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // One authentic datagram, newer than every one before it in this session.
    virtual void OnDatagram(const v1::HapticDatagram& datagram, int64_t received_ns,
                            const DatagramPeer& from) = 0;
  };

  // Binds UDP on `host` (a numeric address or a name; empty: every interface) and `port`
  // (0: any free port) and starts the receive thread, which counts into `counters`.
  // UNAVAILABLE naming the address when it cannot bind.
  static absl::StatusOr<std::unique_ptr<HapticDatagramPort>> Start(const std::string& host,
                                                                   int port,
                                                                   DatagramCounters* counters);
  ~HapticDatagramPort();

  int port() const { return port_; }

  // A new session for `handler`: its number and key, ready for the offer.
  struct Session {
    uint32_t number = 0;
    haptics::SessionKey key{};
  };
  absl::StatusOr<Session> Register(Handler* handler) ABSL_LOCKS_EXCLUDED(mu_);
  // After this returns the handler is never called again.
  void Unregister(uint32_t session) ABSL_LOCKS_EXCLUDED(mu_);

  // Sends one sealed datagram to `to`; counted when the socket refuses it (a full buffer).
  void Send(const DatagramPeer& to, std::string_view bytes) const;
  // A reply that could not go out before the socket (sealing it failed): counted with the
  // replies the socket refused.
  void CountSendFailure() const {
    counters_->send_failures.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  struct Entry {
    Handler* handler;
    haptics::DatagramReceiver receiver;
  };
  HapticDatagramPort() = default;
  void ReceiveLoop() ABSL_LOCKS_EXCLUDED(mu_);
  void Dispatch(std::string_view bytes, int64_t received_ns, const DatagramPeer& from)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Counts what a session's receiver did with one datagram, from its counts before.
  void CountReceived(const haptics::DatagramCounts& before,
                     const haptics::DatagramCounts& after) const;

  int fd_ = -1;
  std::atomic<bool> stopping_{false};  // the receive thread ends
  int port_ = 0;
  DatagramCounters* counters_ = nullptr;
  std::thread receiver_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<uint32_t, std::unique_ptr<Entry>> sessions_ ABSL_GUARDED_BY(mu_);
  uint32_t next_session_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace ligature
