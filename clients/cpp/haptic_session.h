#pragma once
// A haptic device's session with a Ligature server (HapticsService.Haptics), one interface
// for both modes:
//  - server mode: Force() sends the pose and returns the server's force for it (one round
//    trip; the server solves the tool's local model the moment the pose arrives);
//  - remote mode: the server streams the tool's local model after every world tick; Force()
//    solves it here, at once, with the same haptic core as the server, re-synchronized with
//    each new model, and sends the pose on with the force it rendered (the world takes the
//    opposite). No round trip: the force does not wait for the network.
// Not thread-safe: one device loop calls Force(); remote mode reads models on its own thread,
// which hands them over through an atomic pointer and records a malformed one under
// `status_mu_`.

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "server/haptics/device_pose.h"
#include "server/haptics/haptic_core.h"

namespace ligature::client {

class HapticSession {
 public:
  // Opens a session: `open` names the world, the tool and the mode, and the coupling and
  // safety parameters (zero for defaults). Fails with the server's status (NOT_FOUND,
  // FAILED_PRECONDITION when another session holds the tool, INVALID_ARGUMENT).
  static absl::StatusOr<std::unique_ptr<HapticSession>> Open(
      std::shared_ptr<grpc::Channel> channel, const ligature::v1::HapticOpen& open);
  ~HapticSession();

  // The force (and flags) for one device pose.
  absl::StatusOr<haptics::HapticReply> Force(const haptics::DevicePose& pose);
  // Half-closes the stream (the server releases the tool) and returns its final status.
  absl::Status Close();

  bool remote() const { return remote_; }
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

  // Remote mode.
  std::unique_ptr<haptics::HapticCore> core_;
  std::atomic<std::shared_ptr<const haptics::ToolLocalModel>> model_;
  std::thread reader_;
  absl::Mutex status_mu_;
  absl::Status read_error_ ABSL_GUARDED_BY(status_mu_);
};

}  // namespace ligature::client
