#include "server/rpc/session_service_impl.h"

#include "absl/strings/str_cat.h"
#include "server/rpc/caller.h"
#include "server/rpc/event_stream.h"
#include "server/rpc/frame_stream.h"
#include "server/rpc/interact_reactor.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/rpc/watch_reactor.h"

namespace ligature {

grpc::ServerWriteReactor<grpc::ByteBuffer>* SessionServiceImpl::Watch(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  v1::WatchRequest req;
  grpc::ByteBuffer bytes(*request);
  if (!grpc::SerializationTraits<v1::WatchRequest>::Deserialize(&bytes, &req).ok()) {
    return WatchReactor::Refuse(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                             "request: not a ligature.v1.WatchRequest"));
  }
  auto call = OpenWorldCall({tokens_, nullptr, manager_}, *ctx,
                            ParseWorldName(req.world(), "world"), Role::kViewer);
  if (!call.ok()) return WatchReactor::Refuse(ToGrpcStatus(call.status()));
  auto options =
      MakeFrameStreamOptions(*call->host->LatestFrame(), req.max_rate_hz(), req.body_ids());
  if (!options.ok()) return WatchReactor::Refuse(ToGrpcStatus(options.status()));
  if (auto s = AddWatchFilter(req, &*options); !s.ok()) {
    return WatchReactor::Refuse(ToGrpcStatus(s));
  }
  return WatchReactor::Start(
      [this, &host = call->host](std::shared_ptr<WatchSink> sink) {
        return hubs_.Add(host, std::move(sink));
      },
      *std::move(options), &counters_->watch);
}

grpc::Status SessionServiceImpl::WatchEvents(grpc::ServerContext* ctx,
                                             const v1::WatchEventsRequest* req,
                                             grpc::ServerWriter<v1::WorldEvents>* writer) {
  auto call = OpenWorldCall({tokens_, nullptr, manager_}, *ctx,
                            ParseWorldName(req->world(), "world"), Role::kViewer);
  if (!call.ok()) return ToGrpcStatus(call.status());
  WorldHost& host = *call->host;
  absl::StatusOr<EventFilter> filter = MakeEventFilter(host, *req);
  if (!filter.ok()) return ToGrpcStatus(filter.status());
  return ToGrpcStatus(StreamEvents(
      host, *filter, [&](const v1::WorldEvents& e) { return writer->Write(e); },
      [&] {
        return ctx->IsCancelled() ? absl::CancelledError("cancelled by the client")
                                  : absl::OkStatus();
      },
      *stopping_, &counters_->events));
}

grpc::ServerBidiReactor<v1::InteractRequest, v1::Frame>* SessionServiceImpl::Interact(
    grpc::CallbackServerContext* ctx) {
  return new InteractReactor(manager_, stopping_, counters_, ctx->peer(),
                             CallerGrants(tokens_, *ctx));
}

}  // namespace ligature
