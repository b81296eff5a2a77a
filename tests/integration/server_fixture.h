#pragma once
// A real ligatured server on a loopback port, and stubs connected to it.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "ligature/v1/scene_service.grpc.pb.h"
#include "ligature/v1/session_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"
#include "server/rpc/server.h"

namespace ligature::testing {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.worlds.max_worlds = 8;
    options.worlds.world_limits.max_bodies = 200;
    options.max_message_bytes = 1 << 20;
    Customize(&options);
    server_ = std::make_unique<Server>(options);
    ASSERT_TRUE(server_->Start().ok());
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                                   grpc::InsecureChannelCredentials());
    worlds_ = v1::WorldService::NewStub(channel_);
    scenes_ = v1::SceneService::NewStub(channel_);
    sessions_ = v1::SessionService::NewStub(channel_);
  }
  void TearDown() override {
    if (server_) server_->Shutdown(absl::Milliseconds(200));
  }
  virtual void Customize(ServerOptions*) {}

  // Creates a world from a built-in scene; fails the test on error.
  v1::World CreateWorld(const std::string& id, const std::string& scene_name) {
    grpc::ClientContext ctx;
    v1::CreateWorldRequest req;
    req.set_world_id(id);
    req.set_scene_name(scene_name);
    v1::World world;
    const grpc::Status s = worlds_->CreateWorld(&ctx, req, &world);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return world;
  }

  // Creates a world from an explicit scene.
  grpc::Status CreateWorld(const std::string& id, const v1::Scene& scene, v1::World* out) {
    grpc::ClientContext ctx;
    v1::CreateWorldRequest req;
    req.set_world_id(id);
    *req.mutable_scene() = scene;
    return worlds_->CreateWorld(&ctx, req, out);
  }

  grpc::Status SetPaused(const std::string& world, bool paused) {
    grpc::ClientContext ctx;
    v1::UpdateWorldRequest req;
    req.mutable_world()->set_name(world);
    req.mutable_world()->mutable_settings()->set_paused(paused);
    req.mutable_update_mask()->add_paths("settings.paused");
    v1::World out;
    return worlds_->UpdateWorld(&ctx, req, &out);
  }

  // CreateBody / CreateConstraint in `world` (e.g. "worlds/w").
  grpc::Status CreateBodyIn(const std::string& world, const v1::Body& body) {
    grpc::ClientContext ctx;
    v1::CreateBodyRequest req;
    req.set_parent(world);
    *req.mutable_body() = body;
    v1::Body out;
    return scenes_->CreateBody(&ctx, req, &out);
  }
  grpc::Status CreateConstraintIn(const std::string& world, const v1::Constraint& c) {
    grpc::ClientContext ctx;
    v1::CreateConstraintRequest req;
    req.set_parent(world);
    *req.mutable_constraint() = c;
    v1::Constraint out;
    return scenes_->CreateConstraint(&ctx, req, &out);
  }

  grpc::Status Step(const std::string& world, int ticks, v1::Frame* frame) {
    grpc::ClientContext ctx;
    v1::StepWorldRequest req;
    req.set_name(world);
    req.set_ticks(ticks);
    return worlds_->StepWorld(&ctx, req, frame);
  }

  std::unique_ptr<Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::WorldService::Stub> worlds_;
  std::unique_ptr<v1::SceneService::Stub> scenes_;
  std::unique_ptr<v1::SessionService::Stub> sessions_;
};

// A small paused scene: ground plane and one ball.
inline v1::Scene BallScene() {
  v1::Scene scene;
  scene.mutable_settings()->set_rate_hz(100);
  scene.mutable_settings()->set_paused(true);
  v1::Body* ground = scene.add_bodies();
  ground->set_id("ground");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_plane();
  v1::Body* ball = scene.add_bodies();
  ball->set_id("ball");
  ball->mutable_shape()->mutable_sphere()->set_radius(0.1);
  ball->mutable_pose()->mutable_position()->set_y(1.0);
  return scene;
}

// BallScene with a kinematic post standing still at x = 5 (a sphere of 0.2 m, 1 m up): a
// body that never moves beside one that falls, for region and delta filters.
inline v1::Scene BallAndPostScene() {
  v1::Scene scene = BallScene();
  v1::Body* post = scene.add_bodies();
  post->set_id("post");
  post->set_kind(v1::BODY_KIND_KINEMATIC);
  post->mutable_shape()->mutable_sphere()->set_radius(0.2);
  post->mutable_pose()->mutable_position()->set_x(5.0);
  post->mutable_pose()->mutable_position()->set_y(1.0);
  return scene;
}

// One open Watch stream, cancelled and drained when it goes.
struct WatchStream {
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientReader<v1::Frame>> reader;
  ~WatchStream() {
    ctx.TryCancel();
    v1::Frame f;
    while (reader->Read(&f)) {
    }
    reader->Finish();
  }
};

inline std::unique_ptr<WatchStream> OpenWatch(v1::SessionService::Stub* stub,
                                              const v1::WatchRequest& req) {
  auto s = std::make_unique<WatchStream>();
  s->reader = stub->Watch(&s->ctx, req);
  return s;
}

// The body with this id in a frame, or null.
inline const v1::BodyState* FindBody(const v1::Frame& frame, const std::string& id) {
  for (const v1::BodyState& b : frame.bodies()) {
    if (b.id() == id) return &b;
  }
  return nullptr;
}

}  // namespace ligature::testing
