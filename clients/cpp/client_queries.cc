// Client: scene queries (QueryService), one batch at a time or on a stream.

#include <string>
#include <vector>

#include "clients/cpp/client.h"
#include "clients/cpp/resource_names.h"

namespace ligature::client {
namespace {

v1::QueryRequest Request(const std::string& world, const std::vector<v1::SceneQuery>& queries,
                         uint64_t id) {
  v1::QueryRequest req;
  req.set_world(world);
  req.set_request_id(id);
  for (const v1::SceneQuery& q : queries) *req.add_queries() = q;
  return req;
}

}  // namespace

absl::StatusOr<v1::QueryResponse> Client::Query(absl::string_view world,
                                                const std::vector<v1::SceneQuery>& queries) {
  return Call(*queries_, &v1::QueryService::Stub::Query, Request(WorldName(world), queries, 0));
}

absl::StatusOr<std::unique_ptr<QueryStream>> Client::OpenQueryStream(absl::string_view world) {
  auto context = std::make_unique<grpc::ClientContext>();
  auto stream = queries_->StreamQueries(context.get());
  if (stream == nullptr) return absl::UnavailableError("could not open the query stream");
  return std::make_unique<QueryStream>(WorldName(world), std::move(context), std::move(stream));
}

QueryStream::~QueryStream() {
  if (!closed_) {
    context_->TryCancel();
    (void)Close();
  }
}

// One request out, its answer back; a stream that fails is finished to learn why.
absl::StatusOr<v1::QueryResponse> QueryStream::Ask(const std::vector<v1::SceneQuery>& queries) {
  if (closed_) return absl::FailedPreconditionError("the query stream is closed");
  v1::QueryResponse resp;
  if (!stream_->Write(Request(world_, queries, next_id_++)) || !stream_->Read(&resp)) {
    const absl::Status status = Close();
    return status.ok() ? absl::UnavailableError("the server ended the query stream") : status;
  }
  return resp;
}

absl::Status QueryStream::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  stream_->WritesDone();
  return ToAbslStatus(stream_->Finish());
}

}  // namespace ligature::client
