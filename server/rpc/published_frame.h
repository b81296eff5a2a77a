#pragma once
// One frame of a world as its Watch streams send it: each view (a body subset and region)
// is encoded once, on first use, and every stream of that view sends the same bytes.

#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/support/byte_buffer.h>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ligature/v1/frame.pb.h"
#include "server/rpc/frame_stream.h"
#include "server/world/frame.h"

namespace ligature {

// A message in the bytes gRPC sends (a single slice, shared by reference on copy).
grpc::ByteBuffer EncodeMessage(const google::protobuf::MessageLite& message);

class PublishedFrame {
 public:
  PublishedFrame(std::shared_ptr<const Frame> frame, uint64_t version, double rate_hz)
      : frame_(std::move(frame)), version_(version), rate_hz_(rate_hz) {}

  const Frame& frame() const { return *frame_; }
  // The host's publication number: streams compare it to what they sent.
  uint64_t version() const { return version_; }
  // The world's tick rate when the frame came out (Hz).
  double rate_hz() const { return rate_hz_; }

  // The bytes of the view with key `key` (SharedViewKey of `options`), encoded by the
  // first stream that asks. Copies share the encoded slice.
  grpc::ByteBuffer View(const std::string& key, const FrameStreamOptions& options) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Views encoded so far.
  size_t views() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::shared_ptr<const Frame> frame_;
  const uint64_t version_;
  const double rate_hz_;
  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<std::string, grpc::ByteBuffer> views_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ligature
