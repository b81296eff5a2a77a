#pragma once
// One Watch stream: frames offered by its world's hub, written as shared bytes (its view's,
// or its own for delta frames), the newest only and at most at its rate; no thread of its own.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/rpc/frame_filter.h"
#include "server/rpc/frame_stream.h"
#include "server/rpc/session_counters.h"
#include "server/rpc/watch_hub.h"

namespace ligature {

class WatchReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer>, public WatchSink {
 public:
  // Starts a stream; `attach` adds it to its world's hub and returns the hub. The reactor
  // owns itself until gRPC is done with it.
  using Attach = std::function<std::shared_ptr<WatchHub>(std::shared_ptr<WatchSink>)>;
  static grpc::ServerWriteReactor<grpc::ByteBuffer>* Start(const Attach& attach,
                                                           FrameStreamOptions options,
                                                           StreamCounters* counters);
  // A stream refused before it started.
  static grpc::ServerWriteReactor<grpc::ByteBuffer>* Refuse(const grpc::Status& status);

  WatchReactor(FrameStreamOptions options, StreamCounters* counters);

  void Offer(std::shared_ptr<const PublishedFrame> frame) override ABSL_LOCKS_EXCLUDED(mu_);
  void End(const absl::Status& why) override ABSL_LOCKS_EXCLUDED(mu_);

  void OnWriteDone(bool ok) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnCancel() override;
  void OnDone() override;

 private:
  using Clock = std::chrono::steady_clock;
  // The newest frame when the stream may write it now (a delta frame is made into out_
  // here), marking the stream as writing; or null.
  std::shared_ptr<const PublishedFrame> TakeNewestLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fills out_ with `frame`'s view (delta frames are made already) and starts the write.
  void Write(const PublishedFrame& frame) ABSL_LOCKS_EXCLUDED(mu_);

  const FrameStreamOptions options_;
  const std::optional<std::string> view_;  // shared view key; nullopt: delta frames
  StreamCounters* const counters_;
  std::shared_ptr<WatchReactor> self_;     // held until OnDone
  std::shared_ptr<WatchHub> hub_;          // set once at start

  absl::Mutex mu_;
  FrameFilter filter_ ABSL_GUARDED_BY(mu_);  // delta state of this stream
  std::shared_ptr<const PublishedFrame> newest_ ABSL_GUARDED_BY(mu_);  // not yet sent
  uint64_t sent_version_ ABSL_GUARDED_BY(mu_) = 0;
  Clock::time_point next_send_ ABSL_GUARDED_BY(mu_);  // with a rate limit
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<absl::Status> finish_after_write_ ABSL_GUARDED_BY(mu_);
  grpc::ByteBuffer out_;  // the write in flight (only touched while writing_)
};

}  // namespace ligature
