#include "server/rpc/query_service_impl.h"

#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/scene/query_proto.h"

namespace ligature {

absl::StatusOr<v1::QueryResponse> QueryServiceImpl::Answer(const grpc::ServerContext& ctx,
                                                           const v1::QueryRequest& req) const {
  auto call = OpenWorldCall(checks_, ctx, ParseWorldName(req.world(), "world"), Role::kViewer);
  if (!call.ok()) return call.status();
  auto calls = QueriesFromProto(req);
  if (!calls.ok()) return calls.status();
  return AnswerQueries(*call->host->LatestQuery(), *calls, req.request_id());
}

grpc::Status QueryServiceImpl::Query(grpc::ServerContext* ctx, const v1::QueryRequest* req,
                                     v1::QueryResponse* resp) {
  auto answer = Answer(*ctx, *req);
  if (!answer.ok()) return ToGrpcStatus(answer.status());
  *resp = *std::move(answer);
  return grpc::Status::OK;
}

// Each request read is answered before the next is read; the stream ends when the client
// closes its side, goes away, or sends a bad request (with that request's status).
grpc::Status QueryServiceImpl::StreamQueries(
    grpc::ServerContext* ctx,
    grpc::ServerReaderWriter<v1::QueryResponse, v1::QueryRequest>* stream) {
  v1::QueryRequest req;
  while (stream->Read(&req)) {
    auto answer = Answer(*ctx, req);
    if (!answer.ok()) return ToGrpcStatus(answer.status());
    if (!stream->Write(*answer)) break;
  }
  return grpc::Status::OK;
}

}  // namespace ligature
