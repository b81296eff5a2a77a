#pragma once
// One Haptics stream as a callback-API reactor. The force for a pose is computed on the
// gRPC thread that delivers it (OnReadDone), from the tool's newest local model, and its
// write is started at once: nothing waits for a world tick. Replies go out in order through
// a small queue (one write in flight at a time). A helper thread serves the watchdog (flagged
// replies ramping the force to zero when poses stop) and, in remote mode, forwards each
// new local model. Closing the stream (or any end) detaches the tool from the world.
//
// Opening never waits for the world: the tool is checked and claimed against what the
// world last published, and the world attaches it at its next command run.
//
// Threading: `mu_` guards the core, the write queue, the end state, the arrival jitter and
// the last model sent; the helper waits on `cv_` with it, signalled when the watchdog's
// deadline comes before the helper's planned wake-up or the stream ends. What Open sets (the mode,
// the tool, the host, the channel) is written on the first read, before the helper starts, and only
// read after. Finish is called exactly once, when no write is in flight.
//
// Datagrams: when the client asks and the server has a datagram port, the session registers
// with the port and offers its key. Poses that arrive there (on the port's thread, which
// holds the port's lock while the reactor takes `mu_`) are answered by datagram, sealed with
// the session's own sequence, to the address of the newest pose; watchdog replies take the
// route of the last pose. The session unregisters in OnDone, before it is deleted.

#include <atomic>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_callback.h"
#include "ligature/v1/haptics_service.pb.h"
#include "server/haptics/arrival_jitter.h"
#include "server/haptics/haptic_core.h"
#include "server/haptics/latency_histogram.h"
#include "server/haptics/tool_channel.h"
#include "server/host/world_manager.h"
#include "server/rpc/auth.h"
#include "server/rpc/haptic_datagram_port.h"
#include "server/rpc/session_counters.h"

namespace ligature {

class HapticsReactor final
    : public grpc::ServerBidiReactor<v1::HapticsRequest, v1::HapticsResponse>,
      private HapticDatagramPort::Handler {
 public:
  // `caller` is the client's grants (or why it has none), checked against the world its
  // open message names. `port` (may be null: no datagrams) serves the datagram channel.
  HapticsReactor(WorldManager* manager, const std::atomic<bool>* stopping, HapticCounters* counters,
                 absl::StatusOr<Grants> caller = Grants::All(), HapticDatagramPort* port = nullptr);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  absl::Status Open(const v1::HapticOpen& open) ABSL_LOCKS_EXCLUDED(mu_);
  void OnDatagram(const v1::HapticDatagram& datagram, int64_t received_ns,
                  const DatagramPeer& from) override ABSL_LOCKS_EXCLUDED(mu_);
  // `from` is the pose's address when it came as a datagram, null on the stream.
  void HandlePose(const v1::HapticPose& pose, int64_t received_ns, const DatagramPeer* from)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Stamps a force with its send time and records the pose's round trip (watchdog replies,
  // with no arrival time, are not timed).
  void StampSendLocked(v1::HapticForce* force) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A force message on the route of the last pose: by datagram or queued on the stream.
  void ReplyLocked(v1::HapticForce force) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Seals and sends one datagram to the newest pose's address.
  void SendDatagramLocked(const v1::HapticDatagram& datagram) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues a message; starts its write when none is in flight.
  void QueueLocked(v1::HapticsResponse message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartNextWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the stream with `status` once the queue has drained.
  void EndLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void HelperLoop() ABSL_LOCKS_EXCLUDED(mu_);
  HapticTiming& timing() { return remote_ ? counters_->remote_mode : counters_->server_mode; }

  WorldManager* manager_;
  const std::atomic<bool>* stopping_;
  HapticCounters* counters_;
  const absl::StatusOr<Grants> caller_;
  v1::HapticsRequest request_;
  bool opened_ = false;
  bool remote_ = false;
  std::string device_id_;
  std::string tool_;
  std::string session_;
  std::shared_ptr<WorldHost> host_;
  std::shared_ptr<haptics::ToolChannel> channel_;
  HapticDatagramPort* port_;
  uint32_t datagram_session_ = 0;  // 0: no datagram channel
  uint32_t datagram_copies_ = 1;   // copies of each datagram sent

  absl::Mutex mu_;
  absl::CondVar cv_;
  std::optional<haptics::HapticCore> core_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::HapticsResponse> queue_ ABSL_GUARDED_BY(mu_);
  v1::HapticsResponse writing_ ABSL_GUARDED_BY(mu_);
  bool write_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<absl::Status> end_ ABSL_GUARDED_BY(mu_);  // set once the stream is to end
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;  // the helper stops
  uint64_t sent_model_tick_ ABSL_GUARDED_BY(mu_) = UINT64_MAX;
  // When the helper plans to wake (monotonic s); -infinity while it is awake.
  double helper_wake_ ABSL_GUARDED_BY(mu_) = -std::numeric_limits<double>::infinity();
  haptics::ArrivalJitter jitter_ ABSL_GUARDED_BY(mu_);  // of this stream's poses
  // The datagram channel: the sender of replies, the newest pose's address, whether the
  // last pose came that way, and whether the client closed the channel.
  std::optional<haptics::DatagramSender> datagram_sender_ ABSL_GUARDED_BY(mu_);
  std::optional<DatagramPeer> datagram_peer_ ABSL_GUARDED_BY(mu_);
  bool last_pose_by_datagram_ ABSL_GUARDED_BY(mu_) = false;
  bool datagrams_closed_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t last_datagram_pose_ ABSL_GUARDED_BY(mu_) = 0;  // its copies are not taken again
  // Started by the first read, joined by OnDone.
  std::thread helper_;
};

}  // namespace ligature
