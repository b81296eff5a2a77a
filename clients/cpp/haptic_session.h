#pragma once
// A haptic device's session with a Ligature server (HapticsService.Haptics), one interface
// for both modes:
//  - server mode: Force() sends the pose and returns the server's force for it (one round
//    trip; the server solves the tool's local model the moment the pose arrives);
//  - remote mode: the server streams the tool's local model after every world tick; Force()
//    solves it here, at once, with the same haptic core as the server, re-synchronized with
//    each new model, and sends the pose on with the force it rendered (the world takes the
//    opposite). No round trip: the force does not wait for the network.
// Datagrams: with `open.datagrams` set and a server that offers them, poses and forces go
// over UDP (HapticDatagramOffer) while models stay on the stream. A lost datagram is simply
// replaced by the next one: in server mode Force() waits `reply_wait` for the pose's force,
// then returns the newest force it has (its `sequence` says which pose it answered), zero
// once none has come within the watchdog timeout. When poses sent by datagram have gone
// unanswered for `fallback_after`, or the server closes the channel, the session turns to
// the stream for good.
// Not thread-safe: one device loop calls Force(); remote mode reads models on its own thread,
// which hands them over through an atomic pointer and records a malformed one under
// `status_mu_`.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "clients/cpp/haptic_datagrams.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "server/haptics/device_pose.h"
#include "server/haptics/haptic_core.h"

namespace ligature::client {

struct HapticSessionOptions {
  // The server's host as this client reaches it (the host of the channel's target): where
  // datagrams go. Needed when `open.datagrams` is set.
  std::string datagram_host;
  // Server mode over datagrams: how long Force() waits for its pose's force (s), and for
  // how much of that it polls without sleeping (a reply on a fast link comes sooner than a
  // timed sleep wakes on some machines; 0 for many devices sharing few cores).
  double reply_wait = 0.8e-3;
  double reply_spin = 0.1e-3;
  // With no datagram from the server for this long, the session turns to the stream (s).
  double fallback_after = 0.1;
};

class HapticSession {
 public:
  enum class Transport { kStream, kDatagrams };

  // Opens a session: `open` names the world, the tool and the mode, and the coupling and
  // safety parameters (zero for defaults). Fails with the server's status (NOT_FOUND,
  // FAILED_PRECONDITION when another session holds the tool, INVALID_ARGUMENT), or with
  // INVALID_ARGUMENT naming the field for a missing datagram host or a bad offer.
  static absl::StatusOr<std::unique_ptr<HapticSession>> Open(std::shared_ptr<grpc::Channel> channel,
                                                             const ligature::v1::HapticOpen& open,
                                                             HapticSessionOptions options = {});
  ~HapticSession();

  // The force (and flags) for one device pose.
  absl::StatusOr<haptics::HapticReply> Force(const haptics::DevicePose& pose);
  // Half-closes the stream (the server releases the tool) and returns its final status.
  absl::Status Close();

  bool remote() const { return remote_; }
  // How poses travel now: datagrams until the session falls back to the stream.
  Transport transport() const { return link_ ? Transport::kDatagrams : Transport::kStream; }
  // What the datagram channel took and dropped (zero without one).
  haptics::DatagramCounts datagram_counts() const { return link_ ? link_->counts() : counts_; }
  // The effective parameters the server resolved (defaults filled in).
  const ligature::v1::HapticOpen& params() const { return params_; }
  const std::string& session_id() const { return session_id_; }
  // Remote mode: the tick of the newest model received (0 before any).
  uint64_t model_tick() const;

 private:
  HapticSession() = default;
  void ReadModels() ABSL_LOCKS_EXCLUDED(status_mu_);
  // Server mode, once the stream has ended: drains it and returns the server's status.
  absl::Status Ended();
  // Server mode on the stream: writes the pose and reads its force.
  absl::StatusOr<haptics::HapticReply> ForceOnStream(const haptics::DevicePose& pose);
  // Server mode over datagrams: sends the pose, waits for its force, else the newest one.
  absl::StatusOr<haptics::HapticReply> ForceByDatagram(const haptics::DevicePose& pose);
  // Sends `outgoing_`; the first pose since the server was last heard starts the silence.
  void SendByDatagram(double now);
  // Turns to the stream when the server has left poses unanswered for `fallback_after`.
  void FallBackWhenSilent(double now);
  // Takes one datagram from the server: a force becomes the newest; a close ends the channel.
  void TakeDatagram(const ligature::v1::HapticDatagram& datagram, double now);
  // Leaves the datagram channel for the stream (telling the server when it still listens).
  void FallBack(bool tell_server);

  std::unique_ptr<ligature::v1::HapticsService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<ligature::v1::HapticsRequest,
                                           ligature::v1::HapticsResponse>>
      stream_;
  bool remote_ = false;
  bool closed_ = false;
  ligature::v1::HapticOpen params_;
  std::string session_id_;
  ligature::v1::HapticsRequest request_;
  ligature::v1::HapticsResponse response_;

  // The datagram channel (null on the stream), the newest force it brought and when, and
  // when the first pose sent since the server was last heard went out (0: none pending).
  HapticSessionOptions options_;
  std::unique_ptr<HapticDatagramLink> link_;
  int copies_ = 1;  // of each datagram (the server's opened.params.datagram_copies)
  haptics::DatagramCounts counts_;
  ligature::v1::HapticDatagram outgoing_;
  std::optional<haptics::HapticReply> newest_;
  double newest_at_ = 0.0;
  double unanswered_since_ = 0.0;

  // Remote mode.
  std::unique_ptr<haptics::HapticCore> core_;
  std::atomic<std::shared_ptr<const haptics::ToolLocalModel>> model_;
  std::thread reader_;
  absl::Mutex status_mu_;
  absl::Status read_error_ ABSL_GUARDED_BY(status_mu_);
};

}  // namespace ligature::client
