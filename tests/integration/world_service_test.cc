// WorldService over real gRPC: create, get, list, update, step, delete.

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

TEST_F(ServerTest, CreateFromBuiltinSceneRunsAndCountsTicks) {
  const v1::World w = CreateWorld("demo", "default");
  EXPECT_EQ(w.name(), "worlds/demo");
  EXPECT_GT(w.body_count(), 50);
  EXPECT_EQ(w.constraint_count(), 8);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  grpc::ClientContext ctx;
  v1::GetWorldRequest req;
  req.set_name("worlds/demo");
  v1::World got;
  ASSERT_TRUE(worlds_->GetWorld(&ctx, req, &got).ok());
  EXPECT_GT(got.tick(), 3u);  // a running world advances on its own
  EXPECT_NEAR(got.sim_time(), got.tick() / got.settings().rate_hz(), 1e-9);
}

TEST_F(ServerTest, ListWorldsPaginates) {
  for (const char* id : {"a", "b", "c", "d", "e"}) CreateWorld(id, "default");
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    grpc::ClientContext ctx;
    v1::ListWorldsRequest req;
    req.set_page_size(2);
    req.set_page_token(token);
    v1::ListWorldsResponse resp;
    ASSERT_TRUE(worlds_->ListWorlds(&ctx, req, &resp).ok());
    for (const auto& w : resp.worlds()) names.push_back(w.name());
    token = resp.next_page_token();
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"worlds/a", "worlds/b", "worlds/c", "worlds/d",
                                             "worlds/e"}));
}

TEST_F(ServerTest, PausedWorldAdvancesOnlyThroughStepWorld) {
  v1::World w;
  ASSERT_TRUE(CreateWorld("paused", BallScene(), &w).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/paused", 10, &frame).ok());
  EXPECT_EQ(frame.tick(), 10u);
  EXPECT_NEAR(frame.sim_time(), 0.1, 1e-12);
  ASSERT_EQ(frame.bodies_size(), 2);
  // The ball fell: y = 1 - g h^2 n(n+1)/2 under semi-implicit Euler.
  EXPECT_NEAR(frame.bodies(1).pose().position().y(), 1.0 - 9.81 * 1e-4 * 55, 1e-9);
  ASSERT_TRUE(Step("worlds/paused", 5, &frame).ok());
  EXPECT_EQ(frame.tick(), 15u);
}

TEST_F(ServerTest, StepWorldRefusesRunningWorld) {
  CreateWorld("running", "default");
  v1::Frame frame;
  EXPECT_EQ(Step("worlds/running", 1, &frame).error_code(), grpc::FAILED_PRECONDITION);
}

TEST_F(ServerTest, UpdateWorldChangesSettings) {
  v1::World w;
  ASSERT_TRUE(CreateWorld("upd", BallScene(), &w).ok());
  grpc::ClientContext ctx;
  v1::UpdateWorldRequest req;
  req.mutable_world()->set_name("worlds/upd");
  req.mutable_world()->mutable_settings()->set_rate_hz(500);
  req.mutable_world()->mutable_settings()->mutable_gravity()->set_y(-1.62);
  req.mutable_world()->mutable_settings()->mutable_solver()->set_max_iterations(7);
  for (const char* p : {"settings.rate_hz", "settings.gravity", "settings.solver.max_iterations"}) {
    req.mutable_update_mask()->add_paths(p);
  }
  v1::World out;
  ASSERT_TRUE(worlds_->UpdateWorld(&ctx, req, &out).ok());
  EXPECT_EQ(out.settings().rate_hz(), 500);
  EXPECT_EQ(out.settings().gravity().y(), -1.62);
  EXPECT_EQ(out.settings().solver().max_iterations(), 7);
  EXPECT_TRUE(out.settings().paused());  // untouched by the mask
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/upd", 1, &frame).ok());
  EXPECT_NEAR(frame.bodies(1).linear_velocity().y(), -1.62 / 500, 1e-12);
}

// Sleeping switched on through UpdateWorld: the ball falls, comes to rest on the ground,
// and after the time to sleep the frames say it sleeps, at rest where it lies.
TEST_F(ServerTest, SleepingSwitchedOnShowsInTheFrames) {
  v1::World w;
  ASSERT_TRUE(CreateWorld("sleepy", BallScene(), &w).ok());
  grpc::ClientContext ctx;
  v1::UpdateWorldRequest req;
  req.mutable_world()->set_name("worlds/sleepy");
  v1::SleepSettings& sleep = *req.mutable_world()->mutable_settings()->mutable_sleep();
  sleep.set_enabled(true);
  sleep.set_time_to_sleep(0.25);
  req.mutable_update_mask()->add_paths("settings.sleep");
  v1::World out;
  ASSERT_TRUE(worlds_->UpdateWorld(&ctx, req, &out).ok());
  EXPECT_TRUE(out.settings().sleep().enabled());
  EXPECT_EQ(out.settings().sleep().time_to_sleep(), 0.25);
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/sleepy", 10, &frame).ok());
  ASSERT_EQ(frame.bodies_size(), 2);
  EXPECT_FALSE(frame.bodies(1).sleeping());  // still falling
  ASSERT_TRUE(Step("worlds/sleepy", 300, &frame).ok());
  EXPECT_TRUE(frame.bodies(1).sleeping());
  EXPECT_FALSE(frame.bodies(0).sleeping());  // the static ground never sleeps
  EXPECT_EQ(frame.solver().sleeping_bodies(), 1);
  EXPECT_EQ(frame.bodies(1).linear_velocity().y(), 0.0);
}

TEST_F(ServerTest, DeleteWorldThenNotFound) {
  CreateWorld("gone", "default");
  {
    grpc::ClientContext ctx;
    v1::DeleteWorldRequest req;
    req.set_name("worlds/gone");
    v1::DeleteWorldResponse resp;
    ASSERT_TRUE(worlds_->DeleteWorld(&ctx, req, &resp).ok());
  }
  grpc::ClientContext ctx;
  v1::GetWorldRequest req;
  req.set_name("worlds/gone");
  v1::World w;
  EXPECT_EQ(worlds_->GetWorld(&ctx, req, &w).error_code(), grpc::NOT_FOUND);
}

}  // namespace
}  // namespace ligature::testing

namespace ligature::testing {
namespace {

// Bad solver settings are refused naming the field, and the world keeps what it had.
TEST_F(ServerTest, BadSolverSettingsAreRefusedAndChangeNothing) {
  v1::World w;
  ASSERT_TRUE(CreateWorld("solver", BallScene(), &w).ok());
  auto update = [&](const char* path, const v1::SolverSettings& solver) {
    grpc::ClientContext ctx;
    v1::UpdateWorldRequest req;
    req.mutable_world()->set_name("worlds/solver");
    *req.mutable_world()->mutable_settings()->mutable_solver() = solver;
    req.mutable_update_mask()->add_paths(path);
    v1::World out;
    return worlds_->UpdateWorld(&ctx, req, &out);
  };
  v1::SolverSettings negative_budget;
  negative_budget.set_time_budget_us(-5.0);
  v1::SolverSettings zero_iterations;
  zero_iterations.set_max_iterations(0);
  v1::SolverSettings unknown_solver;
  unknown_solver.set_kind(static_cast<v1::SolverKind>(42));
  const struct {
    const char* path;
    v1::SolverSettings solver;
    const char* field;
  } cases[] = {
      {"settings.solver.time_budget_us", negative_budget, "time_budget_us"},
      {"settings.solver.max_iterations", zero_iterations, "max_iterations"},
      {"settings.solver.kind", unknown_solver, "kind"},
      {"settings.solver", negative_budget, "time_budget_us"},
  };
  for (const auto& c : cases) {
    const grpc::Status s = update(c.path, c.solver);
    EXPECT_EQ(s.error_code(), grpc::INVALID_ARGUMENT) << c.path;
    EXPECT_NE(s.error_message().find(c.field), std::string::npos) << s.error_message();
  }
  grpc::ClientContext ctx;
  v1::GetWorldRequest req;
  req.set_name("worlds/solver");
  v1::World after;
  ASSERT_TRUE(worlds_->GetWorld(&ctx, req, &after).ok());
  EXPECT_EQ(after.settings().solver().kind(), v1::SOLVER_KIND_GAUSS_SEIDEL);
  EXPECT_EQ(after.settings().solver().max_iterations(), 20);
  EXPECT_EQ(after.settings().solver().time_budget_us(), 0.0);

  // A good update goes through and is reported back.
  v1::SolverSettings tunable;
  tunable.set_kind(v1::SOLVER_KIND_TUNABLE_LCP);
  tunable.set_max_iterations(30);
  tunable.set_time_budget_us(500.0);
  ASSERT_TRUE(update("settings.solver", tunable).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/solver", 1, &frame).ok());
  grpc::ClientContext ctx2;
  ASSERT_TRUE(worlds_->GetWorld(&ctx2, req, &after).ok());
  EXPECT_EQ(after.settings().solver().kind(), v1::SOLVER_KIND_TUNABLE_LCP);
  EXPECT_EQ(after.settings().solver().time_budget_us(), 500.0);
}

}  // namespace
}  // namespace ligature::testing
