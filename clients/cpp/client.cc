#include "clients/cpp/client.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/cpp/resource_names.h"
#include "clients/cpp/scene_file.h"
#include "clients/cpp/status_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/client_interceptor.h"

namespace ligature::client {

namespace v1 = ::ligature::v1;

namespace {

// Frames and exported scenes of large worlds exceed gRPC's default 4 MB receive limit, so
// the client accepts messages of any size. Bandwidth-delay probing stays off so the HTTP/2
// receive window stays small: the server sends a watcher the newest frame whenever the
// window lets it, and a small window keeps what a slow watcher has in flight short.
grpc::ChannelArguments MakeClientChannelArguments() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  return args;
}

// Adds `authorization: Bearer TOKEN` to the initial metadata of every call on the channel,
// unary and streaming alike. An interceptor rather than call credentials: gRPC sends call
// credentials only over TLS, and a token must also reach a loopback server without it.
class BearerInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit BearerInterceptor(std::shared_ptr<const std::string> value)
      : value_(std::move(value)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", *value_);
    }
    methods->Proceed();
  }

 private:
  std::shared_ptr<const std::string> value_;
};

class BearerInterceptorFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerInterceptorFactory(absl::string_view token)
      : value_(std::make_shared<const std::string>(absl::StrCat("Bearer ", token))) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* /*info*/) override {
    return new BearerInterceptor(value_);
  }

 private:
  std::shared_ptr<const std::string> value_;
};

// The PEM text of `path` (for the credential named `what`), or why it cannot be used.
absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, " ", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad() || text.str().find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", path, " holds no PEM data"));
  }
  return text.str();
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentialsOf(
    const Credentials& c) {
  if (!c.tls) {
    if (!c.ca_file.empty() || !c.cert_file.empty() || !c.key_file.empty()) {
      return absl::InvalidArgumentError(
          "a CA file or client certificate needs TLS, which is off");
    }
    return grpc::InsecureChannelCredentials();
  }
  if (c.cert_file.empty() != c.key_file.empty()) {
    return absl::InvalidArgumentError(
        "a client certificate and its key go together: give both or neither");
  }
  grpc::SslCredentialsOptions ssl;
  if (!c.ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(c.ca_file, "CA file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (!c.cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem(c.cert_file, "client certificate");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(c.key_file, "client key");
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

void SetMask(const std::vector<std::string>& paths, google::protobuf::FieldMask* mask) {
  for (const std::string& path : paths) mask->add_paths(path);
}

}  // namespace

absl::Status CheckToken(absl::string_view token) {
  for (char c : token) {
    if (c <= ' ' || c > '~') {
      return absl::InvalidArgumentError(
          "a token is printable ASCII without spaces or control characters");
    }
  }
  return absl::OkStatus();
}

grpc::ChannelArguments ClientChannelArguments() { return MakeClientChannelArguments(); }

absl::StatusOr<ChannelMaker> ChannelMaker::Create(const Credentials& credentials) {
  if (absl::Status s = CheckToken(credentials.token); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> channel_credentials =
      ChannelCredentialsOf(credentials);
  if (!channel_credentials.ok()) return channel_credentials.status();
  ChannelMaker maker;
  maker.channel_credentials_ = *std::move(channel_credentials);
  maker.token_ = credentials.token;
  return maker;
}

std::shared_ptr<grpc::Channel> ChannelMaker::Make(absl::string_view address,
                                                  const grpc::ChannelArguments& args) const {
  if (token_.empty()) {
    return grpc::CreateCustomChannel(std::string(address), channel_credentials_, args);
  }
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<BearerInterceptorFactory>(token_));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      std::string(address), channel_credentials_, args, std::move(factories));
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(absl::string_view address,
                                                           const Credentials& credentials,
                                                           const grpc::ChannelArguments& args) {
  absl::StatusOr<ChannelMaker> maker = ChannelMaker::Create(credentials);
  if (!maker.ok()) return maker.status();
  return maker->Make(address, args);
}

Client::Client(absl::string_view address, ClientOptions options)
    : Client(grpc::CreateCustomChannel(std::string(address), grpc::InsecureChannelCredentials(),
                                       MakeClientChannelArguments()),
             options) {}

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(absl::string_view address,
                                                        const Credentials& credentials,
                                                        ClientOptions options) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel(address, credentials, MakeClientChannelArguments());
  if (!channel.ok()) return channel.status();
  return std::make_unique<Client>(*std::move(channel), options);
}

Client::Client(std::shared_ptr<grpc::Channel> channel, ClientOptions options)
    : options_(options),
      channel_(std::move(channel)),
      worlds_(v1::WorldService::NewStub(channel_)),
      assets_(v1::AssetService::NewStub(channel_)),
      queries_(v1::QueryService::NewStub(channel_)),
      scenes_(v1::SceneService::NewStub(channel_)),
      sessions_(v1::SessionService::NewStub(channel_)) {}

void Client::PrepareUnary(grpc::ClientContext& context) const {
  if (options_.rpc_timeout != absl::InfiniteDuration()) {
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  }
}

// Pages through ListWorlds. A server that hands back the token it was given would loop
// forever, so that is reported as an error instead.
absl::StatusOr<std::vector<v1::World>> Client::ListWorlds() {
  std::vector<v1::World> worlds;
  v1::ListWorldsRequest request;
  do {
    grpc::ClientContext context;
    PrepareUnary(context);
    v1::ListWorldsResponse response;
    grpc::Status status = worlds_->ListWorlds(&context, request, &response);
    if (!status.ok()) return ToAbslStatus(status);
    for (v1::World& world : *response.mutable_worlds()) worlds.push_back(std::move(world));
    if (!response.next_page_token().empty() && response.next_page_token() == request.page_token()) {
      return absl::InternalError(absl::StrCat("ListWorlds returned its request page token again: ",
                                              response.next_page_token()));
    }
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  return worlds;
}

absl::StatusOr<v1::World> Client::CreateWorld(absl::string_view world_id, const v1::Scene& scene) {
  v1::CreateWorldRequest request;
  request.set_world_id(std::string(world_id));
  *request.mutable_scene() = scene;
  return Call<v1::World>(*worlds_, &v1::WorldService::Stub::CreateWorld, request);
}

absl::StatusOr<v1::World> Client::CreateWorldFromBuiltin(absl::string_view world_id,
                                                         absl::string_view scene_name) {
  v1::CreateWorldRequest request;
  request.set_world_id(std::string(world_id));
  request.set_scene_name(std::string(scene_name));
  return Call<v1::World>(*worlds_, &v1::WorldService::Stub::CreateWorld, request);
}

absl::StatusOr<v1::World> Client::CreateWorldFromSpec(absl::string_view world_id,
                                                      absl::string_view scene_spec) {
  if (!IsSceneFileSpec(scene_spec)) return CreateWorldFromBuiltin(world_id, scene_spec);
  absl::StatusOr<v1::Scene> scene = LoadSceneFile(scene_spec);
  if (!scene.ok()) return scene.status();
  const std::string base_dir =
      std::filesystem::path(std::string(scene_spec)).parent_path().string();
  if (absl::Status s = UploadSceneMeshFiles(&*scene, base_dir); !s.ok()) return s;
  return CreateWorld(world_id, *scene);
}

absl::StatusOr<v1::World> Client::GetWorld(absl::string_view world) {
  v1::GetWorldRequest request;
  request.set_name(WorldName(world));
  return Call<v1::World>(*worlds_, &v1::WorldService::Stub::GetWorld, request);
}

absl::StatusOr<v1::World> Client::UpdateWorld(absl::string_view world, const v1::World& changes,
                                              const std::vector<std::string>& update_mask) {
  v1::UpdateWorldRequest request;
  *request.mutable_world() = changes;
  request.mutable_world()->set_name(WorldName(world));
  SetMask(update_mask, request.mutable_update_mask());
  return Call<v1::World>(*worlds_, &v1::WorldService::Stub::UpdateWorld, request);
}

absl::Status Client::DeleteWorld(absl::string_view world) {
  v1::DeleteWorldRequest request;
  request.set_name(WorldName(world));
  return Call<v1::DeleteWorldResponse>(*worlds_, &v1::WorldService::Stub::DeleteWorld, request)
      .status();
}

absl::StatusOr<v1::Frame> Client::StepWorld(absl::string_view world, int32_t ticks) {
  v1::StepWorldRequest request;
  request.set_name(WorldName(world));
  request.set_ticks(ticks);
  return Call<v1::Frame>(*worlds_, &v1::WorldService::Stub::StepWorld, request);
}

absl::StatusOr<v1::SaveSnapshotResponse> Client::SaveSnapshot(absl::string_view world) {
  v1::SaveSnapshotRequest request;
  request.set_name(WorldName(world));
  return Call<v1::SaveSnapshotResponse>(*worlds_, &v1::WorldService::Stub::SaveSnapshot,
                                        request);
}

absl::StatusOr<v1::World> Client::RestoreSnapshot(absl::string_view world, std::string snapshot) {
  v1::RestoreSnapshotRequest request;
  request.set_name(WorldName(world));
  request.set_snapshot(std::move(snapshot));
  return Call<v1::World>(*worlds_, &v1::WorldService::Stub::RestoreSnapshot, request);
}

absl::StatusOr<v1::Body> Client::CreateBody(absl::string_view world, const v1::Body& body) {
  v1::CreateBodyRequest request;
  request.set_parent(WorldName(world));
  *request.mutable_body() = body;
  return Call<v1::Body>(*scenes_, &v1::SceneService::Stub::CreateBody, request);
}

absl::StatusOr<v1::Body> Client::UpdateBody(absl::string_view world, absl::string_view body_id,
                                            const v1::Body& changes,
                                            const std::vector<std::string>& update_mask) {
  v1::UpdateBodyRequest request;
  *request.mutable_body() = changes;
  request.mutable_body()->set_name(BodyName(world, body_id));
  SetMask(update_mask, request.mutable_update_mask());
  return Call<v1::Body>(*scenes_, &v1::SceneService::Stub::UpdateBody, request);
}

absl::StatusOr<v1::Constraint> Client::UpdateConstraint(
    absl::string_view world, absl::string_view constraint_id, const v1::Constraint& changes,
    const std::vector<std::string>& update_mask) {
  v1::UpdateConstraintRequest request;
  *request.mutable_constraint() = changes;
  request.mutable_constraint()->set_name(ConstraintName(world, constraint_id));
  SetMask(update_mask, request.mutable_update_mask());
  return Call<v1::Constraint>(*scenes_, &v1::SceneService::Stub::UpdateConstraint, request);
}

absl::Status Client::DeleteBody(absl::string_view world, absl::string_view body_id) {
  v1::DeleteBodyRequest request;
  request.set_name(BodyName(world, body_id));
  return Call<v1::DeleteBodyResponse>(*scenes_, &v1::SceneService::Stub::DeleteBody, request)
      .status();
}

absl::StatusOr<std::vector<std::string>> Client::AddToWorld(absl::string_view world,
                                                           const v1::Scene& content) {
  v1::BatchEditRequest request;
  request.set_parent(WorldName(world));
  for (const v1::Body& body : content.bodies()) *request.add_edits()->mutable_create_body() = body;
  for (const v1::Constraint& constraint : content.constraints()) {
    *request.add_edits()->mutable_create_constraint() = constraint;
  }
  absl::StatusOr<v1::BatchEditResponse> response =
      Call<v1::BatchEditResponse>(*scenes_, &v1::SceneService::Stub::BatchEdit, request);
  if (!response.ok()) return response.status();
  return std::vector<std::string>(response->created().begin(), response->created().end());
}

absl::StatusOr<v1::Scene> Client::ExportScene(absl::string_view world) {
  v1::ExportSceneRequest request;
  request.set_parent(WorldName(world));
  return Call<v1::Scene>(*scenes_, &v1::SceneService::Stub::ExportScene, request);
}

// Runs one Watch stream. The duration becomes the call deadline; a stop request or a
// callback returning false cancels the call. Cancellations we caused and the deadline we
// set are normal ends, not errors.
namespace {

// Reads a server stream opened by `open` on a context with the watch's deadline and stop
// token, handing each message to `on_message`, and says why it ended.
template <typename Message, typename Open>
absl::StatusOr<WatchSummary> ReadWatch(absl::Duration duration, const std::stop_token& stop,
                                       const Open& open,
                                       const std::function<bool(const Message&)>& on_message) {
  grpc::ClientContext context;
  const bool has_duration = duration != absl::InfiniteDuration();
  if (has_duration) context.set_deadline(absl::ToChronoTime(absl::Now() + duration));

  // Declared after `context` so that it is destroyed first: once destroyed, no callback is
  // running or will run, and the context is still alive while one does.
  std::atomic<bool> stop_requested{false};
  std::stop_callback cancel_on_stop(stop, [&] {
    stop_requested = true;
    context.TryCancel();
  });

  WatchSummary summary;
  bool callback_stopped = false;
  std::unique_ptr<grpc::ClientReader<Message>> reader = open(&context);
  Message message;
  while (reader->Read(&message)) {
    ++summary.frames;
    if (!on_message(message)) {
      callback_stopped = true;
      context.TryCancel();
      break;
    }
  }
  // Finish must follow a Read that returned false; drain what was in flight.
  if (callback_stopped) {
    while (reader->Read(&message)) {
    }
  }
  const grpc::Status status = reader->Finish();

  if ((callback_stopped || stop_requested) &&
      (status.ok() || status.error_code() == grpc::StatusCode::CANCELLED)) {
    summary.end = WatchEnd::kStopped;
  } else if (has_duration && status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    summary.end = WatchEnd::kDurationElapsed;
  } else if (!status.ok()) {
    return ToAbslStatus(status);
  } else {
    summary.end = WatchEnd::kServerClosed;
  }
  return summary;
}

}  // namespace

absl::StatusOr<WatchSummary> Client::Watch(const WatchOptions& options,
                                           const FrameCallback& on_frame) {
  v1::WatchRequest request;
  request.set_world(WorldName(options.world));
  request.set_max_rate_hz(options.max_rate_hz);
  for (const std::string& id : options.body_ids) request.add_body_ids(id);
  return ReadWatch<v1::Frame>(
      options.duration, options.stop,
      [&](grpc::ClientContext* context) { return sessions_->Watch(context, request); },
      on_frame);
}

absl::StatusOr<WatchSummary> Client::WatchEvents(const EventWatchOptions& options,
                                                 const EventsCallback& on_events) {
  v1::WatchEventsRequest request;
  request.set_world(WorldName(options.world));
  for (const std::string& id : options.body_ids) request.add_body_ids(id);
  if (options.layer_mask) request.set_layer_mask(*options.layer_mask);
  request.set_min_impulse(options.min_impulse);
  for (const v1::EventKind kind : options.kinds) request.add_kinds(kind);
  return ReadWatch<v1::WorldEvents>(
      options.duration, options.stop,
      [&](grpc::ClientContext* context) { return sessions_->WatchEvents(context, request); },
      on_events);
}

}  // namespace ligature::client
