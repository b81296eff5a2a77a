// A robot arm imported from URDF (tests/data/arm/arm.urdf) hangs where statics puts it: each
// subtree's centre of mass straight below its joint axis, the slider at its limit. Imported
// with drives, a joint holds its start against gravity within its URDF effort limit, and
// short of the load gives that effort and no more.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/cpp/urdf_import.h"
#include "server/scene/scene_proto.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

const std::string kArmDir = std::string(LIGATURE_TEST_DATA_DIR) + "/arm";

// The equilibrium, from the URDF's numbers (every joint turns about Y, gravity along -Z):
// turning by q about Y takes (x, 0, z) to (x cos q + z sin q, 0, z cos q - x sin q), so a
// centre of mass (x, z) below a joint hangs straight down at q = atan2(x, -z).
struct Equilibrium {
  double shoulder;  // q1, rad
  double elbow;     // q2, rad (the forearm's angle is q1 + q2)
};

Equilibrium ArmEquilibrium() {
  // Below the elbow, in the forearm frame with the slider at its upper limit 0.1 (the
  // slider origin is 0.3 down, the tool mount 0.15 below the extension's frame):
  // forearm 1 kg at (0.15, -0.15), extension 0.5 kg at (0, -(0.3 + 0.1 + 0.05)), tool
  // 0.5 kg at (0, -(0.3 + 0.1 + 0.15 + 0.02)).
  const double m2 = 1.0 + 0.5 + 0.5;
  const double x2 = (1.0 * 0.15 + 0.5 * 0.0 + 0.5 * 0.0) / m2;
  const double z2 = (1.0 * -0.15 + 0.5 * -0.45 + 0.5 * -0.57) / m2;
  const double forearm = std::atan2(x2, -z2);
  // Below the shoulder, in the upper arm frame: the upper arm 2 kg at (-0.15, -0.2), and
  // the elbow subtree's weight, which acts on the upper arm at the elbow (0, -0.4).
  const double x1 = 2.0 * -0.15 + m2 * 0.0;
  const double z1 = 2.0 * -0.2 + m2 * -0.4;
  const double shoulder = std::atan2(x1, -z1);
  return {shoulder, forearm - shoulder};
}

// The tool's mesh as a hull of the STL's vertices (the test has no asset store).
v1::Shape ToolHull() {
  std::ifstream in(kArmDir + "/meshes/tool.stl");
  v1::Shape shape;
  v1::ConvexHull* hull = shape.mutable_hull();
  hull->set_weld_tolerance(1e-9);
  std::string word;
  while (in >> word) {
    if (word != "vertex") continue;
    v1::Vec3* p = hull->add_points();
    double x, y, z;
    in >> x >> y >> z;
    p->set_x(x);
    p->set_y(y);
    p->set_z(z);
  }
  return shape;
}

// An imported robot as a world at 240 Hz with 50 iterations of `solver` (null, and a test
// failure, when the import or the scene fails). Mesh assets become the tool's hull.
std::unique_ptr<World> RobotWorld(SolverKind solver, absl::StatusOr<client::UrdfImport> robot) {
  if (!robot.ok()) {
    ADD_FAILURE() << robot.status();
    return nullptr;
  }
  for (v1::Body& body : *robot->scene.mutable_bodies()) {
    if (body.shape().has_mesh_asset()) *body.mutable_shape() = ToolHull();
  }
  auto scene = SceneFromProto(robot->scene);
  if (!scene.ok()) {
    ADD_FAILURE() << scene.status();
    return nullptr;
  }
  scene->settings.rate_hz = 240.0;
  scene->settings.solver.kind = solver;
  scene->settings.solver.max_iterations = 50;
  return testing::MakeWorld(*scene);
}

// The arm imported at the given joint values (Y-up, base at the origin), as a world.
std::unique_ptr<World> ArmWorld(SolverKind solver, double shoulder, double elbow, double slide) {
  client::UrdfOptions options;
  options.joint_positions = {{"shoulder", shoulder}, {"elbow", elbow}, {"wrist_slide", slide}};
  return RobotWorld(solver, client::ImportUrdf(kArmDir + "/arm.urdf", options));
}

// A link's angle about the URDF Y axis: the robot frame is the world turned by -90 degrees
// about X ((x, y, z) -> (x, z, -y)), so the link's local Z axis, (sin q, 0, cos q) in the
// robot, is (sin q, cos q, 0) in the world.
double LinkAngle(const World& world, const std::string& id) {
  const Vec3 z = world.GetBody(id)->rigid()->pose.orientation * Vec3(0, 0, 1);
  return std::atan2(z.x(), z.y());
}

// The slider's offset: the extension's origin is 0.3 + s along the forearm's -Z.
double SlideOffset(const World& world) {
  const Transform forearm = world.GetBody("arm-forearm")->rigid()->pose;
  const Vec3 d = forearm.InverseApply(testing::PositionOf(world, "arm-extension"));
  return -d.z() - 0.3;
}

class UrdfArm : public ::testing::TestWithParam<SolverKind> {};

TEST_P(UrdfArm, HangsAtTheStaticEquilibrium) {
  const Equilibrium eq = ArmEquilibrium();
  // About -14.0 and +26.8 degrees: inside the shoulder's limits, clear of zero.
  ASSERT_NEAR(eq.shoulder, -0.245, 0.001);
  ASSERT_NEAR(eq.elbow, 0.468, 0.001);
  auto world = ArmWorld(GetParam(), eq.shoulder, eq.elbow, 0.1);
  ASSERT_NE(world, nullptr);
  double worst_shoulder = 0.0, worst_elbow = 0.0, worst_slide = 0.0;
  for (int i = 0; i < 3 * 240; ++i) {
    world->Step();
    const double q1 = LinkAngle(*world, "arm-upper_arm");
    const double q2 = LinkAngle(*world, "arm-forearm") - q1;
    worst_shoulder = std::max(worst_shoulder, std::abs(q1 - eq.shoulder));
    worst_elbow = std::max(worst_elbow, std::abs(q2 - eq.elbow));
    worst_slide = std::max(worst_slide, std::abs(SlideOffset(*world) - 0.1));
  }
  EXPECT_LT(worst_shoulder, 0.01);
  EXPECT_LT(worst_elbow, 0.01);
  EXPECT_LT(worst_slide, 0.005);  // resting on its upper limit
}

TEST_P(UrdfArm, StraightDownIsNotAnEquilibrium) {
  // Started straight down with the slider in, the arm swings towards the equilibrium and
  // the slider runs out to its limit.
  const Equilibrium eq = ArmEquilibrium();
  auto world = ArmWorld(GetParam(), 0.0, 0.0, 0.0);
  ASSERT_NE(world, nullptr);
  double lowest_shoulder = 0.0, highest_elbow = 0.0;
  for (int i = 0; i < 240; ++i) {
    world->Step();
    const double q1 = LinkAngle(*world, "arm-upper_arm");
    lowest_shoulder = std::min(lowest_shoulder, q1);
    highest_elbow = std::max(highest_elbow, LinkAngle(*world, "arm-forearm") - q1);
  }
  EXPECT_LT(lowest_shoulder, 0.5 * eq.shoulder);
  EXPECT_GT(highest_elbow, 0.5 * eq.elbow);
  EXPECT_NEAR(SlideOffset(*world), 0.1, 0.005);
}

// A pendulum bob (centre of mass at its sphere's centre, 0.5 below the joint) on a revolute
// joint about `axis` and a weight on a vertical prismatic joint, hanging from the root: the
// "world" link (joints to the world) or a massive base (joints to a static body). Both
// limits lie on the positive side of the revolute joint's zero and below the prismatic
// one's, so gravity holds each coordinate at its lower limit, and only at the URDF's sign.
std::string LimitRobot(bool world_root, const std::string& axis) {
  const std::string inertial =
      "<inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"1\"/><inertia ixx=\"0.001\" "
      "iyy=\"0.001\" izz=\"0.001\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>"
      "<collision><origin xyz=\"0 0 -0.5\"/><geometry><sphere radius=\"0.05\"/></geometry>"
      "</collision>";
  return absl::StrCat("<robot name=\"limits\"><link name=\"root\">",
                      world_root ? ""
                                 : "<inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" "
                                   "izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>",
                      "</link><link name=\"bob\">", inertial, "</link><link name=\"weight\">",
                      inertial,
                      "</link><joint name=\"swing\" type=\"revolute\"><parent link=\"root\"/>"
                      "<child link=\"bob\"/><axis xyz=\"",
                      axis,
                      "\"/><limit lower=\"0.2\" upper=\"0.6\" effort=\"0\" velocity=\"0\"/></joint>"
                      "<joint name=\"lift\" type=\"prismatic\"><parent link=\"root\"/>"
                      "<child link=\"weight\"/><origin xyz=\"2 0 0\"/><axis xyz=\"0 0 1\"/>"
                      "<limit lower=\"-0.3\" upper=\"-0.1\" effort=\"0\" velocity=\"0\"/></joint>"
                      "</robot>");
}

TEST(UrdfLimits, JointsToTheWorldAndToABodyKeepTheUrdfSign) {
  for (bool world_root : {true, false}) {
    for (const char* axis : {"0 1 0", "0 -1 0"}) {
      // Started at 0.4, gravity turns the bob back towards 0 and the lower limit (0.2) stops
      // it; the weight, started at -0.2, drops to its lower limit (-0.3). With the signs
      // wrong the limits would hold them at -0.2 and +0.1 instead.
      client::UrdfOptions options;
      options.joint_positions = {{"swing", 0.4}, {"lift", -0.2}};
      auto robot = client::ImportUrdfXml(LimitRobot(world_root, axis), kArmDir, options);
      ASSERT_TRUE(robot.ok()) << robot.status();
      auto scene = SceneFromProto(robot->scene);
      ASSERT_TRUE(scene.ok()) << scene.status();
      scene->settings.rate_hz = 240.0;
      scene->settings.solver.max_iterations = 50;
      auto world = testing::MakeWorld(*scene);
      for (int i = 0; i < 3 * 240; ++i) world->Step();
      const std::string at = absl::StrCat(world_root ? "world" : "base", ", axis ", axis);
      // The bob's angle about URDF +Y (the joint angle, or its opposite about -Y), and the
      // weight's height (URDF Z is world Y).
      const double about_y = axis[2] == '1' ? 1.0 : -1.0;
      EXPECT_NEAR(LinkAngle(*world, "limits-bob"), 0.2 * about_y, 0.03) << at;
      EXPECT_NEAR(testing::PositionOf(*world, "limits-weight").y(), -0.3, 0.01) << at;
    }
  }
}

// A 1 kg bob 0.5 m out on a revolute joint about URDF Y (horizontal) from the world, with
// the given effort limit, imported with spring drives and started horizontal (joint value
// pi/2), where gravity's torque is m g L = 4.905 N m.
std::string DrivenBob(double effort) {
  return absl::StrCat(
      "<robot name=\"driven\"><link name=\"world\"/><link name=\"bob\"><inertial><origin "
      "xyz=\"0 0 -0.5\"/><mass value=\"1\"/><inertia ixx=\"0.001\" iyy=\"0.001\" "
      "izz=\"0.001\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial><collision><origin "
      "xyz=\"0 0 -0.5\"/><geometry><sphere radius=\"0.05\"/></geometry></collision></link>"
      "<joint name=\"swing\" type=\"revolute\"><parent link=\"world\"/><child link=\"bob\"/>"
      "<axis xyz=\"0 1 0\"/><limit lower=\"-2\" upper=\"2\" effort=\"",
      effort, "\" velocity=\"0\"/></joint></robot>");
}

constexpr double kMgl = 0.5 * 9.81;  // N m
constexpr double kHorizontal = std::numbers::pi / 2;

std::unique_ptr<World> DrivenBobWorld(SolverKind solver, double effort, double stiffness,
                                      double damping) {
  client::UrdfOptions options;
  options.joint_positions = {{"swing", kHorizontal}};
  options.drives = client::UrdfOptions::Drives{stiffness, damping};
  return RobotWorld(solver, client::ImportUrdfXml(DrivenBob(effort), kArmDir, options));
}

// The bob's angle from straight down, either way round (its link hangs along its -Z).
double BobAngle(const World& world) { return std::abs(LinkAngle(world, "driven-bob")); }

// Within its effort a stiff drive (200 N m/rad, over-damped at 20 N m s/rad) holds the bob
// where the spring balances gravity: k d = m g L cos d, d = 0.02453 rad below horizontal
// (cos d differs from 1 by 3e-4). Gauss-Seidel only: the tunable solver settles 1.33 times
// as low (its drive's static balance is not yet exact).
TEST(UrdfDrives, HoldTheLoadWithinTheirEffortWhereTheSpringBalancesIt) {
  auto world = DrivenBobWorld(SolverKind::kGaussSeidel, 10.0, 200.0, 20.0);
  ASSERT_NE(world, nullptr);
  ASSERT_NEAR(BobAngle(*world), kHorizontal, 1e-9);
  for (int i = 0; i < 3 * 240; ++i) world->Step();
  double sag = kMgl / 200.0;
  sag = kMgl * std::cos(sag) / 200.0;  // one fixed-point step: converged to 1e-8
  EXPECT_NEAR(BobAngle(*world), kHorizontal - sag, 0.05 * sag);
}

// Short of the load (4 N m against 4.905), the drive gives its effort and no more: a
// constant counter-torque, so that the bob swings like a pendulum in the potential
// -m g L cos(a) - E a (the damping is part of the capped torque, so it is lost). From rest
// at pi/2 it sinks to the angle of equal energy, m g L cos(a) + E a = E pi/2, near 0.4873
// rad, and swings back. Without the cap the spring would hold it near horizontal.
TEST_P(UrdfArm, DriveShortOfTheLoadGivesItsEffortAndNoMore) {
  constexpr double kEffort = 4.0;
  auto world = DrivenBobWorld(GetParam(), kEffort, 200.0, 20.0);
  ASSERT_NE(world, nullptr);
  // The turning point, by bisection on [0, asin(E / m g L)], where the gap rises through 0.
  const auto energy_gap = [&](double a) {
    return kMgl * std::cos(a) + kEffort * a - kEffort * kHorizontal;
  };
  double lo = 0.0, hi = std::asin(kEffort / kMgl);
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (energy_gap(mid) > 0.0 ? hi : lo) = mid;
  }
  double lowest = kHorizontal;
  for (int i = 0; i < 3 * 240 / 2; ++i) {
    world->Step();
    lowest = std::min(lowest, BobAngle(*world));
  }
  // The tunable solver loses a little energy on the way down.
  EXPECT_NEAR(lowest, lo, 0.03);
}

INSTANTIATE_TEST_SUITE_P(Solvers, UrdfArm,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const ::testing::TestParamInfo<SolverKind>& info) {
                           return testing::SolverName(info.param);
                         });

}  // namespace
}  // namespace ligature
