#include "server/rpc/session_service_impl.h"

#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/rpc/frame_stream.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/world/scene_proto.h"

namespace ligature {

grpc::Status SessionServiceImpl::Watch(grpc::ServerContext* ctx, const v1::WatchRequest* req,
                                       grpc::ServerWriter<v1::Frame>* writer) {
  auto id = ParseWorldName(req->world(), "world");
  if (!id.ok()) return ToGrpcStatus(id.status());
  auto host = manager_->Get(*id);
  if (!host.ok()) return ToGrpcStatus(host.status());
  auto options = MakeFrameStreamOptions(**host, req->max_rate_hz(), req->body_ids());
  if (!options.ok()) return ToGrpcStatus(options.status());
  return ToGrpcStatus(StreamFrames(
      **host, *options, [&](const v1::Frame& f) { return writer->Write(f); },
      [&] {
        return ctx->IsCancelled() ? absl::CancelledError("cancelled by the client")
                                  : absl::OkStatus();
      },
      *stopping_));
}

// The first message names the world and the stream options; every message may carry device
// poses, which are validated and queued for the world's next tick. Frames go out on this
// thread while a reader thread takes poses in.
grpc::Status SessionServiceImpl::Interact(
    grpc::ServerContext* ctx, grpc::ServerReaderWriter<v1::Frame, v1::InteractRequest>* stream) {
  v1::InteractRequest first;
  if (!stream->Read(&first)) return grpc::Status::OK;
  auto id = ParseWorldName(first.world(), "world");
  if (!id.ok()) return ToGrpcStatus(id.status());
  auto host_or = manager_->Get(*id);
  if (!host_or.ok()) return ToGrpcStatus(host_or.status());
  std::shared_ptr<WorldHost> host = *host_or;
  auto options = MakeFrameStreamOptions(*host, first.max_rate_hz(), first.body_ids());
  if (!options.ok()) return ToGrpcStatus(options.status());

  std::mutex mu;
  absl::Status reader_status;  // guarded by mu; set when the reader stops
  bool reader_done = false;

  // Validates and queues one message's poses; the world reports unknown or non-kinematic
  // bodies, and the first such error ends the stream.
  auto queue_poses = [&](const v1::InteractRequest& msg) -> absl::Status {
    for (int i = 0; i < msg.poses_size(); ++i) {
      const v1::DevicePose& p = msg.poses(i);
      const std::string field = absl::StrCat("poses[", i, "]");
      if (auto s = ValidateId(p.body_id(), field + ".body_id"); !s.ok()) return s;
      auto pose = PoseFromProto(p.pose(), field + ".pose");
      if (!pose.ok()) return pose.status();
      const bool queued = host->Enqueue([&, body = p.body_id(), pose = *pose](World* w) {
        if (w == nullptr) return;
        if (absl::Status s = w->SetDeviceTarget(body, pose); !s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          if (reader_status.ok()) reader_status = s;
        }
      });
      if (!queued) return absl::NotFoundError(absl::StrCat(host->name(), " was deleted"));
    }
    return absl::OkStatus();
  };

  // The reader ends when the client half-closes, the call dies, or a message is invalid.
  absl::Status first_status = queue_poses(first);
  if (!first_status.ok()) return ToGrpcStatus(first_status);
  std::thread reader([&] {
    v1::InteractRequest msg;
    absl::Status status;
    while (stream->Read(&msg)) {
      status = queue_poses(msg);
      if (!status.ok()) break;
    }
    std::lock_guard<std::mutex> lock(mu);
    if (reader_status.ok()) reader_status = status;
    reader_done = true;
  });

  absl::Status result = StreamFrames(
      *host, *options, [&](const v1::Frame& f) { return stream->Write(f); },
      [&]() -> absl::Status {
        if (ctx->IsCancelled()) return absl::CancelledError("cancelled by the client");
        std::lock_guard<std::mutex> lock(mu);
        if (!reader_status.ok()) return reader_status;
        // The client closed its side: the session is over.
        if (reader_done) return absl::CancelledError("");
        return absl::OkStatus();
      },
      *stopping_);
  // A client that half-closed ended the session normally.
  bool half_closed;
  {
    std::lock_guard<std::mutex> lock(mu);
    half_closed = reader_done && reader_status.ok() && !ctx->IsCancelled();
  }
  if (!reader_done) ctx->TryCancel();  // unblocks the reader's Read
  reader.join();
  // Commands queued by this stream may still run after it returns: they must not touch
  // this frame's locals. Wait until the world has applied them.
  (void)host->Call<bool>([](World&) -> absl::StatusOr<bool> { return true; },
                         absl::Seconds(5));
  if (half_closed) return grpc::Status::OK;
  return ToGrpcStatus(result);
}

}  // namespace ligature
