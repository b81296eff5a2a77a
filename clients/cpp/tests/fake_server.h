#pragma once
// An in-process stand-in for the Ligature server, for tests of the client and the tool.
// It answers from canned data and records the requests it receives.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "grpcpp/server.h"
#include "ligature/v1/scene_service.grpc.pb.h"
#include "ligature/v1/session_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"

namespace ligature::client {

// The last request of each kind the fake received (and every ListWorlds request).
struct RecordedRequests {
  std::vector<ligature::v1::ListWorldsRequest> list_worlds;
  ligature::v1::CreateWorldRequest create_world;
  ligature::v1::GetWorldRequest get_world;
  ligature::v1::UpdateWorldRequest update_world;
  ligature::v1::DeleteWorldRequest delete_world;
  ligature::v1::StepWorldRequest step_world;
  ligature::v1::CreateBodyRequest create_body;
  ligature::v1::UpdateBodyRequest update_body;
  ligature::v1::DeleteBodyRequest delete_body;
  ligature::v1::ExportSceneRequest export_scene;
  ligature::v1::WatchRequest watch;
  ligature::v1::WatchEventsRequest watch_events;
};

// Canned behaviour:
// - ListWorlds serves `world_count` worlds w0, w1, ... two per page.
// - The world "missing" does not exist (NOT_FOUND from every call naming it); GetWorld of
//   "slow" answers after 2 s.
// - Watch sends a frame every 10 ms (tick 1, 2, ...; bodies "ball" and "box" filtered by
//   body_ids) until the client cancels or `watch_frames` frames were sent, if > 0.
// - WatchEvents sends its first, empty message (tick 0), then one of tick 1 with a contact
//   begin between "ball" and "ground" and a trigger enter of "ball" into "zone", and ends.
// - ExportScene returns `scene`.
class FakeServer {
 public:
  FakeServer();
  ~FakeServer();

  // host:port to connect to.
  const std::string& address() const { return address_; }

  // Settings; change them before the calls they affect.
  void set_world_count(int count);
  void set_watch_frames(int frames);
  void set_scene(const ligature::v1::Scene& scene);

  RecordedRequests recorded() const;

 private:
  class Services;

  std::unique_ptr<Services> services_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace ligature::client
