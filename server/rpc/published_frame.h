#pragma once
// One frame of a world as its Watch streams send it: each view (a body subset and region)
// is encoded once, on first use, and every stream of that view sends the same bytes.

#include <grpcpp/support/byte_buffer.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/call_once.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ligature/v1/frame.pb.h"
#include "server/rpc/frame_stream.h"
#include "server/world/frame.h"

namespace ligature {

// Sets `out` to `message` in the bytes gRPC sends (a single slice, shared by reference when
// the buffer is copied).
void EncodeMessage(const google::protobuf::MessageLite& message, grpc::ByteBuffer* out);

class PublishedFrame {
 public:
  PublishedFrame(std::shared_ptr<const Frame> frame, uint64_t version, double rate_hz)
      : frame_(std::move(frame)), version_(version), rate_hz_(rate_hz) {}
  // A frame whose whole-frame bytes came encoded already (from another server): streams of
  // the whole frame send `whole` as it is.
  PublishedFrame(std::shared_ptr<const Frame> frame, uint64_t version, double rate_hz,
                 const grpc::ByteBuffer& whole);

  const Frame& frame() const { return *frame_; }
  // The host's publication number: streams compare it to what they sent.
  uint64_t version() const { return version_; }
  // The world's tick rate when the frame came out (Hz).
  double rate_hz() const { return rate_hz_; }

  // Sets `out` to the bytes of the view with key `key` (SharedViewKey of `options`),
  // encoded by the first stream that asks; returns whether this call encoded them. Every
  // stream's bytes share the one encoded slice.
  bool View(const std::string& key, const FrameStreamOptions& options, grpc::ByteBuffer* out) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::shared_ptr<const Frame> frame_;
  const uint64_t version_;
  const double rate_hz_;
  // The whole frame, the view most streams want, is read without a lock once encoded.
  mutable absl::once_flag whole_once_;
  mutable grpc::ByteBuffer whole_;
  // Other views.
  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<std::string, grpc::ByteBuffer> views_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ligature
