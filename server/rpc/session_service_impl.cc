#include "server/rpc/session_service_impl.h"

#include "absl/strings/str_cat.h"
#include "server/rpc/frame_stream.h"
#include "server/rpc/interact_reactor.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"

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
      *stopping_, &counters_->watch));
}

grpc::ServerBidiReactor<v1::InteractRequest, v1::Frame>* SessionServiceImpl::Interact(
    grpc::CallbackServerContext*) {
  return new InteractReactor(manager_, stopping_, counters_);
}

}  // namespace ligature
