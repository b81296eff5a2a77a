#include "server/rpc/watch_reactor.h"

#include <algorithm>

#include "server/rpc/status.h"

namespace ligature {

namespace {

// Finishes with a status as soon as it starts.
class RefusedWatch final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit RefusedWatch(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchReactor::Refuse(const grpc::Status& status) {
  return new RefusedWatch(status);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchReactor::Start(const Attach& attach,
                                                                FrameStreamOptions options,
                                                                StreamCounters* counters) {
  auto reactor = std::make_shared<WatchReactor>(std::move(options), counters);
  reactor->self_ = reactor;
  counters->open.fetch_add(1, std::memory_order_relaxed);
  reactor->hub_ = attach(reactor);
  return reactor.get();
}

WatchReactor::WatchReactor(FrameStreamOptions options, StreamCounters* counters)
    : options_(std::move(options)),
      view_(SharedViewKey(options_)),
      counters_(counters),
      filter_(options_.filter) {}

std::shared_ptr<const PublishedFrame> WatchReactor::TakeNewestLocked() {
  if (writing_ || finished_ || newest_ == nullptr) return nullptr;
  if (newest_->version() <= sent_version_) {
    newest_.reset();
    return nullptr;
  }
  // A rate limit below the world's: at most one frame a period on average, with half a
  // world tick of slack so that a frame a little early for its turn is not held back a
  // whole tick. At the world's rate every frame may go.
  const double world_rate = newest_->rate_hz();
  if (options_.max_rate_hz > 0.0 && options_.max_rate_hz < world_rate) {
    const Clock::time_point now = Clock::now();
    const auto slack = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(0.5 / world_rate));
    if (sent_version_ != 0 && now + slack < next_send_) return nullptr;
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / options_.max_rate_hz));
    next_send_ = sent_version_ == 0 ? now + period : std::max(next_send_ + period, now - period);
  }
  // Publications between the last frame sent and this one were skipped (conflated).
  if (sent_version_ != 0 && newest_->version() > sent_version_ + 1) {
    counters_->frames_conflated.fetch_add(newest_->version() - sent_version_ - 1,
                                          std::memory_order_relaxed);
  }
  // A delta frame depends on what this stream sent before: made here, in order.
  if (!view_) {
    v1::Frame message;
    BuildFrameMessage(newest_->frame(), options_, &filter_, &message);
    EncodeMessage(message, &out_);
    counters_->frames_encoded.fetch_add(1, std::memory_order_relaxed);
  }
  sent_version_ = newest_->version();
  writing_ = true;
  return std::move(newest_);
}

void WatchReactor::Write(const PublishedFrame& frame) {
  // Outside the lock: writing_ keeps every other writer (and out_) to this one until
  // OnWriteDone. A shared view's bytes are copied here, without holding up the hub.
  if (view_ && frame.View(*view_, options_, &out_)) {
    counters_->frames_encoded.fetch_add(1, std::memory_order_relaxed);
  }
  StartWrite(&out_);
}

void WatchReactor::Offer(std::shared_ptr<const PublishedFrame> frame) {
  std::shared_ptr<const PublishedFrame> write;
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    if (frame->version() > sent_version_ &&
        (newest_ == nullptr || frame->version() > newest_->version())) {
      newest_ = std::move(frame);
    }
    write = TakeNewestLocked();
    if (write == nullptr) return;
  }
  Write(*write);
}

void WatchReactor::OnWriteDone(bool ok) {
  std::optional<grpc::Status> finish;
  std::shared_ptr<const PublishedFrame> write;
  {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) {
      finished_ = true;
      finish = grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
    } else {
      counters_->frames_sent.fetch_add(1, std::memory_order_relaxed);
      if (finish_after_write_) {
        finished_ = true;
        finish = ToGrpcStatus(*finish_after_write_);
      } else {
        // A frame that came while this one was on its way goes at once, rate permitting;
        // otherwise the hub offers it again.
        write = TakeNewestLocked();
      }
    }
  }
  if (finish) Finish(*finish);
  if (write != nullptr) Write(*write);
}

void WatchReactor::End(const absl::Status& why) {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    if (writing_) {
      finish_after_write_ = why;
      return;
    }
    finished_ = true;
  }
  Finish(ToGrpcStatus(why));
}

void WatchReactor::OnCancel() { End(absl::CancelledError("cancelled by the client")); }

void WatchReactor::OnDone() {
  if (hub_ != nullptr) hub_->Remove(this);
  counters_->open.fetch_sub(1, std::memory_order_relaxed);
  // Last: may delete this.
  std::shared_ptr<WatchReactor> self = std::move(self_);
}

}  // namespace ligature
