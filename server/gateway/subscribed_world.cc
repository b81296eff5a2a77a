#include "server/gateway/subscribed_world.h"

#include <cstring>

#include "ligature/v1/frame.pb.h"
#include "server/rpc/frame_proto.h"

namespace ligature {

void SubscribedWorld::Receive(const char* data, size_t size, double rate_hz) {
  grpc::Slice raw(data, size);  // copied outside the lock
  absl::MutexLock lock(&mu_);
  if (ended_) return;
  // The server publishes a quiet world's newest frame again now and then: the same bytes
  // are not a new frame.
  if (version_ != 0 && raw_rate_hz_ == rate_hz && raw_.size() == size &&
      (size == 0 || std::memcmp(raw_.begin(), data, size) == 0)) {
    return;
  }
  raw_ = std::move(raw);
  raw_rate_hz_ = rate_hz;
  ++version_;
}

void SubscribedWorld::End(absl::Status why) {
  absl::MutexLock lock(&mu_);
  if (!ended_) ended_ = std::move(why);
}

std::shared_ptr<const PublishedFrame> SubscribedWorld::Latest() {
  grpc::Slice raw;
  double rate_hz = 0.0;
  uint64_t version = 0;
  {
    absl::MutexLock lock(&mu_);
    if (version_ == 0 || version_ == rejected_ ||
        (decoded_ != nullptr && decoded_->version() == version_)) {
      return decoded_;
    }
    raw = raw_;  // a reference, not a copy
    rate_hz = raw_rate_hz_;
    version = version_;
  }
  // Decoded outside the lock, so that the broker's thread never waits for it.
  v1::Frame message;
  if (!message.ParseFromArray(raw.begin(), static_cast<int>(raw.size())) ||
      message.world() != name_) {
    malformed_.fetch_add(1, std::memory_order_relaxed);
    absl::MutexLock lock(&mu_);
    rejected_ = std::max(rejected_, version);
    return decoded_;
  }
  // Streams of the whole frame send the message as it came.
  auto frame =
      std::make_shared<const PublishedFrame>(std::make_shared<const Frame>(FrameFromProto(message)),
                                             version, rate_hz, grpc::ByteBuffer(&raw, 1));
  absl::MutexLock lock(&mu_);
  if (decoded_ == nullptr || decoded_->version() < version) decoded_ = std::move(frame);
  return decoded_;
}

std::shared_ptr<const PublishedFrame> SubscribedWorld::WaitForFrame(
    uint64_t seen, absl::Duration timeout, std::optional<absl::Status>* ended) {
  {
    absl::MutexLock lock(&mu_);
    auto ready = [this, seen]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return ended_.has_value() || (version_ != seen && version_ != rejected_);
    };
    mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    if (ended_) {
      *ended = *ended_;
      return decoded_;
    }
  }
  return Latest();
}

}  // namespace ligature
