// Contact and trigger events against physics: a falling ball's begin event carries its
// speed of impact (sqrt(2 g d)) and the contact's impulses add up to the momentum the
// ground took from it (Newton's second law over the ticks); a sensor reports a body at the
// ticks the free-fall formula puts it in and out, and takes no momentum from it.

#include <gtest/gtest.h>

#include <cmath>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;

class ContactEventsTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  SceneDesc Scene(double rate_hz) const {
    SceneDesc scene;
    scene.settings.rate_hz = rate_hz;
    scene.settings.solver.kind = GetParam();
    return scene;
  }
};

// The impulse on `body` (N s) of a contact event it takes part in.
Vec3 ImpulseOn(const ContactEvent& e, const std::string& body) {
  return e.body_b == body ? e.impulse : Vec3(-e.impulse);
}

const ContactEvent* Find(const TickEvents& events, EventKind kind, const std::string& body) {
  for (const ContactEvent& e : events.contacts) {
    if (e.kind == kind && (e.body_a == body || e.body_b == body)) return &e;
  }
  return nullptr;
}

// A 1 kg ball dropped 1 m onto the ground at 1 kHz: the begin event's normal speed is the
// ball's free-fall speed, within 1 % of sqrt(2 g d); from the tick before the contact to
// rest, the contact's impulses (begin and persist events) sum to the ball's momentum
// change less gravity's impulse; lifted off, the contact ends with its peak.
TEST_P(ContactEventsTest, FallingBallReportsItsImpactAndTheMomentumTheGroundTook) {
  SceneDesc scene = Scene(1000.0);
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0.0, 1.1, 0.0));
  ball.rigid()->material.mass = 1.0;
  scene.bodies.push_back(ball);
  auto world = testing::MakeWorld(scene);
  world->SetEventReporting({.enabled = true, .persist = true});
  const double h = scene.settings.dt();

  // Falls until the contact begins.
  const ContactEvent* begin = nullptr;
  TickEvents events;
  Vec3 v_before = Vec3::Zero();
  for (int i = 0; i < 2000 && begin == nullptr; ++i) {
    v_before = testing::VelocityOf(*world, "ball");
    world->Step();
    events = world->TakeEvents();
    EXPECT_EQ(events.tick, world->tick());
    begin = Find(events, EventKind::kContactBegin, "ball");
  }
  ASSERT_NE(begin, nullptr);
  EXPECT_EQ(Find(events, EventKind::kContactPersist, "ball"), nullptr);
  const double impact = std::sqrt(2.0 * kG * 1.0);
  EXPECT_NEAR(begin->normal_speed, impact, 0.01 * impact);
  EXPECT_NEAR(begin->relative_speed, begin->normal_speed, 1e-6 * impact);
  EXPECT_GT(begin->point_count, 0);
  ASSERT_FALSE(begin->points.empty());
  EXPECT_NEAR(begin->points[0].position.y(), 0.0, 0.01);
  EXPECT_NEAR(std::abs(begin->points[0].normal.y()), 1.0, 1e-9);

  // Every tick to rest: the impulses the events carry against the ball's momentum.
  double impulse_y = ImpulseOn(*begin, "ball").y();
  double peak = begin->normal_impulse;
  const double start_time = world->sim_time() - h;
  for (int i = 0; i < 500; ++i) {
    world->Step();
    events = world->TakeEvents();
    const ContactEvent* persist = Find(events, EventKind::kContactPersist, "ball");
    ASSERT_NE(persist, nullptr) << "tick " << world->tick();
    impulse_y += ImpulseOn(*persist, "ball").y();
    peak = std::max(peak, persist->normal_impulse);
    EXPECT_EQ(persist->peak_normal_impulse, peak);
  }
  const double elapsed = world->sim_time() - start_time;
  const double momentum_change = testing::VelocityOf(*world, "ball").y() - v_before.y();
  const double expected = momentum_change + kG * elapsed;  // m = 1 kg
  EXPECT_NEAR(impulse_y, expected, 1e-3 * expected);

  // Thrown up, it leaves the ground: the contact ends, carrying its peak.
  BodyUpdate up;
  up.linear_velocity = Vec3(0.0, 3.0, 0.0);
  ASSERT_TRUE(world->UpdateBody("ball", up).ok());
  const ContactEvent* end = nullptr;
  for (int i = 0; i < 5 && end == nullptr; ++i) {
    world->Step();
    events = world->TakeEvents();
    end = Find(events, EventKind::kContactEnd, "ball");
  }
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->normal_impulse, 0.0);
  EXPECT_EQ(end->peak_normal_impulse, peak);
}

// The semi-implicit Euler free fall the world integrates, from rest at y0: the height
// after n ticks of h.
double FreeFallHeight(double y0, double h, int n) { return y0 - kG * h * h * n * (n + 1) / 2.0; }

// A ball falls through a static sensor slab (y in [0.4, 0.6]): it enters at the first tick
// whose pose overlaps the slab and exits at the first whose pose is clear of it, as the
// free-fall formula says, and leaves with exactly the free-fall speed. No contact event
// names the sensor. A second sensor whose mask refuses the ball's layer sees nothing.
TEST_P(ContactEventsTest, SensorReportsABodyPassingThroughAndTakesNothingFromIt) {
  SceneDesc scene = Scene(240.0);
  BodyDesc slab = testing::MakeBody("slab", Shape::Box(Vec3(1.0, 0.1, 1.0)), Vec3(0.0, 0.5, 0.0),
                                    BodyKind::kStatic);
  slab.rigid()->collision.sensor = true;
  scene.bodies.push_back(slab);
  BodyDesc blind = slab;
  blind.id = "blind";
  blind.rigid()->collision.mask = ~(1u << 2);
  scene.bodies.push_back(blind);
  BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0.0, 1.5, 0.0));
  ball.rigid()->collision.layers = 1u << 2;
  scene.bodies.push_back(ball);
  auto world = testing::MakeWorld(scene);
  world->SetEventReporting({.enabled = true, .persist = true});
  const double h = scene.settings.dt();

  int enter_tick = -1, exit_tick = -1;
  for (int n = 1; n <= 240 && exit_tick < 0; ++n) {
    world->Step();
    const TickEvents events = world->TakeEvents();
    for (const ContactEvent& c : events.contacts) {
      ADD_FAILURE() << "contact " << c.body_a << "-" << c.body_b << " at tick " << n;
    }
    for (const TriggerEvent& t : events.triggers) {
      EXPECT_EQ(t.sensor, "slab");
      EXPECT_EQ(t.body, "ball");
      EXPECT_EQ(t.sensor_shape, 0);
      (t.kind == EventKind::kTriggerEnter ? enter_tick : exit_tick) = n;
    }
  }
  int expected_enter = 1, expected_exit = 1;
  while (FreeFallHeight(1.5, h, expected_enter) - 0.1 > 0.6) ++expected_enter;
  while (FreeFallHeight(1.5, h, expected_exit) + 0.1 >= 0.4) ++expected_exit;
  EXPECT_EQ(enter_tick, expected_enter);
  EXPECT_EQ(exit_tick, expected_exit);
  EXPECT_NEAR(testing::VelocityOf(*world, "ball").y(), -kG * h * exit_tick, 1e-9);
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), FreeFallHeight(1.5, h, exit_tick), 1e-9);
}

// A device-driven (kinematic) hand moved into a static sensor and out again enters and
// exits it; a static body in the sensor is never reported.
TEST_P(ContactEventsTest, KinematicBodyEntersAndLeavesAStaticSensor) {
  SceneDesc scene = Scene(60.0);
  BodyDesc zone = testing::MakeBody("zone", Shape::Sphere(0.5), Vec3::Zero(), BodyKind::kStatic);
  zone.rigid()->collision.sensor = true;
  scene.bodies.push_back(zone);
  scene.bodies.push_back(
      testing::MakeBody("post", Shape::Box(Vec3::Constant(0.1)), Vec3::Zero(), BodyKind::kStatic));
  scene.bodies.push_back(
      testing::MakeBody("hand", Shape::Sphere(0.05), Vec3(2.0, 0.0, 0.0), BodyKind::kKinematic));
  auto world = testing::MakeWorld(scene);
  world->SetEventReporting({.enabled = true});
  std::vector<std::pair<EventKind, uint64_t>> seen;
  const auto move_to = [&](double x) {
    ASSERT_TRUE(world->SetDeviceTarget("hand", Transform{Vec3(x, 0, 0), Quat::Identity()}).ok());
    world->Step();
    for (const TriggerEvent& t : world->TakeEvents().triggers) {
      EXPECT_EQ(t.body, "hand");
      seen.push_back({t.kind, world->tick()});
    }
  };
  move_to(1.0);   // clear: 1.0 - 0.05 > 0.5
  move_to(0.52);  // overlaps: 0.52 - 0.05 < 0.5
  move_to(0.3);
  move_to(0.6);  // clear again
  const std::vector<std::pair<EventKind, uint64_t>> expected = {{EventKind::kTriggerEnter, 2},
                                                                {EventKind::kTriggerExit, 4}};
  EXPECT_EQ(seen, expected);
}

// A compound of a solid floor (child 0) and a sensor zone above it (child 1): a ball
// dropped on it enters the zone (shape 1), lands on the floor and stays in the zone.
TEST_P(ContactEventsTest, CompoundSensorChildBesideASolidOne) {
  SceneDesc scene = Scene(120.0);
  BodyDesc stand = testing::MakeBody("stand", Shape::Sphere(1.0), Vec3::Zero(), BodyKind::kStatic);
  ChildShape floor{Shape::Box(Vec3(1.0, 0.05, 1.0)), Transform{Vec3(0, -0.05, 0), Quat::Identity()},
                   std::nullopt};
  CollisionFilter sensor;
  sensor.sensor = true;
  ChildShape zone{Shape::Box(Vec3(1.0, 0.25, 1.0)), Transform{Vec3(0, 0.25, 0), Quat::Identity()},
                  sensor};
  stand.rigid()->children = {floor, zone};
  scene.bodies.push_back(stand);
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0.0, 1.0, 0.0)));
  auto world = testing::MakeWorld(scene);
  world->SetEventReporting({.enabled = true});
  int enters = 0, exits = 0, begins = 0;
  for (int i = 0; i < 240; ++i) {
    world->Step();
    const TickEvents events = world->TakeEvents();
    for (const TriggerEvent& t : events.triggers) {
      EXPECT_EQ(t.sensor_shape, 1);
      (t.kind == EventKind::kTriggerEnter ? enters : exits) += 1;
    }
    for (const ContactEvent& c : events.contacts) begins += c.kind == EventKind::kContactBegin;
  }
  EXPECT_EQ(enters, 1);
  EXPECT_EQ(exits, 0);
  EXPECT_GE(begins, 1);
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), 0.1, 0.01);  // on the solid floor
}

// Reporting off makes no events; switched on, a ball already resting begins at once.
TEST_P(ContactEventsTest, ContactsAlreadyTouchingBeginWhenReportingStarts) {
  SceneDesc scene = Scene(60.0);
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0.0, 0.1, 0.0)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 30; ++i) {
    world->Step();
    EXPECT_TRUE(world->TakeEvents().empty());
  }
  world->SetEventReporting({.enabled = true});
  world->Step();
  EXPECT_NE(Find(world->TakeEvents(), EventKind::kContactBegin, "ball"), nullptr);
  world->Step();
  EXPECT_TRUE(world->TakeEvents().empty());  // it persists, and persist was not asked for
}

INSTANTIATE_TEST_SUITE_P(Solvers, ContactEventsTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

// A soft cube dropped on the ground in a Gauss-Seidel world, its contacts in the solve:
// the contact between its vertices and the ground begins, with the vertices' speed.
TEST(ContactEvents, SoftBodyContactsBeginThroughTheSolve) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  scene.bodies.push_back(testing::SoftFemBox("cube", Vec3::Constant(0.05), Vec3(0, 0.3, 0),
                                             {2, 2, 2}, SoftModelKind::kCorotational, 2e5, 0.0));
  auto world = testing::MakeWorld(scene);
  world->SetEventReporting({.enabled = true});
  const ContactEvent* begin = nullptr;
  TickEvents events;
  for (int i = 0; i < 100 && begin == nullptr; ++i) {
    world->Step();
    events = world->TakeEvents();
    begin = Find(events, EventKind::kContactBegin, "cube");
  }
  ASSERT_NE(begin, nullptr);
  EXPECT_EQ(begin->body_a, "cube");
  EXPECT_GT(begin->normal_impulse, 0.0);
  // Undamped, it fell 0.25 m: sqrt(2 g d) = 2.2 m/s, within the tick's gravity and the
  // margin.
  EXPECT_NEAR(begin->normal_speed, std::sqrt(2.0 * kG * 0.25), 0.15);
  EXPECT_LE(static_cast<int>(begin->points.size()), ContactEvent::kMaxPoints);
  EXPECT_GE(begin->point_count, static_cast<int>(begin->points.size()));
}

}  // namespace
}  // namespace ligature
