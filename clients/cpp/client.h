#pragma once
// A synchronous C++ client for the Ligature server (package ligature.v1).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "clients/cpp/status_util.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "ligature/v1/asset_service.grpc.pb.h"
#include "ligature/v1/events.pb.h"
#include "ligature/v1/frame.pb.h"
#include "ligature/v1/query_service.grpc.pb.h"
#include "ligature/v1/scene.pb.h"
#include "ligature/v1/scene_service.grpc.pb.h"
#include "ligature/v1/session_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"

namespace ligature::client {

// How a client proves who it is and whom it trusts. One struct for every C++ client (the
// library, the `ligature` tool, the haptic simulator and the load tool).
struct Credentials {
  // TLS on the channel. Off: plaintext (the server serves that only on loopback unless
  // started with --allow_insecure).
  bool tls = false;
  // PEM file of the CA certificates that sign the server's certificate. Empty: the
  // system's roots. TLS only.
  std::string ca_file;
  // PEM client certificate chain and its private key, for a server that requires client
  // certificates (mutual TLS). Both or neither; TLS only.
  std::string cert_file;
  std::string key_file;
  // Bearer token sent as `authorization: Bearer TOKEN` on every call and stream. Empty:
  // none. Printable ASCII without spaces.
  std::string token;
};

// INVALID_ARGUMENT unless `token` is empty or printable ASCII without spaces (a token file
// holds one word per token).
absl::Status CheckToken(absl::string_view token);

// Makes channels with one set of credentials, its files read once (so a tool that opens
// many channels fails early or not at all).
class ChannelMaker {
 public:
  // Reads and checks `credentials`: INVALID_ARGUMENT names a file that cannot be read or
  // holds no PEM data, a combination that does not make sense (a CA or client certificate
  // without TLS, a certificate without its key), or a malformed token.
  static absl::StatusOr<ChannelMaker> Create(const Credentials& credentials);

  // A channel to `address` (host:port): TLS or not, the token added to every call's
  // metadata. `args` are passed to gRPC.
  std::shared_ptr<grpc::Channel> Make(absl::string_view address,
                                      const grpc::ChannelArguments& args) const;

 private:
  ChannelMaker() = default;
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials_;
  std::string token_;
};

// A channel to `address` (host:port) with `credentials`: TLS or not, the token added to
// every call's metadata. Files are read here: INVALID_ARGUMENT names one that cannot be read
// or holds no PEM data, and a combination that does not make sense (a CA or client
// certificate without TLS, a certificate without its key). `args` are passed to gRPC.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    absl::string_view address, const Credentials& credentials,
    const grpc::ChannelArguments& args);

// The channel arguments a Client uses (messages of any size, a small receive window).
grpc::ChannelArguments ClientChannelArguments();

struct ClientOptions {
  // Deadline of each unary call, measured from its start. Infinite means no deadline.
  absl::Duration rpc_timeout = absl::InfiniteDuration();
};

// What to watch and for how long.
struct WatchOptions {
  std::string world;                  // world id or name
  double max_rate_hz = 0;             // frames per second at most; 0 means the world's rate
  std::vector<std::string> body_ids;  // only these bodies; empty means all
  // The stream is cancelled once this much time has passed. Infinite means no limit.
  absl::Duration duration = absl::InfiniteDuration();
  // The stream is cancelled when a stop is requested on this token (e.g. from SIGINT).
  std::stop_token stop;
};

// Why a watch ended without an error.
enum class WatchEnd {
  kServerClosed,     // the server ended the stream
  kDurationElapsed,  // WatchOptions::duration passed
  kStopped,          // a stop was requested, or the frame callback returned false
};

struct WatchSummary {
  int64_t frames = 0;
  WatchEnd end = WatchEnd::kServerClosed;
};

// Called for each frame received; return false to end the watch.
using FrameCallback = std::function<bool(const ligature::v1::Frame&)>;

// Which contact and trigger events to watch, and for how long.
struct EventWatchOptions {
  std::string world;                  // world id or name
  std::vector<std::string> body_ids;  // events with one of these bodies; empty means all
  std::optional<uint32_t> layer_mask; // events with a rigid side on these layers; unset: all
  double min_impulse = 0.0;           // N s, contact events at least this strong
  std::vector<ligature::v1::EventKind> kinds;  // empty: every kind but CONTACT_PERSIST
  absl::Duration duration = absl::InfiniteDuration();
  std::stop_token stop;
};

// Called for each WorldEvents message (the first holds no events: the stream's starting
// tick); return false to end the watch. WatchSummary::frames counts the messages.
using EventsCallback = std::function<bool(const ligature::v1::WorldEvents&)>;

// Per-frame scene queries on one StreamQueries call: each Ask sends a request and waits
// for its answer. Not thread-safe; one per thread that asks.
class QueryStream {
 public:
  QueryStream(std::string world, std::unique_ptr<grpc::ClientContext> context,
              std::unique_ptr<grpc::ClientReaderWriter<ligature::v1::QueryRequest,
                                                       ligature::v1::QueryResponse>> stream)
      : world_(std::move(world)), context_(std::move(context)), stream_(std::move(stream)) {}
  ~QueryStream();

  // The answers to `queries` against the newest frame; a failed stream's status ends it.
  absl::StatusOr<ligature::v1::QueryResponse> Ask(
      const std::vector<ligature::v1::SceneQuery>& queries);
  // Ends the stream and returns its status.
  absl::Status Close();

 private:
  std::string world_;
  uint64_t next_id_ = 1;
  bool closed_ = false;
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReaderWriter<ligature::v1::QueryRequest, ligature::v1::QueryResponse>>
      stream_;
};

// One connection to a server. World arguments accept a world id ("demo") or name
// ("worlds/demo"). Errors carry the gRPC code and message of the failed call. The methods
// are thread-safe.
class Client {
 public:
  // Connects to `address` (host:port) over an insecure channel.
  explicit Client(absl::string_view address, ClientOptions options = {});
  // Connects to `address` with `credentials`; fails as MakeChannel does. No call is made:
  // a server that cannot be reached, or a TLS handshake that fails, shows as UNAVAILABLE
  // from the first call.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(absl::string_view address,
                                                         const Credentials& credentials,
                                                         ClientOptions options = {});
  // Uses an existing channel.
  explicit Client(std::shared_ptr<grpc::Channel> channel, ClientOptions options = {});

  // All worlds, following page tokens until the last page.
  absl::StatusOr<std::vector<ligature::v1::World>> ListWorlds();

  // Creates a world from an explicit scene. An empty `world_id` lets the server choose.
  absl::StatusOr<ligature::v1::World> CreateWorld(absl::string_view world_id,
                                                  const ligature::v1::Scene& scene);
  // Creates a world from a built-in scene such as "default".
  absl::StatusOr<ligature::v1::World> CreateWorldFromBuiltin(absl::string_view world_id,
                                                             absl::string_view scene_name);
  // Creates a world from a scene file when IsSceneFileSpec(scene_spec) (uploading the mesh
  // files it names), otherwise from the built-in scene of that name.
  absl::StatusOr<ligature::v1::World> CreateWorldFromSpec(absl::string_view world_id,
                                                          absl::string_view scene_spec);

  absl::StatusOr<ligature::v1::World> GetWorld(absl::string_view world);

  // Changes the fields of `changes` named by `update_mask` (e.g. "settings.rate_hz");
  // `changes.name` is ignored in favour of `world`.
  absl::StatusOr<ligature::v1::World> UpdateWorld(absl::string_view world,
                                                  const ligature::v1::World& changes,
                                                  const std::vector<std::string>& update_mask);

  absl::Status DeleteWorld(absl::string_view world);

  // Advances a paused world by `ticks` ticks and returns the resulting frame.
  absl::StatusOr<ligature::v1::Frame> StepWorld(absl::string_view world, int32_t ticks);

  // A world's complete state (serialized WorldSnapshot bytes and the tick they hold), and
  // back: RestoreSnapshot replaces world `world` or creates it.
  absl::StatusOr<ligature::v1::SaveSnapshotResponse> SaveSnapshot(absl::string_view world);
  absl::StatusOr<ligature::v1::World> RestoreSnapshot(absl::string_view world,
                                                      std::string snapshot);

  absl::StatusOr<ligature::v1::Body> CreateBody(absl::string_view world,
                                                const ligature::v1::Body& body);

  // Changes the fields of body `body_id` named by `update_mask` ("pose",
  // "linear_velocity", "angular_velocity", "material", "kind"), taking values from
  // `changes`.
  absl::StatusOr<ligature::v1::Body> UpdateBody(absl::string_view world, absl::string_view body_id,
                                                const ligature::v1::Body& changes,
                                                const std::vector<std::string>& update_mask);

  absl::Status DeleteBody(absl::string_view world, absl::string_view body_id);

  // Changes joint `constraint_id` in place: the fields named by `update_mask` (for example
  // "hinge.drive.target_position", "drive.frames.frame_b", "break_force"), taking values
  // from `changes`. Returns the joint as it now is.
  absl::StatusOr<ligature::v1::Constraint> UpdateConstraint(
      absl::string_view world, absl::string_view constraint_id,
      const ligature::v1::Constraint& changes, const std::vector<std::string>& update_mask);

  // Creates the bodies of `content`, then its constraints, in `world` in one BatchEdit (all
  // or nothing); returns the names of what was created.
  absl::StatusOr<std::vector<std::string>> AddToWorld(absl::string_view world,
                                                      const ligature::v1::Scene& content);

  // The world's current content, in a form CreateWorld accepts.
  absl::StatusOr<ligature::v1::Scene> ExportScene(absl::string_view world);

  // Stores a mesh as an asset (AssetService) and returns it without geometry; the same
  // geometry uploaded again returns the stored asset.
  absl::StatusOr<ligature::v1::Asset> UploadAsset(const ligature::v1::TriangleMesh& mesh,
                                                  absl::string_view display_name);
  // Imports a mesh file (mesh_import.h) and uploads it under the file's name.
  absl::StatusOr<ligature::v1::Asset> UploadMeshFile(absl::string_view path);
  // An asset by name (assets/{sha256}), with its geometry unless `skip_geometry`.
  absl::StatusOr<ligature::v1::Asset> GetAsset(absl::string_view name, bool skip_geometry);
  absl::StatusOr<std::vector<ligature::v1::Asset>> ListAssets();
  absl::Status DeleteAsset(absl::string_view name);

  // Uploads the mesh files the scene's shapes name (MeshAssetShape.file, relative to
  // `base_dir` unless absolute), each file once, and names the uploaded assets in their
  // place. Errors name the body and the file.
  absl::Status UploadSceneMeshFiles(ligature::v1::Scene* scene, absl::string_view base_dir);

  // Scene queries (QueryService) against the world's newest frame, answered in order.
  absl::StatusOr<ligature::v1::QueryResponse> Query(
      absl::string_view world, const std::vector<ligature::v1::SceneQuery>& queries);
  // A stream for per-frame queries (a pointer at display rate) to `world`.
  absl::StatusOr<std::unique_ptr<QueryStream>> OpenQueryStream(absl::string_view world);

  // Streams frames to `on_frame` until the server ends the stream, the duration passes, a
  // stop is requested or the callback returns false. The last three end the watch with
  // an OK result; a stream error is returned as such.
  absl::StatusOr<WatchSummary> Watch(const WatchOptions& options, const FrameCallback& on_frame);
  // Streams contact and trigger events to `on_events`, ending as Watch does.
  absl::StatusOr<WatchSummary> WatchEvents(const EventWatchOptions& options,
                                           const EventsCallback& on_events);

 private:
  // Applies the per-call deadline to a unary call's context.
  void PrepareUnary(grpc::ClientContext& context) const;

  // One unary call on `stub` with the per-call deadline; a failed call's status is returned.
  template <typename Response, typename Stub, typename Request>
  absl::StatusOr<Response> Call(
      Stub& stub, grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
      const Request& request) const {
    grpc::ClientContext context;
    PrepareUnary(context);
    Response response;
    const grpc::Status status = (stub.*method)(&context, request, &response);
    if (!status.ok()) return ToAbslStatus(status);
    return response;
  }

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<ligature::v1::WorldService::Stub> worlds_;
  std::unique_ptr<ligature::v1::AssetService::Stub> assets_;
  std::unique_ptr<ligature::v1::QueryService::Stub> queries_;
  std::unique_ptr<ligature::v1::SceneService::Stub> scenes_;
  std::unique_ptr<ligature::v1::SessionService::Stub> sessions_;
};

}  // namespace ligature::client
