#include "server/rpc/frame_source.h"

#include "absl/strings/str_cat.h"

namespace ligature {

std::shared_ptr<const PublishedFrame> HostFrameSource::WaitForFrame(
    uint64_t seen, absl::Duration timeout, std::optional<absl::Status>* ended) {
  uint64_t version = 0;
  bool open = true;
  std::shared_ptr<const Frame> frame = host_->WaitForFrame(seen, timeout, &version, &open);
  if (!open) {
    *ended = absl::NotFoundError(absl::StrCat(host_->name(), " was deleted"));
    return current_;
  }
  // Each publication becomes one PublishedFrame, shared by every stream.
  if (frame != nullptr && version != 0 && (current_ == nullptr || current_->version() != version)) {
    current_ = std::make_shared<const PublishedFrame>(std::move(frame), version, host_->rate_hz());
  }
  return current_;
}

}  // namespace ligature
