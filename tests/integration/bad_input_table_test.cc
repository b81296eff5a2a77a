// Every RPC of every ligature.v1 service, and for each request field that can be invalid, an
// invalid value: the call fails with the right code, its message names the field, and the
// world it was aimed at keeps ticking with nothing it held lost.

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One row: an RPC, the field made invalid, the code expected, and the call.
struct BadCase {
  std::string rpc;
  std::string field;  // the message must contain it
  grpc::StatusCode code;
  std::function<grpc::Status()> call;
};

// A paused world "w" (ground, ball, a box pinned to the world by constraint "pin") that each
// row aims at, and a running world "live".
class BadInputTableTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::Scene scene = BallScene();
    v1::Body* box = scene.add_bodies();
    box->set_id("box");
    box->mutable_shape()->mutable_box()->mutable_half_extents()->set_x(0.1);
    box->mutable_shape()->mutable_box()->mutable_half_extents()->set_y(0.1);
    box->mutable_shape()->mutable_box()->mutable_half_extents()->set_z(0.1);
    box->mutable_pose()->mutable_position()->set_x(1.0);
    box->mutable_pose()->mutable_position()->set_y(1.0);
    v1::Constraint* pin = scene.add_constraints();
    pin->set_id("pin");
    pin->mutable_point()->set_body_a("box");
    pin->mutable_point()->mutable_anchor_b()->set_x(1.0);
    pin->mutable_point()->mutable_anchor_b()->set_y(1.1);
    v1::World out;
    ASSERT_TRUE(CreateWorld("w", scene, &out).ok());
    v1::Scene live = BallScene();
    live.mutable_settings()->set_paused(false);
    ASSERT_TRUE(CreateWorld("live", live, &out).ok());
  }

  // Calls with a deadline, so a server that never answers fails the row instead of hanging.
  static void Deadline(grpc::ClientContext* ctx) {
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  }

  grpc::Status CreateWorldCall(const v1::CreateWorldRequest& req) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::World out;
    return worlds_->CreateWorld(&ctx, req, &out);
  }
  grpc::Status GetWorldCall(const std::string& name) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::GetWorldRequest req;
    req.set_name(name);
    v1::World out;
    return worlds_->GetWorld(&ctx, req, &out);
  }
  grpc::Status ListWorldsCall(int page_size, const std::string& token) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::ListWorldsRequest req;
    req.set_page_size(page_size);
    req.set_page_token(token);
    v1::ListWorldsResponse out;
    return worlds_->ListWorlds(&ctx, req, &out);
  }
  // UpdateWorld of "worlds/w" with `edit` applied to the request's settings and `path` masked.
  grpc::Status UpdateWorldCall(const std::string& name, const std::string& path,
                               const std::function<void(v1::WorldSettings*)>& edit) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::UpdateWorldRequest req;
    req.mutable_world()->set_name(name);
    req.mutable_world()->mutable_settings()->set_rate_hz(100);
    req.mutable_world()->mutable_settings()->set_paused(true);
    edit(req.mutable_world()->mutable_settings());
    if (!path.empty()) req.mutable_update_mask()->add_paths(path);
    v1::World out;
    return worlds_->UpdateWorld(&ctx, req, &out);
  }
  grpc::Status DeleteWorldCall(const std::string& name) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::DeleteWorldRequest req;
    req.set_name(name);
    v1::DeleteWorldResponse out;
    return worlds_->DeleteWorld(&ctx, req, &out);
  }
  grpc::Status StepCall(const std::string& name, int ticks) {
    v1::Frame frame;
    return Step(name, ticks, &frame);
  }
  grpc::Status CreateBodyCall(const std::string& parent, const v1::Body& body) {
    return CreateBodyIn(parent, body);
  }
  grpc::Status UpdateBodyCall(const std::string& name, const std::string& path,
                              const std::function<void(v1::Body*)>& edit) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name(name);
    edit(req.mutable_body());
    if (!path.empty()) req.mutable_update_mask()->add_paths(path);
    v1::Body out;
    return scenes_->UpdateBody(&ctx, req, &out);
  }
  grpc::Status DeleteBodyCall(const std::string& name) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::DeleteBodyRequest req;
    req.set_name(name);
    v1::DeleteBodyResponse out;
    return scenes_->DeleteBody(&ctx, req, &out);
  }
  grpc::Status DeleteConstraintCall(const std::string& name) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::DeleteConstraintRequest req;
    req.set_name(name);
    v1::DeleteConstraintResponse out;
    return scenes_->DeleteConstraint(&ctx, req, &out);
  }
  grpc::Status BatchCall(const std::string& parent, const std::vector<v1::Edit>& edits) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::BatchEditRequest req;
    req.set_parent(parent);
    for (const v1::Edit& e : edits) *req.add_edits() = e;
    v1::BatchEditResponse out;
    return scenes_->BatchEdit(&ctx, req, &out);
  }
  grpc::Status ExportCall(const std::string& parent) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::ExportSceneRequest req;
    req.set_parent(parent);
    v1::Scene out;
    return scenes_->ExportScene(&ctx, req, &out);
  }
  // A Watch stream: its final status (a valid request would stream; it is cancelled after
  // the first frame and yields CANCELLED).
  grpc::Status WatchCall(const v1::WatchRequest& req) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    auto reader = sessions_->Watch(&ctx, req);
    v1::Frame frame;
    if (reader->Read(&frame)) ctx.TryCancel();
    while (reader->Read(&frame)) {
    }
    return reader->Finish();
  }
  // An Interact stream sending `messages`, then reading until the server ends it.
  grpc::Status InteractCall(const std::vector<v1::InteractRequest>& messages) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    auto stream = sessions_->Interact(&ctx);
    for (const auto& m : messages) {
      if (!stream->Write(m)) break;
    }
    stream->WritesDone();
    v1::Frame frame;
    int frames = 0;
    while (stream->Read(&frame)) {
      if (++frames > 50) ctx.TryCancel();
    }
    return stream->Finish();
  }
  // A Haptics stream sending `messages`, then reading until the server ends it.
  grpc::Status HapticsCall(const std::vector<v1::HapticsRequest>& messages) {
    auto stub = v1::HapticsService::NewStub(channel_);
    grpc::ClientContext ctx;
    Deadline(&ctx);
    auto stream = stub->Haptics(&ctx);
    for (const auto& m : messages) {
      if (!stream->Write(m)) break;
    }
    stream->WritesDone();
    v1::HapticsResponse resp;
    int replies = 0;
    while (stream->Read(&resp)) {
      if (++replies > 50) ctx.TryCancel();
    }
    return stream->Finish();
  }

  // The world still ticks: one step advances it, every body it held is there, and every
  // number of the frame is finite.
  void ExpectWorldTicks(const std::string& row) {
    v1::Frame frame;
    const grpc::Status s = Step("worlds/w", 1, &frame);
    ASSERT_TRUE(s.ok()) << row << ": " << s.error_message();
    EXPECT_GT(frame.tick(), last_tick_) << row;
    last_tick_ = frame.tick();
    EXPECT_EQ(frame.bodies_size(), 3) << row;
    for (const auto& b : frame.bodies()) {
      EXPECT_TRUE(std::isfinite(b.pose().position().x()) &&
                  std::isfinite(b.pose().position().y()) &&
                  std::isfinite(b.pose().position().z()))
          << row << ": " << b.id();
    }
  }

  uint64_t last_tick_ = 0;
};

v1::Body Ball() {
  v1::Body b;
  b.mutable_shape()->mutable_sphere()->set_radius(0.1);
  b.mutable_pose()->mutable_position()->set_y(3.0);
  return b;
}

// `Ball()` changed by `edit`.
v1::Body BallWith(const std::function<void(v1::Body*)>& edit) {
  v1::Body b = Ball();
  edit(&b);
  return b;
}

// A CreateWorldRequest for a small valid scene changed by `edit`.
v1::CreateWorldRequest SceneWith(const std::function<void(v1::Scene*)>& edit) {
  v1::CreateWorldRequest req;
  req.set_world_id("fresh");
  *req.mutable_scene() = BallScene();
  edit(req.mutable_scene());
  return req;
}

v1::Edit CreateEdit(const v1::Body& body) {
  v1::Edit e;
  *e.mutable_create_body() = body;
  return e;
}

v1::InteractRequest InteractOpen(const std::string& world) {
  v1::InteractRequest r;
  r.set_world(world);
  return r;
}

v1::InteractRequest PoseMessage(const std::string& body, double x) {
  v1::InteractRequest r;
  v1::DevicePose* p = r.add_poses();
  p->set_body_id(body);
  p->mutable_pose()->mutable_position()->set_x(x);
  return r;
}

v1::HapticsRequest HapticOpenWith(const std::function<void(v1::HapticOpen*)>& edit) {
  v1::HapticsRequest r;
  v1::HapticOpen* open = r.mutable_open();
  open->set_world("worlds/w");
  open->set_tool_body_id("ball");
  open->set_device_id("dev");
  edit(open);
  return r;
}

TEST_F(BadInputTableTest, EveryInvalidFieldIsNamedAndTheWorldKeepsTicking) {
  using grpc::StatusCode;
  const StatusCode kInvalid = StatusCode::INVALID_ARGUMENT;
  const StatusCode kNotFound = StatusCode::NOT_FOUND;
  auto settings_row = [this](const std::string& path,
                             std::function<void(v1::WorldSettings*)> edit) {
    return [this, path, edit] { return UpdateWorldCall("worlds/w", path, edit); };
  };
  auto body_row = [this](std::function<void(v1::Body*)> edit) {
    return [this, edit] { return CreateBodyCall("worlds/w", BallWith(edit)); };
  };
  auto update_row = [this](const std::string& path, std::function<void(v1::Body*)> edit) {
    return [this, path, edit] { return UpdateBodyCall("worlds/w/bodies/ball", path, edit); };
  };
  auto constraint_row = [this](std::function<void(v1::Constraint*)> edit) {
    return [this, edit] {
      v1::Constraint c;
      edit(&c);
      return CreateConstraintIn("worlds/w", c);
    };
  };
  auto scene_row = [this](std::function<void(v1::Scene*)> edit) {
    return [this, edit] { return CreateWorldCall(SceneWith(edit)); };
  };
  auto watch_row = [this](std::function<void(v1::WatchRequest*)> edit) {
    return [this, edit] {
      v1::WatchRequest req;
      req.set_world("worlds/w");
      edit(&req);
      return WatchCall(req);
    };
  };
  auto haptic_row = [this](std::function<void(v1::HapticOpen*)> edit) {
    return [this, edit] { return HapticsCall({HapticOpenWith(edit)}); };
  };
  auto hinge = [](v1::Constraint* c) {
    c->mutable_hinge()->mutable_frames()->set_body_a("box");
  };

  const std::vector<BadCase> table = {
      // WorldService.CreateWorld
      {"CreateWorld", "world_id", kInvalid,
       [this] {
         v1::CreateWorldRequest req;
         req.set_world_id("Not An Id!");
         req.set_scene_name("default");
         return CreateWorldCall(req);
       }},
      {"CreateWorld", "w already exists", StatusCode::ALREADY_EXISTS,
       [this] {
         v1::CreateWorldRequest req;
         req.set_world_id("w");
         return CreateWorldCall(req);
       }},
      {"CreateWorld", "scene_name", kInvalid,
       [this] {
         v1::CreateWorldRequest req;
         req.set_scene_name("no-such-scene");
         return CreateWorldCall(req);
       }},
      {"CreateWorld", "scene.settings.rate_hz", kInvalid,
       scene_row([](v1::Scene* s) { s->mutable_settings()->set_rate_hz(5000); })},
      {"CreateWorld", "scene.settings.gravity.y", kInvalid,
       scene_row([](v1::Scene* s) { s->mutable_settings()->mutable_gravity()->set_y(kNan); })},
      {"CreateWorld", "scene.settings.solver.kind", kInvalid,
       scene_row([](v1::Scene* s) {
         s->mutable_settings()->mutable_solver()->set_kind(static_cast<v1::SolverKind>(99));
       })},
      {"CreateWorld", "scene.settings.solver.max_iterations", kInvalid,
       scene_row([](v1::Scene* s) {
         s->mutable_settings()->mutable_solver()->set_max_iterations(-1);
       })},
      {"CreateWorld", "scene.settings.solver.tolerance", kInvalid,
       scene_row([](v1::Scene* s) { s->mutable_settings()->mutable_solver()->set_tolerance(-1); })},
      {"CreateWorld", "scene.settings.solver.time_budget_us", kInvalid,
       scene_row([](v1::Scene* s) {
         s->mutable_settings()->mutable_solver()->set_time_budget_us(-5);
       })},
      {"CreateWorld", "scene.settings.solver.position_share", kInvalid,
       scene_row([](v1::Scene* s) {
         s->mutable_settings()->mutable_solver()->set_position_share(2.0);
       })},
      {"CreateWorld", "scene.settings.solver.substeps", kInvalid,
       scene_row([](v1::Scene* s) { s->mutable_settings()->mutable_solver()->set_substeps(0); })},
      {"CreateWorld", "scene.settings.contact_margin", kInvalid,
       scene_row([](v1::Scene* s) { s->mutable_settings()->set_contact_margin(-1.0); })},
      {"CreateWorld", "scene.settings.sleep.time_to_sleep", kInvalid,
       scene_row([](v1::Scene* s) {
         s->mutable_settings()->mutable_sleep()->set_time_to_sleep(-1.0);
       })},
      {"CreateWorld", "scene.bodies[1].shape.sphere.radius", kInvalid,
       scene_row([](v1::Scene* s) {
         s->mutable_bodies(1)->mutable_shape()->mutable_sphere()->set_radius(-1);
       })},
      {"CreateWorld", "scene.bodies[1].id", kInvalid,
       scene_row([](v1::Scene* s) { s->mutable_bodies(1)->set_id("Bad Id"); })},
      {"CreateWorld", "bodies[1]", StatusCode::ALREADY_EXISTS,
       scene_row([](v1::Scene* s) { s->mutable_bodies(1)->set_id("ground"); })},
      {"CreateWorld", "constraints[0]", kNotFound,
       scene_row([](v1::Scene* s) { s->add_constraints()->mutable_point()->set_body_a("ghost"); })},
      // WorldService.GetWorld
      {"GetWorld", "name", kInvalid, [this] { return GetWorldCall("planets/x"); }},
      {"GetWorld", "name", kInvalid, [this] { return GetWorldCall(""); }},
      {"GetWorld", "nope", kNotFound, [this] { return GetWorldCall("worlds/nope"); }},
      // WorldService.ListWorlds
      {"ListWorlds", "page_size", kInvalid, [this] { return ListWorldsCall(-1, ""); }},
      {"ListWorlds", "page_size", kInvalid, [this] { return ListWorldsCall(1001, ""); }},
      {"ListWorlds", "page_token", kInvalid, [this] { return ListWorldsCall(0, "Bad Token!"); }},
      // WorldService.UpdateWorld
      {"UpdateWorld", "world.name", kInvalid,
       [this] { return UpdateWorldCall("planets/w", "settings.paused", [](auto*) {}); }},
      {"UpdateWorld", "nope", kNotFound,
       [this] { return UpdateWorldCall("worlds/nope", "settings.paused", [](auto*) {}); }},
      {"UpdateWorld", "update_mask", kInvalid,
       [this] { return UpdateWorldCall("worlds/w", "", [](auto*) {}); }},
      {"UpdateWorld", "update_mask.paths[0]", kInvalid,
       [this] { return UpdateWorldCall("worlds/w", "settings.colour", [](auto*) {}); }},
      {"UpdateWorld", "world.settings.rate_hz", kInvalid,
       settings_row("settings.rate_hz", [](v1::WorldSettings* s) { s->set_rate_hz(5000); })},
      {"UpdateWorld", "world.settings.rate_hz", kInvalid,
       settings_row("settings.rate_hz", [](v1::WorldSettings* s) { s->set_rate_hz(kNan); })},
      {"UpdateWorld", "world.settings.gravity.x", kInvalid,
       settings_row("settings.gravity",
                    [](v1::WorldSettings* s) { s->mutable_gravity()->set_x(kInf); })},
      {"UpdateWorld", "world.settings.solver.kind", kInvalid,
       settings_row("settings.solver.kind", [](v1::WorldSettings* s) {
         s->mutable_solver()->set_kind(static_cast<v1::SolverKind>(99));
       })},
      {"UpdateWorld", "world.settings.solver.max_iterations", kInvalid,
       settings_row("settings.solver.max_iterations",
                    [](v1::WorldSettings* s) { s->mutable_solver()->set_max_iterations(0); })},
      {"UpdateWorld", "world.settings.solver.max_iterations", kInvalid,
       settings_row("settings.solver.max_iterations", [](v1::WorldSettings* s) {
         s->mutable_solver()->set_max_iterations(20000);
       })},
      {"UpdateWorld", "world.settings.solver.tolerance", kInvalid,
       settings_row("settings.solver.tolerance",
                    [](v1::WorldSettings* s) { s->mutable_solver()->set_tolerance(kNan); })},
      {"UpdateWorld", "world.settings.solver.time_budget_us", kInvalid,
       settings_row("settings.solver.time_budget_us",
                    [](v1::WorldSettings* s) { s->mutable_solver()->set_time_budget_us(-1); })},
      {"UpdateWorld", "world.settings.solver.position_share", kInvalid,
       settings_row("settings.solver.position_share",
                    [](v1::WorldSettings* s) { s->mutable_solver()->set_position_share(-0.5); })},
      {"UpdateWorld", "world.settings.solver.substeps", kInvalid,
       settings_row("settings.solver.substeps",
                    [](v1::WorldSettings* s) { s->mutable_solver()->set_substeps(65); })},
      {"UpdateWorld", "world.settings.contact_margin", kInvalid,
       settings_row("settings.contact_margin",
                    [](v1::WorldSettings* s) { s->set_contact_margin(kInf); })},
      {"UpdateWorld", "world.settings.sleep.linear_speed", kInvalid,
       settings_row("settings.sleep",
                    [](v1::WorldSettings* s) { s->mutable_sleep()->set_linear_speed(kNan); })},
      // WorldService.DeleteWorld
      {"DeleteWorld", "name", kInvalid, [this] { return DeleteWorldCall("w"); }},
      {"DeleteWorld", "name", kInvalid, [this] { return DeleteWorldCall("worlds/w/bodies/x"); }},
      {"DeleteWorld", "nope", kNotFound, [this] { return DeleteWorldCall("worlds/nope"); }},
      // WorldService.StepWorld
      {"StepWorld", "name", kInvalid, [this] { return StepCall("w!", 1); }},
      {"StepWorld", "nope", kNotFound, [this] { return StepCall("worlds/nope", 1); }},
      {"StepWorld", "ticks", kInvalid, [this] { return StepCall("worlds/w", 0); }},
      {"StepWorld", "ticks", kInvalid, [this] { return StepCall("worlds/w", 100001); }},
      {"StepWorld", "paused", StatusCode::FAILED_PRECONDITION,
       [this] { return StepCall("worlds/live", 1); }},
      // SceneService.CreateBody
      {"CreateBody", "parent", kInvalid, [this] { return CreateBodyCall("w", Ball()); }},
      {"CreateBody", "nope", kNotFound, [this] { return CreateBodyCall("worlds/nope", Ball()); }},
      {"CreateBody", "body.id", kInvalid, body_row([](v1::Body* b) { b->set_id("Bad Id"); })},
      {"CreateBody", "ball", StatusCode::ALREADY_EXISTS,
       body_row([](v1::Body* b) { b->set_id("ball"); })},
      {"CreateBody", "body.kind", kInvalid,
       body_row([](v1::Body* b) { b->set_kind(static_cast<v1::BodyKind>(9)); })},
      {"CreateBody", "body.shape", kInvalid, body_row([](v1::Body* b) { b->clear_shape(); })},
      {"CreateBody", "body.shape.sphere.radius", kInvalid,
       body_row([](v1::Body* b) { b->mutable_shape()->mutable_sphere()->set_radius(kNan); })},
      {"CreateBody", "body.shape.box.half_extents.z", kInvalid,
       body_row([](v1::Body* b) {
         auto* h = b->mutable_shape()->mutable_box()->mutable_half_extents();
         h->set_x(1);
         h->set_y(1);
         h->set_z(0);
       })},
      {"CreateBody", "body.shape.capsule.radius", kInvalid,
       body_row([](v1::Body* b) {
         b->mutable_shape()->mutable_capsule()->set_radius(-1);
         b->mutable_shape()->mutable_capsule()->set_half_length(1);
       })},
      {"CreateBody", "body.shape.capsule.half_length", kInvalid,
       body_row([](v1::Body* b) {
         b->mutable_shape()->mutable_capsule()->set_radius(0.1);
         b->mutable_shape()->mutable_capsule()->set_half_length(kInf);
       })},
      {"CreateBody", "body.shape.compound.children", kInvalid,
       body_row([](v1::Body* b) { b->mutable_shape()->mutable_compound(); })},
      {"CreateBody", "body.shape.compound.children[0].pose.orientation", kInvalid,
       body_row([](v1::Body* b) {
         auto* c = b->mutable_shape()->mutable_compound()->add_children();
         c->mutable_shape()->mutable_sphere()->set_radius(0.1);
         c->mutable_pose()->mutable_orientation()->set_w(3);
       })},
      {"CreateBody", "body.kind", kInvalid,
       body_row([](v1::Body* b) { b->mutable_shape()->mutable_plane(); })},
      {"CreateBody", "body.pose.position.x", kInvalid,
       body_row([](v1::Body* b) { b->mutable_pose()->mutable_position()->set_x(kNan); })},
      {"CreateBody", "body.pose.position", kInvalid,
       body_row([](v1::Body* b) { b->mutable_pose()->mutable_position()->set_y(1e9); })},
      {"CreateBody", "body.pose.orientation", kInvalid,
       body_row([](v1::Body* b) { b->mutable_pose()->mutable_orientation()->set_x(2); })},
      {"CreateBody", "body.linear_velocity.x", kInvalid,
       body_row([](v1::Body* b) { b->mutable_linear_velocity()->set_x(kInf); })},
      {"CreateBody", "body.linear_velocity", kInvalid,
       body_row([](v1::Body* b) { b->mutable_linear_velocity()->set_x(1e6); })},
      {"CreateBody", "body.angular_velocity.z", kInvalid,
       body_row([](v1::Body* b) { b->mutable_angular_velocity()->set_z(kNan); })},
      {"CreateBody", "body.material.density", kInvalid,
       body_row([](v1::Body* b) { b->mutable_material()->set_density(-1); })},
      {"CreateBody", "body.material.mass", kInvalid,
       body_row([](v1::Body* b) { b->mutable_material()->set_mass(kNan); })},
      {"CreateBody", "body.material.friction", kInvalid,
       body_row([](v1::Body* b) { b->mutable_material()->set_friction(-0.5); })},
      {"CreateBody", "body.material.restitution", kInvalid,
       body_row([](v1::Body* b) { b->mutable_material()->set_restitution(2); })},
      {"CreateBody", "body.scalpel.cut_depth", kInvalid,
       body_row([](v1::Body* b) { b->mutable_scalpel()->set_cut_depth(-1); })},
      {"CreateBody", "body.rod.points", kInvalid,
       body_row([](v1::Body* b) {
         b->clear_shape();
         b->mutable_rod()->add_points()->set_x(0);
       })},
      {"CreateBody", "body.soft.box.cells_x", kInvalid,
       body_row([](v1::Body* b) {
         b->clear_shape();
         auto* box = b->mutable_soft()->mutable_box();
         box->mutable_half_extents()->set_x(0.1);
         box->mutable_half_extents()->set_y(0.1);
         box->mutable_half_extents()->set_z(0.1);
         box->set_cells_x(0);
         box->set_cells_y(1);
         box->set_cells_z(1);
       })},
      {"CreateBody", "body.strand.points", kInvalid,
       body_row([](v1::Body* b) {
         b->clear_shape();
         b->mutable_strand()->add_points()->set_x(kNan);
       })},
      // SceneService.UpdateBody
      {"UpdateBody", "body.name", kInvalid,
       [this] { return UpdateBodyCall("ball", "linear_velocity", [](auto*) {}); }},
      {"UpdateBody", "body.name", kInvalid,
       [this] { return UpdateBodyCall("worlds/w/things/ball", "linear_velocity", [](auto*) {}); }},
      {"UpdateBody", "ghost", kNotFound,
       [this] { return UpdateBodyCall("worlds/w/bodies/ghost", "linear_velocity", [](auto*) {}); }},
      {"UpdateBody", "update_mask", kInvalid, update_row("", [](v1::Body*) {})},
      {"UpdateBody", "update_mask.paths[0]", kInvalid, update_row("shape", [](v1::Body*) {})},
      {"UpdateBody", "body.pose.position.z", kInvalid,
       update_row("pose.position",
                  [](v1::Body* b) { b->mutable_pose()->mutable_position()->set_z(kInf); })},
      {"UpdateBody", "body.pose.orientation", kInvalid,
       update_row("pose", [](v1::Body* b) { b->mutable_pose()->mutable_orientation()->set_w(9); })},
      {"UpdateBody", "body.linear_velocity.y", kInvalid,
       update_row("linear_velocity",
                  [](v1::Body* b) { b->mutable_linear_velocity()->set_y(kNan); })},
      {"UpdateBody", "body.angular_velocity", kInvalid,
       update_row("angular_velocity",
                  [](v1::Body* b) { b->mutable_angular_velocity()->set_y(1e7); })},
      {"UpdateBody", "body.material.density", kInvalid,
       update_row("material", [](v1::Body* b) { b->mutable_material()->set_density(0); })},
      {"UpdateBody", "body.kind", kInvalid,
       update_row("kind", [](v1::Body* b) { b->set_kind(static_cast<v1::BodyKind>(7)); })},
      // SceneService.DeleteBody
      {"DeleteBody", "name", kInvalid, [this] { return DeleteBodyCall("worlds/w/ball"); }},
      {"DeleteBody", "ghost", kNotFound, [this] { return DeleteBodyCall("worlds/w/bodies/ghost"); }},
      {"DeleteBody", "nope", kNotFound,
       [this] { return DeleteBodyCall("worlds/nope/bodies/ball"); }},
      // SceneService.CreateConstraint
      {"CreateConstraint", "parent", kInvalid,
       [this] {
         v1::Constraint c;
         c.mutable_point()->set_body_a("ball");
         return CreateConstraintIn("", c);
       }},
      {"CreateConstraint", "constraint", kInvalid, constraint_row([](v1::Constraint*) {})},
      {"CreateConstraint", "constraint.id", kInvalid,
       constraint_row([](v1::Constraint* c) {
         c->set_id("Bad Id");
         c->mutable_point()->set_body_a("ball");
       })},
      {"CreateConstraint", "pin", StatusCode::ALREADY_EXISTS,
       constraint_row([](v1::Constraint* c) {
         c->set_id("pin");
         c->mutable_point()->set_body_a("ball");
       })},
      {"CreateConstraint", "ghost", kNotFound,
       constraint_row([](v1::Constraint* c) { c->mutable_point()->set_body_a("ghost"); })},
      {"CreateConstraint", "constraint.point.anchor_a.x", kInvalid,
       constraint_row([](v1::Constraint* c) {
         c->mutable_point()->set_body_a("ball");
         c->mutable_point()->mutable_anchor_a()->set_x(kNan);
       })},
      {"CreateConstraint", "constraint.hinge.frames.frame_a.orientation", kInvalid,
       constraint_row([hinge](v1::Constraint* c) {
         hinge(c);
         c->mutable_hinge()->mutable_frames()->mutable_frame_a()->mutable_orientation()->set_w(4);
       })},
      {"CreateConstraint", "constraint.hinge.limits", kInvalid,
       constraint_row([hinge](v1::Constraint* c) {
         hinge(c);
         c->mutable_hinge()->mutable_limits()->set_lower(1);
         c->mutable_hinge()->mutable_limits()->set_upper(-1);
       })},
      // SceneService.DeleteConstraint
      {"DeleteConstraint", "name", kInvalid,
       [this] { return DeleteConstraintCall("worlds/w/bodies/pin"); }},
      {"DeleteConstraint", "ghost", kNotFound,
       [this] { return DeleteConstraintCall("worlds/w/constraints/ghost"); }},
      // SceneService.BatchEdit (nothing of a failed batch applies: the body count stays)
      {"BatchEdit", "parent", kInvalid, [this] { return BatchCall("", {CreateEdit(Ball())}); }},
      {"BatchEdit", "edits[0]", kInvalid, [this] { return BatchCall("worlds/w", {v1::Edit()}); }},
      {"BatchEdit", "edits[1].create_body.shape.sphere.radius", kInvalid,
       [this] {
         return BatchCall("worlds/w",
                          {CreateEdit(Ball()), CreateEdit(BallWith([](v1::Body* b) {
                             b->mutable_shape()->mutable_sphere()->set_radius(-1);
                           }))});
       }},
      {"BatchEdit", "edits[0].delete_body", kInvalid,
       [this] {
         v1::Edit e;
         e.set_delete_body("worlds/live/bodies/ball");
         return BatchCall("worlds/w", {e});
       }},
      {"BatchEdit", "edits[0].update_body.update_mask", kInvalid,
       [this] {
         v1::Edit e;
         e.mutable_update_body()->mutable_body()->set_name("worlds/w/bodies/ball");
         return BatchCall("worlds/w", {e});
       }},
      {"BatchEdit", "edits[0].create_constraint.point.anchor_b.y", kInvalid,
       [this] {
         v1::Edit e;
         e.mutable_create_constraint()->mutable_point()->set_body_a("ball");
         e.mutable_create_constraint()->mutable_point()->mutable_anchor_b()->set_y(kInf);
         return BatchCall("worlds/w", {e});
       }},
      {"BatchEdit", "edits: at most", kInvalid,
       [this] { return BatchCall("worlds/w", std::vector<v1::Edit>(10001, CreateEdit(Ball()))); }},
      // SceneService.ExportScene
      {"ExportScene", "parent", kInvalid, [this] { return ExportCall("scenes/w"); }},
      {"ExportScene", "nope", kNotFound, [this] { return ExportCall("worlds/nope"); }},
      // SessionService.Watch
      {"Watch", "world", kInvalid, watch_row([](v1::WatchRequest* r) { r->set_world("w"); })},
      {"Watch", "nope", kNotFound,
       watch_row([](v1::WatchRequest* r) { r->set_world("worlds/nope"); })},
      {"Watch", "max_rate_hz", kInvalid,
       watch_row([](v1::WatchRequest* r) { r->set_max_rate_hz(-1); })},
      {"Watch", "max_rate_hz", kInvalid,
       watch_row([](v1::WatchRequest* r) { r->set_max_rate_hz(kNan); })},
      {"Watch", "body_ids[0]", kInvalid,
       watch_row([](v1::WatchRequest* r) { r->add_body_ids("Bad Id"); })},
      {"Watch", "body_ids[1]", kNotFound,
       watch_row([](v1::WatchRequest* r) {
         r->add_body_ids("ball");
         r->add_body_ids("ghost");
       })},
      {"Watch", "region", kInvalid,
       watch_row([](v1::WatchRequest* r) {
         r->mutable_region()->mutable_min()->set_x(1);
         r->mutable_region()->mutable_max()->set_x(-1);
       })},
      {"Watch", "region.min.y", kInvalid,
       watch_row([](v1::WatchRequest* r) { r->mutable_region()->mutable_min()->set_y(kNan); })},
      {"Watch", "delta_threshold", kInvalid,
       watch_row([](v1::WatchRequest* r) { r->set_delta_threshold(-1); })},
      {"Watch", "key_frame_interval", kInvalid,
       watch_row([](v1::WatchRequest* r) { r->set_key_frame_interval(-1); })},
      // SessionService.Interact
      {"Interact", "world", kInvalid, [this] { return InteractCall({InteractOpen("")}); }},
      {"Interact", "nope", kNotFound, [this] { return InteractCall({InteractOpen("worlds/nope")}); }},
      {"Interact", "max_rate_hz", kInvalid,
       [this] {
         v1::InteractRequest open = InteractOpen("worlds/w");
         open.set_max_rate_hz(-3);
         return InteractCall({open});
       }},
      {"Interact", "poses[0].pose.position.x", kInvalid,
       [this] { return InteractCall({InteractOpen("worlds/w"), PoseMessage("ball", kNan)}); }},
      {"Interact", "poses[0].body_id", kInvalid,
       [this] { return InteractCall({InteractOpen("worlds/w"), PoseMessage("Bad Id", 0)}); }},
      {"Interact", "ghost", kNotFound,
       [this] { return InteractCall({InteractOpen("worlds/w"), PoseMessage("ghost", 0)}); }},
      // HapticsService.Haptics
      {"Haptics", "open", kInvalid,
       [this] {
         v1::HapticsRequest pose;
         pose.mutable_pose()->set_sequence(1);
         return HapticsCall({pose});
       }},
      {"Haptics", "open.world", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_world("w"); })},
      {"Haptics", "nope", kNotFound,
       haptic_row([](v1::HapticOpen* o) { o->set_world("worlds/nope"); })},
      {"Haptics", "open.tool_body_id", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_tool_body_id("Bad Id"); })},
      {"Haptics", "ghost", kNotFound,
       haptic_row([](v1::HapticOpen* o) { o->set_tool_body_id("ghost"); })},
      {"Haptics", "ground", StatusCode::FAILED_PRECONDITION,
       haptic_row([](v1::HapticOpen* o) { o->set_tool_body_id("ground"); })},
      {"Haptics", "open.mode", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_mode(static_cast<v1::HapticMode>(5)); })},
      {"Haptics", "open.stiffness", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_stiffness(-1); })},
      {"Haptics", "open.stiffness", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_stiffness(1e6); })},
      {"Haptics", "open.damping", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_damping(kNan); })},
      {"Haptics", "open.rotational_stiffness", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_rotational_stiffness(-1); })},
      {"Haptics", "open.rotational_damping", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_rotational_damping(-1); })},
      {"Haptics", "open.force_limit", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_force_limit(kInf); })},
      {"Haptics", "open.torque_limit", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_torque_limit(-1); })},
      {"Haptics", "open.force_rate_limit", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_force_rate_limit(-1); })},
      {"Haptics", "open.torque_rate_limit", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_torque_rate_limit(kNan); })},
      {"Haptics", "open.watchdog_timeout_ms", kInvalid,
       haptic_row([](v1::HapticOpen* o) { o->set_watchdog_timeout_ms(5000); })},
      {"Haptics", "pose", kInvalid,
       [this] { return HapticsCall({HapticOpenWith([](auto*) {}), HapticOpenWith([](auto*) {})}); }},
  };

  ExpectWorldTicks("before");
  for (const BadCase& row : table) {
    const std::string label = absl::StrCat(row.rpc, " / ", row.field);
    SCOPED_TRACE(label);
    const grpc::Status s = row.call();
    EXPECT_EQ(s.error_code(), row.code) << label << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(row.field), std::string::npos)
        << label << ": message \"" << s.error_message() << "\" does not name it";
    ExpectWorldTicks(label);
  }
  // The running world streams frames after all of it.
  v1::WatchRequest req;
  req.set_world("worlds/live");
  grpc::ClientContext ctx;
  Deadline(&ctx);
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame frame;
  ASSERT_TRUE(reader->Read(&frame));
  EXPECT_EQ(frame.bodies_size(), 2);
  ctx.TryCancel();
  reader->Finish();
}

}  // namespace
}  // namespace ligature::testing
