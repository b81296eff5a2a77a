// Joint drives and breakable joints against analytic answers, in both solvers: a velocity
// motor holds its speed within 1 % while gravity loads it; a spring drive's step response
// follows the damped oscillator x'' + 2 zeta w x' + w^2 x = w^2 x_target on a slider, a
// hinge, a ball joint's orientation and a 6-DOF drive; a joint breaks once its load passes
// its threshold and holds just below it, with the load reported in the frame.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "server/model/rigid/mass_properties.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;

// Frames whose X axis (a joint's axis) lies along world Z, or along world Y.
const Quat kXToZ(Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitY()));
const Quat kXToY(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()));

MassProperties MassOf(const Shape& shape) { return ComputeMassProperties(shape, Material{}); }

class DrivesTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  SceneDesc Scene(double rate_hz, bool gravity) const {
    SceneDesc scene;
    scene.settings.rate_hz = rate_hz;
    scene.settings.solver.kind = GetParam();
    scene.settings.solver.max_iterations = 40;
    if (!gravity) scene.settings.gravity = Vec3::Zero();
    return scene;
  }

  static ConstraintDesc Joint(const std::string& id, JointKind kind, const std::string& body,
                              const Transform& frame_a, const Transform& frame_b) {
    ConstraintDesc c;
    c.id = id;
    c.params.kind = kind;
    c.body_a = body;
    c.frame_a = frame_a;
    c.frame_b = frame_b;
    return c;
  }

  // A spring drive of natural frequency w (rad/s) and damping ratio zeta on a coordinate
  // whose inertia is `inertia` (kg, or kg m^2).
  static DriveGains Spring(double inertia, double w, double zeta) {
    DriveGains g;
    g.mode = DriveMode::kSpring;
    g.stiffness = inertia * w * w;
    g.damping = 2.0 * zeta * std::sqrt(g.stiffness * inertia);
    return g;
  }
};

// The damped oscillator's step response from rest at 0 to `target`.
double StepResponse(double target, double w, double zeta, double t) {
  const double wd = w * std::sqrt(1.0 - zeta * zeta);
  return target *
         (1.0 - std::exp(-zeta * w * t) *
                    (std::cos(wd * t) + zeta / std::sqrt(1.0 - zeta * zeta) * std::sin(wd * t)));
}

constexpr double kW = 2.0 * std::numbers::pi;  // 1 Hz
constexpr double kZeta = 0.2;
constexpr double kRate = 1000.0;
constexpr int kSteps = 3000;

// Steps the world for 3 s and compares coordinate(world) with the step response to
// `target` at every tick: within 1 % of the step in Gauss-Seidel worlds, 2 % in tunable ones
// (whose poses are the free-motion poses, moved by the velocities the tick starts with).
template <typename Coordinate>
void ExpectStepResponse(World& world, double target, Coordinate coordinate) {
  const bool tunable = world.settings().solver.kind == SolverKind::kTunableLcp;
  double worst = 0.0;
  for (int i = 0; i < kSteps; ++i) {
    world.Step();
    const double expected = StepResponse(target, kW, kZeta, world.sim_time());
    worst = std::max(worst, std::abs(coordinate(world) - expected));
  }
  ::testing::Test::RecordProperty("worst_error", std::to_string(worst));
  EXPECT_LT(worst, (tunable ? 0.02 : 0.01) * std::abs(target));
}

// A 1 m arm turning about a horizontal axis through its end, its weight a load that
// changes with its angle (at most m g L / 2), driven at 2 rad/s by a motor with three times
// that torque: once up to speed it keeps its speed within 1 % all the way round.
TEST_P(DrivesTest, HingeMotorHoldsItsSpeedUnderGravity) {
  SceneDesc scene = Scene(200.0, true);
  const Shape arm = Shape::Box(Vec3(0.5, 0.02, 0.02));
  scene.bodies.push_back(testing::MakeBody("arm", arm, Vec3(0.5, 2, 0)));
  ConstraintDesc hinge =
      Joint("motor", JointKind::kHinge, "arm", {Vec3(-0.5, 0, 0), kXToZ}, {Vec3(0, 2, 0), kXToZ});
  const double target = 2.0;
  const double load = MassOf(arm).mass * kG * 0.5;
  hinge.params.axis_drive.mode = DriveMode::kVelocity;
  hinge.params.axis_drive.max_force = 3.0 * load;
  hinge.params.target_velocity = target;
  scene.constraints.push_back(hinge);
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 100; ++i) world->Step();
  // The hinge angle is B's (the world's) about A's (the arm's) axis: the arm turns the other
  // way, about -Z.
  double turned = 0.0;
  for (int i = 0; i < 400; ++i) {
    world->Step();
    const double w = -world->GetBody("arm")->rigid()->angular_velocity.z();
    EXPECT_NEAR(w, target, 0.01 * target) << "tick " << world->tick();
    turned += w / 200.0;
  }
  EXPECT_GT(turned, 3.9);  // more than half a turn: the load pulled both ways
}

// A box lifted by a slider's motor at 0.5 m/s against its weight.
TEST_P(DrivesTest, SliderMotorLiftsItsLoadAtItsSpeed) {
  SceneDesc scene = Scene(200.0, true);
  scene.bodies.push_back(testing::MakeBody("box", Shape::Box(Vec3(0.1, 0.1, 0.1)), Vec3::Zero()));
  ConstraintDesc slider =
      Joint("lift", JointKind::kSlider, "box", {Vec3::Zero(), kXToY}, {Vec3::Zero(), kXToY});
  // The offset is B's (the world's) anchor along A's axis: it falls as the box rises.
  slider.params.axis_drive.mode = DriveMode::kVelocity;
  slider.params.axis_drive.max_force = 1000.0;
  slider.params.target_velocity = -0.5;
  scene.constraints.push_back(slider);
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 200; ++i) {
    world->Step();
    if (i >= 10) EXPECT_NEAR(testing::VelocityOf(*world, "box").y(), 0.5, 0.005);
  }
}

// A box on a slider pulled 0.1 m by a spring drive.
TEST_P(DrivesTest, SliderSpringStepResponseIsTheDampedOscillators) {
  SceneDesc scene = Scene(kRate, false);
  const Shape box = Shape::Box(Vec3(0.1, 0.1, 0.1));
  scene.bodies.push_back(testing::MakeBody("box", box, Vec3::Zero()));
  ConstraintDesc slider = Joint("spring", JointKind::kSlider, "box", {}, {});
  slider.params.axis_drive = Spring(MassOf(box).mass, kW, kZeta);
  slider.params.target_position = 0.1;
  scene.constraints.push_back(slider);
  auto world = testing::MakeWorld(scene);
  // The offset is the world's anchor along the box's axis: -x of the box.
  ExpectStepResponse(*world, 0.1,
                     [](const World& w) { return -testing::PositionOf(w, "box").x(); });
}

// A wheel on a hinge through its centre turned 0.5 rad by a spring drive.
TEST_P(DrivesTest, HingeSpringStepResponseIsTheDampedOscillators) {
  SceneDesc scene = Scene(kRate, false);
  const Shape wheel = Shape::Box(Vec3(0.3, 0.3, 0.05));
  scene.bodies.push_back(testing::MakeBody("wheel", wheel, Vec3::Zero()));
  ConstraintDesc hinge =
      Joint("spring", JointKind::kHinge, "wheel", {Vec3::Zero(), kXToZ}, {Vec3::Zero(), kXToZ});
  hinge.params.axis_drive = Spring(MassOf(wheel).inertia.z(), kW, kZeta);
  hinge.params.target_position = 0.5;
  scene.constraints.push_back(hinge);
  auto world = testing::MakeWorld(scene);
  // The angle is the world's about the wheel's axis: the wheel turns about -Z.
  ExpectStepResponse(*world, 0.5, [](const World& w) {
    const Vec3 x = w.GetBody("wheel")->rigid()->pose.orientation * Vec3::UnitX();
    return -std::atan2(x.y(), x.x());
  });
}

// A box on a ball joint through its centre, turned 0.3 rad about Z by its orientation
// drive (small enough that the rotation vector's axis stays put).
TEST_P(DrivesTest, BallOrientationSpringStepResponseIsTheDampedOscillators) {
  SceneDesc scene = Scene(kRate, false);
  const Shape box = Shape::Box(Vec3(0.3, 0.2, 0.1));
  scene.bodies.push_back(testing::MakeBody("box", box, Vec3::Zero()));
  ConstraintDesc ball = Joint("spring", JointKind::kBall, "box", {}, {});
  ball.params.angular_drive = Spring(MassOf(box).inertia.z(), kW, kZeta);
  // B (the world) turned towards A's frame turned by the target: A turns by its inverse.
  ball.params.target_orientation = Quat(Eigen::AngleAxisd(-0.3, Vec3::UnitZ()));
  scene.constraints.push_back(ball);
  auto world = testing::MakeWorld(scene);
  ExpectStepResponse(*world, 0.3, [](const World& w) {
    const Vec3 x = w.GetBody("box")->rigid()->pose.orientation * Vec3::UnitX();
    return std::atan2(x.y(), x.x());
  });
}

// A free box pulled 0.2 m to a world frame by a 6-DOF drive (a grab), which also holds its
// orientation.
TEST_P(DrivesTest, GrabDriveStepResponseIsTheDampedOscillators) {
  SceneDesc scene = Scene(kRate, false);
  const Shape box = Shape::Box(Vec3(0.1, 0.1, 0.1));
  scene.bodies.push_back(testing::MakeBody("box", box, Vec3::Zero()));
  ConstraintDesc grab =
      Joint("grab", JointKind::kDrive, "box", {}, {Vec3(0, 0.2, 0), Quat::Identity()});
  grab.params.linear_drive = Spring(MassOf(box).mass, kW, kZeta);
  grab.params.angular_drive = Spring(MassOf(box).inertia.x(), kW, kZeta);
  scene.constraints.push_back(grab);
  auto world = testing::MakeWorld(scene);
  ExpectStepResponse(*world, 0.2, [](const World& w) { return testing::PositionOf(w, "box").y(); });
  const Vec3 p = testing::PositionOf(*world, "box");
  EXPECT_LT(std::hypot(p.x(), p.z()), 1e-9);
  EXPECT_LT(world->GetBody("box")->rigid()->angular_velocity.norm(), 1e-9);
}

// Steps until the joint breaks (at most `ticks`); returns the break, if any.
std::optional<JointBreak> RunUntilBroken(World& world, int ticks) {
  for (int i = 0; i < ticks; ++i) {
    world.Step();
    const Frame frame = world.MakeFrame();
    if (!frame.broken_joints.empty()) return frame.broken_joints.front();
  }
  return std::nullopt;
}

// A box hanging from a ball joint pulls on it with its weight m g: a break force 2 % above
// holds it for 2 s, one 2 % below breaks in the first ticks, reporting about m g.
TEST_P(DrivesTest, BallJointBreaksAtItsForceAndNotBelow) {
  const Shape box = Shape::Box(Vec3(0.1, 0.1, 0.1));
  const double weight = MassOf(box).mass * kG;
  for (const double share : {1.02, 0.98}) {
    SceneDesc scene = Scene(200.0, true);
    scene.bodies.push_back(testing::MakeBody("box", box, Vec3(0, 1, 0)));
    ConstraintDesc ball =
        Joint("hook", JointKind::kBall, "box", {Vec3(0, 0.1, 0), Quat::Identity()},
              {Vec3(0, 1.1, 0), Quat::Identity()});
    ball.params.break_force = share * weight;
    scene.constraints.push_back(ball);
    auto world = testing::MakeWorld(scene);
    const std::optional<JointBreak> broke = RunUntilBroken(*world, 400);
    if (share > 1.0) {
      EXPECT_FALSE(broke.has_value());
      EXPECT_TRUE(world->HasConstraint("hook"));
      EXPECT_NEAR(testing::PositionOf(*world, "box").y(), 1.0, 1e-4);
    } else {
      ASSERT_TRUE(broke.has_value());
      EXPECT_LE(world->tick(), 3u);
      EXPECT_EQ(broke->id, "hook");
      EXPECT_NEAR(broke->force, weight, 0.02 * weight);
      EXPECT_FALSE(world->HasConstraint("hook"));
      const Frame frame = world->MakeFrame();
      EXPECT_EQ(frame.removed_constraints, std::vector<std::string>{"hook"});
      for (int i = 0; i < 40; ++i) world->Step();
      EXPECT_LT(testing::VelocityOf(*world, "box").y(), -1.5);  // it falls
    }
  }
}

// A 1 m beam welded at one end holds its weight's moment m g L / 2 about the weld: a break
// torque 2 % above holds it, one 2 % below breaks it.
TEST_P(DrivesTest, FixedJointBreaksAtItsTorqueAndNotBelow) {
  const Shape beam = Shape::Box(Vec3(0.5, 0.02, 0.02));
  const double moment = MassOf(beam).mass * kG * 0.5;
  for (const double share : {1.02, 0.98}) {
    SceneDesc scene = Scene(200.0, true);
    scene.bodies.push_back(testing::MakeBody("beam", beam, Vec3(0.5, 1, 0)));
    ConstraintDesc weld =
        Joint("weld", JointKind::kFixed, "beam", {Vec3(-0.5, 0, 0), Quat::Identity()},
              {Vec3(0, 1, 0), Quat::Identity()});
    weld.params.break_torque = share * moment;
    scene.constraints.push_back(weld);
    auto world = testing::MakeWorld(scene);
    const std::optional<JointBreak> broke = RunUntilBroken(*world, 400);
    if (share > 1.0) {
      EXPECT_FALSE(broke.has_value());
    } else {
      ASSERT_TRUE(broke.has_value());
      EXPECT_NEAR(broke->torque, moment, 0.02 * moment);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothSolvers, DrivesTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

}  // namespace
}  // namespace ligature
