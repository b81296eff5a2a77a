#pragma once
// One world's frames as they arrive from the broker, the frame source of its watch hub in a
// gateway. A message is kept as it came, cheaply; it is decoded when a hub or a new stream
// wants it, so worlds nobody watches here cost one copy a frame.

#include <grpcpp/support/slice.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "server/rpc/frame_source.h"

namespace ligature {

class SubscribedWorld final : public FrameSource {
 public:
  // `name` is the world's resource name (worlds/{id}); frames naming another are refused.
  explicit SubscribedWorld(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // A frame message (a serialized whole ligature.v1.Frame) and the world's tick rate; the
  // newest message again (the same bytes) is no new frame.
  void Receive(const char* data, size_t size, double rate_hz) ABSL_LOCKS_EXCLUDED(mu_);
  // The world ended (deleted): streams of it end with `why`.
  void End(absl::Status why) ABSL_LOCKS_EXCLUDED(mu_);

  // The newest frame that decodes (null before the first).
  std::shared_ptr<const PublishedFrame> Latest() ABSL_LOCKS_EXCLUDED(mu_);

  std::shared_ptr<const PublishedFrame> WaitForFrame(uint64_t seen, absl::Duration timeout,
                                                     std::optional<absl::Status>* ended) override
      ABSL_LOCKS_EXCLUDED(mu_);

  // Messages that did not decode as a frame of this world.
  uint64_t malformed() const { return malformed_.load(std::memory_order_relaxed); }

 private:
  const std::string name_;
  std::atomic<uint64_t> malformed_{0};
  absl::Mutex mu_;
  grpc::Slice raw_ ABSL_GUARDED_BY(mu_);  // the newest message
  double raw_rate_hz_ ABSL_GUARDED_BY(mu_) = 0.0;
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 0;   // messages received
  uint64_t rejected_ ABSL_GUARDED_BY(mu_) = 0;  // the newest version that did not decode
  std::shared_ptr<const PublishedFrame> decoded_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ligature
