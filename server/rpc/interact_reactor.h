#pragma once
// One Interact stream as a callback-API reactor. Reads arrive through OnReadDone and queue
// device poses for the world; a writer thread streams frames (FrameStream) and is the only
// one to Finish once writing has begun, so no write is ever outstanding at Finish.
//
// Threading: the state the reads, the writer, gRPC's callbacks and the world's commands
// share is in `Shared`, guarded by its `mu`; the writer waits on its `cv` for each write to
// complete. What Start sets (the host, the stream options) is written on the first read,
// before the writer starts, and only read after.

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_callback.h"
#include "ligature/v1/session_service.pb.h"
#include "server/rpc/auth.h"
#include "server/rpc/frame_stream.h"
#include "server/rpc/session_counters.h"
#include "server/host/world_manager.h"

namespace ligature {

class InteractReactor final
    : public grpc::ServerBidiReactor<v1::InteractRequest, v1::Frame> {
 public:
  // `peer` names the client as owner of the bodies it drives; `caller` is its grants (or
  // why it has none), checked against the world its first message names.
  InteractReactor(WorldManager* manager, const std::atomic<bool>* stopping,
                  SessionCounters* counters, std::string peer, absl::StatusOr<Grants> caller);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // State shared with commands queued on the world, which may run after the stream ends.
  struct Shared {
    absl::Mutex mu;
    absl::CondVar cv;  // signalled under mu at each change
    absl::Status error ABSL_GUARDED_BY(mu);          // first failure from a pose or the world
    bool client_done ABSL_GUARDED_BY(mu) = false;    // the client half-closed
    bool cancelled ABSL_GUARDED_BY(mu) = false;
    bool write_pending ABSL_GUARDED_BY(mu) = false;
    bool write_ok ABSL_GUARDED_BY(mu) = true;
  };

  // Validates the first message; starts the writer on success.
  absl::Status Start(const v1::InteractRequest& first);
  absl::Status QueuePoses(const v1::InteractRequest& msg);
  absl::Status QueueDriveTargets(const v1::InteractRequest& msg);
  void WriterLoop();
  // After a half-close: waits (bounded) until the world has run the poses queued so far,
  // so that one it refuses still ends the stream with its error.
  void AwaitQueuedPoses();
  bool WriteAndWait(const v1::Frame& frame);

  WorldManager* manager_;
  const std::atomic<bool>* stopping_;
  SessionCounters* counters_;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::shared_ptr<WorldHost> host_;
  FrameStreamOptions options_;
  v1::InteractRequest request_;
  v1::Frame out_;
  bool started_ = false;
  const uint64_t session_;  // this stream's id, for body ownership
  const std::string peer_;
  const absl::StatusOr<Grants> caller_;
  std::thread writer_;
};

}  // namespace ligature
