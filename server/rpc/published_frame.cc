#include "server/rpc/published_frame.h"

#include <grpcpp/support/slice.h>

namespace ligature {

grpc::ByteBuffer EncodeMessage(const google::protobuf::MessageLite& message) {
  const size_t size = message.ByteSizeLong();
  grpc_slice slice = grpc_slice_malloc(size);
  message.SerializeWithCachedSizesToArray(GRPC_SLICE_START_PTR(slice));
  grpc::Slice owned(slice, grpc::Slice::STEAL_REF);
  return grpc::ByteBuffer(&owned, 1);
}

grpc::ByteBuffer PublishedFrame::View(const std::string& key,
                                      const FrameStreamOptions& options) const {
  absl::MutexLock lock(&mu_);
  auto it = views_.find(key);
  if (it != views_.end()) return it->second;
  // Encoded under the lock: the streams that want this view at once wait for its bytes
  // instead of encoding them again.
  FrameFilter region(options.filter);  // no deltas in a shared view: it holds no state
  v1::Frame message;
  BuildFrameMessage(*frame_, options, &region, &message);
  return views_.emplace(key, EncodeMessage(message)).first->second;
}

size_t PublishedFrame::views() const {
  absl::MutexLock lock(&mu_);
  return views_.size();
}

}  // namespace ligature
