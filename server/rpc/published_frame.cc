#include "server/rpc/published_frame.h"

#include <grpcpp/support/slice.h>

namespace ligature {

void EncodeMessage(const google::protobuf::MessageLite& message, grpc::ByteBuffer* out) {
  const size_t size = message.ByteSizeLong();
  grpc_slice slice = grpc_slice_malloc(size);
  message.SerializeWithCachedSizesToArray(GRPC_SLICE_START_PTR(slice));
  grpc::Slice owned(slice, grpc::Slice::STEAL_REF);
  grpc::ByteBuffer bytes(&owned, 1);
  out->Swap(&bytes);
}

PublishedFrame::PublishedFrame(std::shared_ptr<const Frame> frame, uint64_t version, double rate_hz,
                               const grpc::ByteBuffer& whole)
    : PublishedFrame(std::move(frame), version, rate_hz) {
  absl::call_once(whole_once_, [&] { whole_ = whole; });
}

bool PublishedFrame::View(const std::string& key, const FrameStreamOptions& options,
                          grpc::ByteBuffer* out) const {
  if (key.empty()) {
    bool encoded = false;
    absl::call_once(whole_once_, [&] {
      v1::Frame message;
      BuildFrameMessage(*frame_, options, /*filter=*/nullptr, &message);
      EncodeMessage(message, &whole_);
      encoded = true;
    });
    *out = whole_;
    return encoded;
  }
  absl::MutexLock lock(&mu_);
  auto it = views_.find(key);
  if (it == views_.end()) {
    // Encoded under the lock: the streams that want this view at once wait for its bytes
    // instead of encoding them again.
    FrameFilter region(options.filter);  // no deltas in a shared view: it holds no state
    v1::Frame message;
    BuildFrameMessage(*frame_, options, &region, &message);
    it = views_.try_emplace(key).first;
    EncodeMessage(message, &it->second);
    *out = it->second;
    return true;
  }
  *out = it->second;
  return false;
}

}  // namespace ligature
