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

grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchReactor::Start(WatchHubs* hubs,
                                                                std::shared_ptr<WorldHost> host,
                                                                FrameStreamOptions options,
                                                                StreamCounters* counters) {
  auto reactor = std::make_shared<WatchReactor>(std::move(options), counters);
  reactor->self_ = reactor;
  counters->open.fetch_add(1, std::memory_order_relaxed);
  reactor->hub_ = hubs->Add(host, reactor);
  return reactor.get();
}

WatchReactor::WatchReactor(FrameStreamOptions options, StreamCounters* counters)
    : options_(std::move(options)),
      view_(SharedViewKey(options_)),
      counters_(counters),
      filter_(options_.filter) {}

bool WatchReactor::TakeNewestLocked(std::optional<Clock::time_point>* again) {
  if (writing_ || finished_ || newest_ == nullptr) return false;
  if (newest_->version() <= sent_version_) {
    newest_.reset();
    return false;
  }
  // The rate limit, with half a world tick of slack so that a frame a little early for
  // its turn is not held back a whole tick.
  const double world_rate = newest_->rate_hz();
  const double rate = options_.max_rate_hz > 0.0 ? options_.max_rate_hz : world_rate;
  const auto slack = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(0.5 / world_rate));
  const Clock::time_point now = Clock::now();
  if (now + slack < next_send_) {
    *again = next_send_ - slack;
    return false;
  }
  // Publications between the last frame sent and this one were skipped (conflated).
  if (sent_version_ != 0 && newest_->version() > sent_version_ + 1) {
    counters_->frames_conflated.fetch_add(newest_->version() - sent_version_ - 1,
                                          std::memory_order_relaxed);
  }
  if (view_) {
    out_ = newest_->View(*view_, options_);
  } else {
    v1::Frame message;
    BuildFrameMessage(newest_->frame(), options_, &filter_, &message);
    out_ = EncodeMessage(message);
  }
  sent_version_ = newest_->version();
  newest_.reset();
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / rate));
  next_send_ = std::max(next_send_ + period, now - period);
  writing_ = true;
  return true;
}

std::optional<WatchSink::Clock::time_point> WatchReactor::Offer(
    std::shared_ptr<const PublishedFrame> frame) {
  std::optional<Clock::time_point> again;
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return std::nullopt;
    if (frame->version() > sent_version_ &&
        (newest_ == nullptr || frame->version() > newest_->version())) {
      newest_ = std::move(frame);
    }
    if (!TakeNewestLocked(&again)) return again;
  }
  // Started outside the lock: writing_ keeps every other writer out until OnWriteDone.
  StartWrite(&out_);
  return std::nullopt;
}

void WatchReactor::OnWriteDone(bool ok) {
  std::optional<Clock::time_point> again;
  std::optional<grpc::Status> finish;
  bool write = false;
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
        write = TakeNewestLocked(&again);
      }
    }
  }
  if (finish) Finish(*finish);
  if (write) StartWrite(&out_);
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
