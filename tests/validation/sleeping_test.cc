// Sleeping against physics: a body at rest falls asleep after the time to sleep and then
// holds its pose bit for bit; a ball falling on a sleeper wakes it within one tick of the
// tick free fall puts it there, and the hit comes out as it does in a world that never
// sleeps; an island wakes as one, others stay asleep; a removed support, a device-driven
// pusher, a drive's new target and settings wake what they touch; a body woken by losing
// its support falls exactly as free fall says.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;
constexpr double kRate = 60.0;

class SleepingTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  SceneDesc Scene(bool sleep = true) const {
    SceneDesc scene;
    scene.settings.rate_hz = kRate;
    scene.settings.solver.kind = GetParam();
    scene.settings.sleep.enabled = sleep;
    scene.bodies.push_back(
        testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
    return scene;
  }

  // A 0.2 m cube of 1 kg resting on whatever is at height `floor`.
  static BodyDesc Crate(const std::string& id, double x, double floor) {
    BodyDesc b = testing::MakeBody(id, Shape::Box(Vec3::Constant(0.1)), Vec3(x, floor + 0.1, 0));
    b.rigid()->material.mass = 1.0;
    return b;
  }
};

bool Asleep(const World& w, const std::string& id) {
  for (const BodyState& b : w.MakeFrame().bodies) {
    if (b.id == id) return b.sleeping;
  }
  ADD_FAILURE() << "no body " << id;
  return false;
}

// Steps until `id` sleeps (at most `limit` ticks); the ticks taken.
int StepUntilAsleep(World& w, const std::string& id, int limit = 600) {
  for (int i = 1; i <= limit; ++i) {
    w.Step();
    if (Asleep(w, id)) return i;
  }
  ADD_FAILURE() << id << " never fell asleep";
  return limit;
}

// A crate set on the ground rests from the first tick: it sleeps once it has rested for the
// time to sleep (0.5 s, 30 ticks at 60 Hz; a tick more for the sum of the ticks' lengths),
// at rest on its face, with no velocity. Asleep, it holds its pose bit for bit, the frame
// says so, and the world finds no contacts at all.
TEST_P(SleepingTest, ABodyAtRestSleepsAfterTheTimeToSleepAndHoldsItsPose) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(Crate("crate", 0.0, 0.0));
  auto world = testing::MakeWorld(scene);
  const int ticks = StepUntilAsleep(*world, "crate");
  EXPECT_GE(ticks, 30);
  EXPECT_LE(ticks, 31);
  const Frame frame = world->MakeFrame();
  EXPECT_EQ(frame.stats.sleeping_bodies, 1);
  EXPECT_NEAR(testing::PositionOf(*world, "crate").y(), 0.1, 1e-3);
  EXPECT_EQ(testing::VelocityOf(*world, "crate"), Vec3::Zero());

  const Transform pose = world->GetBody("crate")->rigid()->pose;
  for (int i = 0; i < 600; ++i) world->Step();
  const Transform after = world->GetBody("crate")->rigid()->pose;
  EXPECT_EQ(after.position, pose.position);
  EXPECT_EQ(after.orientation.coeffs(), pose.orientation.coeffs());
  EXPECT_TRUE(Asleep(*world, "crate"));
  EXPECT_EQ(world->last_stats().contacts, 0);
}

// Without sleeping, the same crate never sleeps and its contacts are solved every tick.
TEST_P(SleepingTest, WithSleepingOffNothingSleeps) {
  SceneDesc scene = Scene(false);
  scene.bodies.push_back(Crate("crate", 0.0, 0.0));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 120; ++i) {
    world->Step();
    ASSERT_FALSE(Asleep(*world, "crate"));
  }
  EXPECT_GT(world->last_stats().contacts, 0);
}

// A ball dropped from rest 1 m above a sleeping crate: free fall (semi-implicit Euler, as
// the world integrates) puts it on the crate at tick n, the first whose height reaches the
// crate's top. The crate wakes within one tick of n, and the ball's velocity over the hit
// and after it is that of the same drop in a world that never sleeps.
TEST_P(SleepingTest, AFallingBallWakesASleeperWithinOneTickOfTheHit) {
  auto drop = [&](bool sleep) {
    SceneDesc scene = Scene(sleep);
    scene.bodies.push_back(Crate("crate", 0.0, 0.0));
    auto world = testing::MakeWorld(scene);
    for (int i = 0; i < 60; ++i) world->Step();
    EXPECT_EQ(Asleep(*world, "crate"), sleep);
    BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(0.05), Vec3(0.0, 1.25, 0.0));
    ball.rigid()->material.mass = 0.5;
    EXPECT_TRUE(world->AddBody(ball).ok());
    return world;
  };
  auto sleeping = drop(true);
  auto awake = drop(false);
  const double h = 1.0 / kRate;
  // Ball's bottom at 1.2 m, the crate's top at 0.2 m: n(n + 1) / 2 g h^2 >= 1 m.
  int hit = 0;
  while (kG * h * h * hit * (hit + 1) / 2.0 < 1.0) ++hit;
  int woke = -1;
  for (int n = 1; n <= hit + 30; ++n) {
    sleeping->Step();
    awake->Step();
    if (woke < 0 && !Asleep(*sleeping, "crate")) woke = n;
    if (n >= hit - 1) {
      const Vec3 v_sleep = testing::VelocityOf(*sleeping, "ball");
      const Vec3 v_awake = testing::VelocityOf(*awake, "ball");
      EXPECT_NEAR(v_sleep.y(), v_awake.y(), 0.01 * std::sqrt(2.0 * kG)) << "tick " << n;
    }
  }
  EXPECT_GE(woke, hit - 1);
  EXPECT_LE(woke, hit + 1);
}

// Three crates stacked sleep as one island, a fourth apart as another. A ball falling on
// the stack wakes all three in the same tick, and the fourth sleeps on.
TEST_P(SleepingTest, AnIslandWakesAsOneAndOthersSleepOn) {
  SceneDesc scene = Scene();
  for (int k = 0; k < 3; ++k)
    scene.bodies.push_back(Crate("stack" + std::to_string(k), 0, 0.2 * k));
  scene.bodies.push_back(Crate("apart", 2.0, 0.0));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 120; ++i) world->Step();
  for (const char* id : {"stack0", "stack1", "stack2", "apart"}) ASSERT_TRUE(Asleep(*world, id));
  EXPECT_EQ(world->last_stats().sleeping_bodies, 4);

  BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(0.05), Vec3(0.0, 1.0, 0.0));
  ASSERT_TRUE(world->AddBody(ball).ok());
  bool woke = false;
  for (int i = 0; i < 60 && !woke; ++i) {
    world->Step();
    const bool bottom = Asleep(*world, "stack0");
    EXPECT_EQ(Asleep(*world, "stack1"), bottom);
    EXPECT_EQ(Asleep(*world, "stack2"), bottom);
    woke = !bottom;
  }
  EXPECT_TRUE(woke);
  EXPECT_TRUE(Asleep(*world, "apart"));
}

// A crate asleep on a static shelf: deleting the shelf wakes it at once, and from there it
// falls as free fall from rest says, to 1e-9 m.
TEST_P(SleepingTest, RemovingTheSupportWakesWhatRestsOnItAndItFalls) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(testing::MakeBody("shelf", Shape::Box(Vec3(0.5, 0.05, 0.5)),
                                           Vec3(0.0, 0.95, 0.0), BodyKind::kStatic));
  scene.bodies.push_back(Crate("crate", 0.0, 1.0));
  auto world = testing::MakeWorld(scene);
  StepUntilAsleep(*world, "crate");
  const double y0 = testing::PositionOf(*world, "crate").y();
  ASSERT_TRUE(world->RemoveBody("shelf").ok());
  EXPECT_FALSE(Asleep(*world, "crate"));
  const double h = 1.0 / kRate;
  for (int n = 1; n <= 20; ++n) {
    world->Step();
    EXPECT_NEAR(testing::PositionOf(*world, "crate").y(), y0 - kG * h * h * n * (n + 1) / 2.0, 1e-9)
        << "tick " << n;
  }
}

// A kinematic paddle driven by device poses into a sleeping crate wakes it and pushes it.
TEST_P(SleepingTest, ADeviceDrivenBodyWakesWhatItPushes) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(Crate("crate", 0.0, 0.0));
  scene.bodies.push_back(testing::MakeBody("paddle", Shape::Box(Vec3(0.05, 0.1, 0.3)),
                                           Vec3(-0.5, 0.1, 0.0), BodyKind::kKinematic));
  auto world = testing::MakeWorld(scene);
  StepUntilAsleep(*world, "crate");
  double x = -0.5;
  for (int i = 0; i < 60; ++i) {
    x += 0.01;  // 0.6 m/s
    ASSERT_TRUE(world->SetDeviceTarget("paddle", {Vec3(x, 0.1, 0.0), Quat::Identity()}).ok());
    world->Step();
  }
  EXPECT_FALSE(Asleep(*world, "crate"));
  EXPECT_GT(testing::PositionOf(*world, "crate").x(), 0.05);
}

// A door on a vertical hinge held by a spring drive at 0 rad sleeps; a new target through
// UpdateJoint wakes it, and the drive turns it towards the target.
TEST_P(SleepingTest, ANewDriveTargetWakesTheJointsBodies) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(
      testing::MakeBody("door", Shape::Box(Vec3(0.4, 1.0, 0.02)), Vec3(0.4, 1.5, 0.0)));
  ConstraintDesc hinge;
  hinge.id = "hinge";
  hinge.params.kind = JointKind::kHinge;
  hinge.body_a = "door";
  // The hinge axis (the frames' Z) along world Y, at the door's edge.
  const Quat z_to_y(Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitX()));
  hinge.frame_a = {Vec3(-0.4, 0.0, 0.0), z_to_y};
  hinge.frame_b = {Vec3(0.0, 1.5, 0.0), z_to_y};
  hinge.params.axis_drive.mode = DriveMode::kSpring;
  hinge.params.axis_drive.stiffness = 50.0;
  hinge.params.axis_drive.damping = 10.0;
  scene.constraints.push_back(hinge);
  auto world = testing::MakeWorld(scene);
  StepUntilAsleep(*world, "door");
  const Transform closed = world->GetBody("door")->rigid()->pose;

  auto desc = world->JointDesc("hinge");
  ASSERT_TRUE(desc.ok());
  desc->params.target_position = 1.0;
  ASSERT_TRUE(world->UpdateJoint("hinge", *desc, /*edit=*/false).ok());
  EXPECT_FALSE(Asleep(*world, "door"));
  for (int i = 0; i < 120; ++i) world->Step();
  const Transform open = world->GetBody("door")->rigid()->pose;
  const double turned = open.orientation.angularDistance(closed.orientation);
  EXPECT_GT(turned, 0.5);
}

// Falling asleep and waking end no contact: the crate's contact with the ground begins
// once, lasts through its sleep without events, and goes on when an edit wakes it.
TEST_P(SleepingTest, SleepEndsNoContact) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(Crate("crate", 0.0, 0.0));
  auto world = testing::MakeWorld(scene);
  world->SetEventReporting({.enabled = true, .persist = false});
  int begins = 0, ends = 0;
  auto count = [&] {
    for (const ContactEvent& e : world->TakeEvents().contacts) {
      begins += e.kind == EventKind::kContactBegin;
      ends += e.kind == EventKind::kContactEnd;
    }
  };
  for (int i = 0; i < 120; ++i) {
    world->Step();
    count();
  }
  ASSERT_TRUE(Asleep(*world, "crate"));
  BodyUpdate slide;
  slide.linear_velocity = Vec3(0.5, 0.0, 0.0);
  ASSERT_TRUE(world->UpdateBody("crate", slide).ok());
  for (int i = 0; i < 10; ++i) {
    world->Step();
    count();
  }
  EXPECT_FALSE(Asleep(*world, "crate"));
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(ends, 0);
}

// Changing the sleep settings or gravity wakes every body; sleeping off keeps them awake.
TEST_P(SleepingTest, NewSettingsWakeEveryBody) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(Crate("crate", 0.0, 0.0));
  auto world = testing::MakeWorld(scene);
  StepUntilAsleep(*world, "crate");
  WorldSettings settings = world->settings();
  settings.gravity = Vec3(0.0, -5.0, 0.0);
  world->SetSettings(settings);
  EXPECT_FALSE(Asleep(*world, "crate"));
  StepUntilAsleep(*world, "crate");
  settings.sleep.enabled = false;
  world->SetSettings(settings);
  EXPECT_FALSE(Asleep(*world, "crate"));
  for (int i = 0; i < 120; ++i) world->Step();
  EXPECT_FALSE(Asleep(*world, "crate"));
}

// A snapshot's state carries who sleeps: a world rebuilt from it and given that state has
// the same sleepers, which hold their poses bit for bit, and wakes them the same way.
TEST_P(SleepingTest, SavedStateCarriesSleep) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(Crate("crate", 0.0, 0.0));
  scene.bodies.push_back(Crate("other", 1.0, 0.0));
  auto world = testing::MakeWorld(scene);
  StepUntilAsleep(*world, "crate");
  for (int i = 0; i < 5; ++i) world->Step();
  auto copy = World::FromScene("copy", world->Export(), world->limits());
  ASSERT_TRUE(copy.ok());
  ASSERT_TRUE((*copy)->RestoreSavedState(world->SaveState()).ok());
  EXPECT_TRUE(Asleep(**copy, "crate"));
  EXPECT_TRUE(Asleep(**copy, "other"));
  BodyUpdate push;
  push.linear_velocity = Vec3(1.0, 0.0, 0.0);
  for (World* w : {world.get(), copy->get()}) {
    ASSERT_TRUE(w->UpdateBody("other", push).ok());
    for (int i = 0; i < 30; ++i) w->Step();
  }
  EXPECT_TRUE(Asleep(**copy, "crate"));
  EXPECT_FALSE(Asleep(**copy, "other"));
  EXPECT_EQ(testing::PositionOf(**copy, "other"), testing::PositionOf(*world, "other"));
  EXPECT_EQ(testing::PositionOf(**copy, "crate"), testing::PositionOf(*world, "crate"));
}

INSTANTIATE_TEST_SUITE_P(Solvers, SleepingTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

}  // namespace
}  // namespace ligature
