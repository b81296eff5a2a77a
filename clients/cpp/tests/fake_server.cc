#include "clients/cpp/tests/fake_server.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace ligature::client {

namespace v1 = ::ligature::v1;

namespace {

constexpr char kMissing[] = "worlds/missing";

grpc::Status NotFound(const std::string& name) {
  return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat(name, " not found"));
}

}  // namespace

// The three services in one object, sharing the settings and the record.
class FakeServer::Services final : public v1::WorldService::Service,
                                   public v1::SceneService::Service,
                                   public v1::SessionService::Service {
 public:
  mutable std::mutex mu;
  RecordedRequests recorded;
  int world_count = 0;
  int watch_frames = 0;
  v1::Scene scene;

  // World service: paging by index, two worlds per page.
  grpc::Status ListWorlds(grpc::ServerContext*, const v1::ListWorldsRequest* request,
                          v1::ListWorldsResponse* response) override {
    std::lock_guard lock(mu);
    recorded.list_worlds.push_back(*request);
    int first = 0;
    if (!request->page_token().empty() && !absl::SimpleAtoi(request->page_token(), &first)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad page token");
    }
    const int end = std::min(first + 2, world_count);
    for (int i = first; i < end; ++i) {
      response->add_worlds()->set_name(absl::StrCat("worlds/w", i));
    }
    if (end < world_count) response->set_next_page_token(absl::StrCat(end));
    return grpc::Status::OK;
  }

  grpc::Status CreateWorld(grpc::ServerContext*, const v1::CreateWorldRequest* request,
                           v1::World* world) override {
    std::lock_guard lock(mu);
    recorded.create_world = *request;
    if (request->world_id() == "exists") {
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS, "worlds/exists already exists");
    }
    world->set_name(
        absl::StrCat("worlds/", request->world_id().empty() ? "generated" : request->world_id()));
    return grpc::Status::OK;
  }

  grpc::Status GetWorld(grpc::ServerContext*, const v1::GetWorldRequest* request,
                        v1::World* world) override {
    {
      std::lock_guard lock(mu);
      recorded.get_world = *request;
    }
    if (request->name() == kMissing) return NotFound(request->name());
    if (request->name() == "worlds/slow") std::this_thread::sleep_for(std::chrono::seconds(2));
    world->set_name(request->name());
    world->set_tick(7);
    world->mutable_settings()->set_rate_hz(60);
    return grpc::Status::OK;
  }

  grpc::Status UpdateWorld(grpc::ServerContext*, const v1::UpdateWorldRequest* request,
                           v1::World* world) override {
    std::lock_guard lock(mu);
    recorded.update_world = *request;
    if (request->world().name() == kMissing) return NotFound(request->world().name());
    *world = request->world();
    return grpc::Status::OK;
  }

  grpc::Status DeleteWorld(grpc::ServerContext*, const v1::DeleteWorldRequest* request,
                           v1::DeleteWorldResponse*) override {
    std::lock_guard lock(mu);
    recorded.delete_world = *request;
    if (request->name() == kMissing) return NotFound(request->name());
    return grpc::Status::OK;
  }

  grpc::Status StepWorld(grpc::ServerContext*, const v1::StepWorldRequest* request,
                         v1::Frame* frame) override {
    std::lock_guard lock(mu);
    recorded.step_world = *request;
    if (request->name() == kMissing) return NotFound(request->name());
    if (request->ticks() < 1) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "ticks must be in [1, 100000]");
    }
    frame->set_world(request->name());
    frame->set_tick(request->ticks());
    frame->set_sim_time(request->ticks() / 60.0);
    frame->add_bodies()->set_id("ball");
    return grpc::Status::OK;
  }

  // Scene service: echoes bodies back with their names filled in.
  grpc::Status CreateBody(grpc::ServerContext*, const v1::CreateBodyRequest* request,
                          v1::Body* body) override {
    std::lock_guard lock(mu);
    recorded.create_body = *request;
    if (request->parent() == kMissing) return NotFound(request->parent());
    *body = request->body();
    body->set_name(absl::StrCat(request->parent(), "/bodies/", request->body().id()));
    return grpc::Status::OK;
  }

  grpc::Status UpdateBody(grpc::ServerContext*, const v1::UpdateBodyRequest* request,
                          v1::Body* body) override {
    std::lock_guard lock(mu);
    recorded.update_body = *request;
    *body = request->body();
    return grpc::Status::OK;
  }

  grpc::Status DeleteBody(grpc::ServerContext*, const v1::DeleteBodyRequest* request,
                          v1::DeleteBodyResponse*) override {
    std::lock_guard lock(mu);
    recorded.delete_body = *request;
    return grpc::Status::OK;
  }

  grpc::Status ExportScene(grpc::ServerContext*, const v1::ExportSceneRequest* request,
                           v1::Scene* response) override {
    std::lock_guard lock(mu);
    recorded.export_scene = *request;
    if (request->parent() == kMissing) return NotFound(request->parent());
    *response = scene;
    return grpc::Status::OK;
  }

  // Session service: a frame every 10 ms until cancelled or the frame limit.
  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::Frame>* writer) override {
    int limit = 0;
    {
      std::lock_guard lock(mu);
      recorded.watch = *request;
      limit = watch_frames;
    }
    if (request->world() == kMissing) return NotFound(request->world());
    for (int tick = 1; limit <= 0 || tick <= limit; ++tick) {
      if (context->IsCancelled()) return grpc::Status::CANCELLED;
      v1::Frame frame;
      frame.set_world(request->world());
      frame.set_tick(tick);
      frame.set_sim_time(tick / 60.0);
      for (const char* id : {"ball", "box"}) {
        const bool wanted = request->body_ids().empty() ||
                            std::find(request->body_ids().begin(), request->body_ids().end(), id) !=
                                request->body_ids().end();
        if (wanted) frame.add_bodies()->set_id(id);
      }
      if (!writer->Write(frame)) return grpc::Status::CANCELLED;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return grpc::Status::OK;
  }

  grpc::Status WatchEvents(grpc::ServerContext*, const v1::WatchEventsRequest* request,
                           grpc::ServerWriter<v1::WorldEvents>* writer) override {
    {
      std::lock_guard lock(mu);
      recorded.watch_events = *request;
    }
    if (request->world() == kMissing) return NotFound(request->world());
    v1::WorldEvents events;
    events.set_world(request->world());
    if (!writer->Write(events)) return grpc::Status::CANCELLED;
    events.set_tick(1);
    v1::ContactEvent* c = events.add_contacts();
    c->set_kind(v1::CONTACT_BEGIN);
    c->set_body_a("ground");
    c->set_body_b("ball");
    c->set_normal_impulse(0.75);
    c->set_normal_speed(3.5);
    c->set_point_count(1);
    v1::TriggerEvent* t = events.add_triggers();
    t->set_kind(v1::TRIGGER_ENTER);
    t->set_sensor("zone");
    t->set_body("ball");
    writer->Write(events);
    return grpc::Status::OK;
  }
};

FakeServer::FakeServer() : services_(std::make_unique<Services>()) {
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(static_cast<v1::WorldService::Service*>(services_.get()));
  builder.RegisterService(static_cast<v1::SceneService::Service*>(services_.get()));
  builder.RegisterService(static_cast<v1::SessionService::Service*>(services_.get()));
  server_ = builder.BuildAndStart();
  address_ = absl::StrCat("127.0.0.1:", port);
}

// Streams still open are cancelled after a short grace period.
FakeServer::~FakeServer() {
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
}

void FakeServer::set_world_count(int count) {
  std::lock_guard lock(services_->mu);
  services_->world_count = count;
}

void FakeServer::set_watch_frames(int frames) {
  std::lock_guard lock(services_->mu);
  services_->watch_frames = frames;
}

void FakeServer::set_scene(const v1::Scene& scene) {
  std::lock_guard lock(services_->mu);
  services_->scene = scene;
}

RecordedRequests FakeServer::recorded() const {
  std::lock_guard lock(services_->mu);
  return services_->recorded;
}

}  // namespace ligature::client
