#include "server/gateway/gateway_service.h"

#include "server/rpc/caller.h"
#include "server/rpc/frame_stream.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/rpc/watch_reactor.h"

namespace ligature {
namespace {

// The checks ligatured's Watch makes, in its order: the request, the caller's token, the
// world's name, the viewer role, the world, then the stream's options against its newest
// frame.
absl::StatusOr<std::pair<std::shared_ptr<SubscribedWorld>, FrameStreamOptions>> OpenWatch(
    const FrameSubscriber& frames, const TokenStore* tokens, const grpc::ServerContextBase& ctx,
    const grpc::ByteBuffer& request) {
  v1::WatchRequest req;
  grpc::ByteBuffer bytes(request);
  if (!grpc::SerializationTraits<v1::WatchRequest>::Deserialize(&bytes, &req).ok()) {
    return absl::InvalidArgumentError("request: not a ligature.v1.WatchRequest");
  }
  absl::StatusOr<Grants> caller = CallerGrants(tokens, ctx);
  if (!caller.ok()) return caller.status();
  absl::StatusOr<std::string> id = ParseWorldName(req.world(), "world");
  if (!id.ok()) return id.status();
  if (absl::Status s = caller->Require(*id, Role::kViewer); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<SubscribedWorld>> world = frames.Find(*id);
  if (!world.ok()) return world.status();
  std::shared_ptr<const PublishedFrame> latest = (*world)->Latest();
  if (latest == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("world: no frame of ", (*world)->name(), " has decoded here yet"));
  }
  absl::StatusOr<FrameStreamOptions> options =
      MakeFrameStreamOptions(latest->frame(), req.max_rate_hz(), req.body_ids());
  if (!options.ok()) return options.status();
  if (absl::Status s = AddWatchFilter(req, &*options); !s.ok()) return s;
  return std::make_pair(*std::move(world), *std::move(options));
}

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* GatewaySessionService::Watch(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  auto opened = OpenWatch(*frames_, tokens_, *ctx, *request);
  if (!opened.ok()) return WatchReactor::Refuse(ToGrpcStatus(opened.status()));
  auto& [world, options] = *opened;
  return WatchReactor::Start(
      [this, &world = world](std::shared_ptr<WatchSink> sink) {
        return hubs_.Add(world, std::move(sink));
      },
      std::move(options), counters_);
}

}  // namespace ligature
