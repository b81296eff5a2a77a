#include "clients/cpp/urdf_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace ligature::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

const std::string kArmDir = std::string(LIGATURE_TEST_DATA_DIR) + "/arm";
const std::string kArm = kArmDir + "/arm.urdf";
constexpr double kEps = 1e-9;

// ---------------------------------------------------------------------------------------
// Small quaternion arithmetic of the test's own, (x, y, z, w) as in the proto.

struct V {
  double x, y, z;
};
struct Q {
  double x, y, z, w;
};

V Vec(const v1::Vec3& v) { return {v.x(), v.y(), v.z()}; }
Q Quat(const v1::Quaternion& q) { return {q.x(), q.y(), q.z(), q.w()}; }

Q Mul(const Q& a, const Q& b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

V Rotate(const Q& q, const V& v) {
  const Q r = Mul(Mul(q, {v.x, v.y, v.z, 0.0}), {-q.x, -q.y, -q.z, q.w});
  return {r.x, r.y, r.z};
}

// A frame (pose) placed in a parent pose: the frame in world coordinates.
struct Frame {
  V p;
  Q q;
};
Frame Compose(const v1::Pose& parent, const v1::Pose& child) {
  const Q pq = Quat(parent.orientation());
  const V r = Rotate(pq, Vec(child.position()));
  const V pp = Vec(parent.position());
  return {{pp.x + r.x, pp.y + r.y, pp.z + r.z}, Mul(pq, Quat(child.orientation()))};
}

#define EXPECT_VEC(v, ex, ey, ez)  \
  do {                             \
    const V v_ = (v);              \
    EXPECT_NEAR(v_.x, (ex), kEps); \
    EXPECT_NEAR(v_.y, (ey), kEps); \
    EXPECT_NEAR(v_.z, (ez), kEps); \
  } while (0)

// Same rotation (q or -q).
void ExpectSameRotation(const Q& a, const Q& b) {
  const double dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  EXPECT_NEAR(std::abs(dot), 1.0, 1e-9);
}

const v1::Body* FindBody(const v1::Scene& scene, const std::string& id) {
  for (const v1::Body& b : scene.bodies()) {
    if (b.id() == id) return &b;
  }
  ADD_FAILURE() << "no body " << id;
  return nullptr;
}

const v1::Constraint* FindConstraint(const v1::Scene& scene, const std::string& id) {
  for (const v1::Constraint& c : scene.constraints()) {
    if (c.id() == id) return &c;
  }
  ADD_FAILURE() << "no constraint " << id;
  return nullptr;
}

UrdfOptions ZUp() {
  UrdfOptions options;
  options.y_up = false;
  return options;
}

// A robot around the given links and joints.
std::string Robot(const std::string& body) {
  return absl::StrCat("<?xml version=\"1.0\"?>\n<robot name=\"r\">\n", body, "</robot>\n");
}

std::string MassLink(const std::string& name, const std::string& extra = "") {
  return absl::StrCat("<link name=\"", name,
                      "\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" "
                      "izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>",
                      extra, "</link>\n");
}

// ---------------------------------------------------------------------------------------
// The arm of tests/data/arm: bodies, poses, masses, inertia, shapes, joints.

TEST(UrdfImport, ArmBodiesIdsKindsAndMasses) {
  auto arm = ImportUrdf(kArm, ZUp());
  ASSERT_TRUE(arm.ok()) << arm.status();
  const v1::Scene& s = arm->scene;
  ASSERT_EQ(s.bodies_size(), 5);
  EXPECT_EQ(s.bodies(0).id(), "arm-base");
  EXPECT_EQ(s.bodies(0).kind(), v1::BODY_KIND_STATIC);
  EXPECT_FALSE(s.bodies(0).has_material());  // a static body carries no mass
  const std::pair<const char*, double> masses[] = {
      {"arm-upper_arm", 2.0}, {"arm-forearm", 1.0}, {"arm-extension", 0.5}, {"arm-tool", 0.5}};
  for (const auto& [id, mass] : masses) {
    const v1::Body* b = FindBody(s, id);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->kind(), v1::BODY_KIND_DYNAMIC) << id;
    EXPECT_DOUBLE_EQ(b->material().mass(), mass) << id;
  }
  EXPECT_EQ(s.constraints_size(), 4);
}

TEST(UrdfImport, ArmWorldPosesAtZero) {
  auto arm = ImportUrdf(kArm, ZUp());
  ASSERT_TRUE(arm.ok()) << arm.status();
  // Joint origins along -Z: shoulder 0.1, elbow 0.4, slider 0.3, tool mount 0.15.
  const std::pair<const char*, double> heights[] = {{"arm-base", 0.0},
                                                    {"arm-upper_arm", -0.1},
                                                    {"arm-forearm", -0.5},
                                                    {"arm-extension", -0.8},
                                                    {"arm-tool", -0.95}};
  for (const auto& [id, z] : heights) {
    const v1::Body* b = FindBody(arm->scene, id);
    ASSERT_NE(b, nullptr);
    EXPECT_VEC(Vec(b->pose().position()), 0.0, 0.0, z);
    ExpectSameRotation(Quat(b->pose().orientation()), {0, 0, 0, 1});
  }
}

TEST(UrdfImport, YUpTurnsTheRobotAndBasePoseMovesIt) {
  UrdfOptions options;  // y_up by default
  options.base_pose.mutable_position()->set_x(1.0);
  auto arm = ImportUrdf(kArm, options);
  ASSERT_TRUE(arm.ok()) << arm.status();
  // -90 degrees about X: URDF (x, y, z) -> world (x, z, -y).
  const v1::Body* forearm = FindBody(arm->scene, "arm-forearm");
  ASSERT_NE(forearm, nullptr);
  EXPECT_VEC(Vec(forearm->pose().position()), 1.0, -0.5, 0.0);
  const double h = std::sqrt(0.5);
  ExpectSameRotation(Quat(forearm->pose().orientation()), {-h, 0, 0, h});
}

TEST(UrdfImport, JointPositionsPlaceTheLinks) {
  UrdfOptions options = ZUp();
  options.joint_positions = {{"shoulder", 0.5}, {"wrist_slide", 0.05}};
  auto arm = ImportUrdf(kArm, options);
  ASSERT_TRUE(arm.ok()) << arm.status();
  // Turned by 0.5 rad about Y, (0, 0, -d) goes to (-d sin 0.5, 0, -d cos 0.5).
  const double s = std::sin(0.5), c = std::cos(0.5);
  const v1::Body* upper = FindBody(arm->scene, "arm-upper_arm");
  const v1::Body* forearm = FindBody(arm->scene, "arm-forearm");
  const v1::Body* extension = FindBody(arm->scene, "arm-extension");
  ASSERT_TRUE(upper && forearm && extension);
  EXPECT_VEC(Vec(upper->pose().position()), 0.0, 0.0, -0.1);
  ExpectSameRotation(Quat(upper->pose().orientation()), {0, std::sin(0.25), 0, std::cos(0.25)});
  EXPECT_VEC(Vec(forearm->pose().position()), -0.4 * s, 0.0, -0.1 - 0.4 * c);
  // The slider adds 0.05 to the forearm's 0.3 along the forearm's -Z.
  EXPECT_VEC(Vec(extension->pose().position()), -0.75 * s, 0.0, -0.1 - 0.75 * c);

  options.joint_positions = {{"tool_mount", 0.1}};
  EXPECT_EQ(ImportUrdf(kArm, options).status().code(), absl::StatusCode::kInvalidArgument);
  options.joint_positions = {{"nope", 0.1}};
  auto unknown = ImportUrdf(kArm, options);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("\"nope\""));
}

TEST(UrdfImport, InertiaCentreAndTensorTurnedIntoLinkAxes) {
  auto arm = ImportUrdf(kArm, ZUp());
  ASSERT_TRUE(arm.ok()) << arm.status();
  // Upper arm: diag(0.002, 0.02, 0.02) pitched 90 degrees about Y (X onto -Z):
  // diag(0.02, 0.02, 0.002).
  const v1::Body* upper = FindBody(arm->scene, "arm-upper_arm");
  ASSERT_NE(upper, nullptr);
  const v1::Inertia& i = upper->material().inertia();
  EXPECT_VEC(Vec(i.center_of_mass()), -0.15, 0.0, -0.2);
  EXPECT_NEAR(i.ixx(), 0.02, kEps);
  EXPECT_NEAR(i.iyy(), 0.02, kEps);
  EXPECT_NEAR(i.izz(), 0.002, kEps);
  EXPECT_NEAR(i.ixy(), 0.0, kEps);
  EXPECT_NEAR(i.ixz(), 0.0, kEps);
  EXPECT_NEAR(i.iyz(), 0.0, kEps);
  // The forearm's is as given.
  const v1::Inertia& f = FindBody(arm->scene, "arm-forearm")->material().inertia();
  EXPECT_VEC(Vec(f.center_of_mass()), 0.15, 0.0, -0.15);
  EXPECT_NEAR(f.ixx(), 0.005, kEps);
  EXPECT_NEAR(f.izz(), 0.001, kEps);
}

TEST(UrdfImport, InertiaWithProductsTurnedByYaw) {
  // [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.25]] turned 90 degrees about Z (X onto Y):
  // xx and yy swap, xy changes sign.
  const std::string xml = Robot(
      "<link name=\"a\"><inertial><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 1.5707963267948966\"/>"
      "<mass value=\"3\"/><inertia ixx=\"0.1\" iyy=\"0.2\" izz=\"0.25\" ixy=\"0.01\" ixz=\"0\" "
      "iyz=\"0\"/></inertial></link>\n");
  UrdfOptions options = ZUp();
  options.fixed_base = false;
  auto robot = ImportUrdfXml(xml, kArmDir, options);
  ASSERT_TRUE(robot.ok()) << robot.status();
  ASSERT_EQ(robot->scene.bodies_size(), 1);
  const v1::Body& b = robot->scene.bodies(0);
  EXPECT_EQ(b.kind(), v1::BODY_KIND_DYNAMIC);
  EXPECT_DOUBLE_EQ(b.material().mass(), 3.0);
  const v1::Inertia& i = b.material().inertia();
  EXPECT_VEC(Vec(i.center_of_mass()), 0.1, 0.2, 0.3);
  EXPECT_NEAR(i.ixx(), 0.2, kEps);
  EXPECT_NEAR(i.iyy(), 0.1, kEps);
  EXPECT_NEAR(i.izz(), 0.25, kEps);
  EXPECT_NEAR(i.ixy(), -0.01, kEps);
  EXPECT_NEAR(i.ixz(), 0.0, kEps);
  EXPECT_NEAR(i.iyz(), 0.0, kEps);
  // No collision: a 5 mm sphere at the centre of mass.
  ASSERT_EQ(b.shape().compound().children_size(), 1);
  const v1::CompoundChild& c = b.shape().compound().children(0);
  EXPECT_DOUBLE_EQ(c.shape().sphere().radius(), 0.005);
  EXPECT_VEC(Vec(c.pose().position()), 0.1, 0.2, 0.3);
}

TEST(UrdfImport, ArmShapes) {
  auto arm = ImportUrdf(kArm, ZUp());
  ASSERT_TRUE(arm.ok()) << arm.status();
  const v1::Scene& s = arm->scene;
  // Base: one box at the link origin, as is.
  EXPECT_VEC(Vec(s.bodies(0).shape().box().half_extents()), 0.1, 0.1, 0.05);
  // Upper arm: one box off the origin, as a compound child.
  const v1::Compound& upper = FindBody(s, "arm-upper_arm")->shape().compound();
  ASSERT_EQ(upper.children_size(), 1);
  EXPECT_VEC(Vec(upper.children(0).shape().box().half_extents()), 0.03, 0.03, 0.15);
  EXPECT_VEC(Vec(upper.children(0).pose().position()), 0.0, 0.0, -0.2);
  // Forearm: the cylinder (radius 0.03, length 0.2) as a 32-sided prism, and a box.
  const v1::Compound& forearm = FindBody(s, "arm-forearm")->shape().compound();
  ASSERT_EQ(forearm.children_size(), 2);
  const v1::ConvexHull& prism = forearm.children(0).shape().hull();
  ASSERT_EQ(prism.points_size(), 64);
  int top = 0;
  for (const v1::Vec3& p : prism.points()) {
    EXPECT_NEAR(std::hypot(p.x(), p.y()), 0.03, kEps);
    EXPECT_NEAR(std::abs(p.z()), 0.1, kEps);
    top += p.z() > 0.0;
  }
  EXPECT_EQ(top, 32);
  EXPECT_VEC(Vec(forearm.children(0).pose().position()), 0.0, 0.0, -0.15);
  EXPECT_VEC(Vec(forearm.children(1).shape().box().half_extents()), 0.04, 0.02, 0.02);
  EXPECT_VEC(Vec(forearm.children(1).pose().position()), 0.15, 0.0, -0.15);
  // Tool: the mesh file, absolute, as a hull on a moving body.
  const v1::MeshAssetShape& tool = FindBody(s, "arm-tool")->shape().mesh_asset();
  EXPECT_EQ(tool.file(), kArmDir + "/meshes/tool.stl");
  EXPECT_TRUE(tool.as_hull());
  EXPECT_VEC(Vec(tool.scale()), 1.0, 1.0, 1.0);
}

TEST(UrdfImport, ArmJointKindsFramesAxesAndLimits) {
  auto arm = ImportUrdf(kArm, ZUp());
  ASSERT_TRUE(arm.ok()) << arm.status();
  const v1::Scene& s = arm->scene;
  struct Expected {
    const char* id;
    const char* a;
    const char* b;
    V position_in_a;
    V axis;  // the URDF axis, in both links' frames here
  };
  const Expected hinges[] = {
      {"arm-shoulder", "arm-base", "arm-upper_arm", {0, 0, -0.1}, {0, 1, 0}},
      {"arm-elbow", "arm-upper_arm", "arm-forearm", {0, 0, -0.4}, {0, 1, 0}},
      {"arm-wrist_slide", "arm-forearm", "arm-extension", {0, 0, -0.3}, {0, 0, -1}},
  };
  for (const Expected& e : hinges) {
    const v1::Constraint* c = FindConstraint(s, e.id);
    ASSERT_NE(c, nullptr);
    const v1::JointFrames& f = c->has_hinge() ? c->hinge().frames() : c->slider().frames();
    EXPECT_EQ(f.body_a(), e.a);
    EXPECT_EQ(f.body_b(), e.b);
    EXPECT_VEC(Vec(f.frame_a().position()), e.position_in_a.x, e.position_in_a.y,
               e.position_in_a.z);
    EXPECT_VEC(Vec(f.frame_b().position()), 0.0, 0.0, 0.0);
    // Both frames' X axes along the URDF axis.
    EXPECT_VEC(Rotate(Quat(f.frame_a().orientation()), {1, 0, 0}), e.axis.x, e.axis.y, e.axis.z);
    EXPECT_VEC(Rotate(Quat(f.frame_b().orientation()), {1, 0, 0}), e.axis.x, e.axis.y, e.axis.z);
    // At zero the two frames coincide in the world.
    const Frame wa = Compose(FindBody(s, e.a)->pose(), f.frame_a());
    const Frame wb = Compose(FindBody(s, e.b)->pose(), f.frame_b());
    EXPECT_VEC(wa.p, wb.p.x, wb.p.y, wb.p.z);
    ExpectSameRotation(wa.q, wb.q);
  }
  const v1::Constraint* shoulder = FindConstraint(s, "arm-shoulder");
  ASSERT_TRUE(shoulder->has_hinge());
  ASSERT_TRUE(shoulder->hinge().has_limits());
  EXPECT_DOUBLE_EQ(shoulder->hinge().limits().lower(), -1.0);
  EXPECT_DOUBLE_EQ(shoulder->hinge().limits().upper(), 1.0);
  const v1::Constraint* elbow = FindConstraint(s, "arm-elbow");
  ASSERT_TRUE(elbow->has_hinge());
  EXPECT_FALSE(elbow->hinge().has_limits());  // continuous
  const v1::Constraint* slide = FindConstraint(s, "arm-wrist_slide");
  ASSERT_TRUE(slide->has_slider());
  EXPECT_DOUBLE_EQ(slide->slider().limits().lower(), 0.0);
  EXPECT_DOUBLE_EQ(slide->slider().limits().upper(), 0.1);
  const v1::Constraint* mount = FindConstraint(s, "arm-tool_mount");
  ASSERT_TRUE(mount->has_fixed());
  EXPECT_EQ(mount->fixed().frames().body_a(), "arm-extension");
  EXPECT_EQ(mount->fixed().frames().body_b(), "arm-tool");
  EXPECT_VEC(Vec(mount->fixed().frames().frame_a().position()), 0.0, 0.0, -0.15);
  ExpectSameRotation(Quat(mount->fixed().frames().frame_a().orientation()), {0, 0, 0, 1});
  // Without drives nothing holds a joint: no drive, and the limits the URDF gives for its
  // actuators are reported, once per joint that has them.
  EXPECT_FALSE(slide->slider().has_drive());
  EXPECT_THAT(arm->unsupported,
              ElementsAre("joint \"shoulder\": velocity limits are not enforced",
                          "joint \"shoulder\": effort limits are not enforced (no drives asked for)",
                          "joint \"wrist_slide\": velocity limits are not enforced",
                          "joint \"wrist_slide\": effort limits are not enforced (no drives "
                          "asked for)"));
}

TEST(UrdfImport, DrivesHoldTheInitialJointValuesWithinTheEffortLimits) {
  UrdfOptions options = ZUp();
  options.joint_positions = {{"shoulder", 0.5}, {"wrist_slide", 0.05}};
  options.drives = UrdfOptions::Drives{.stiffness = 300.0, .damping = 20.0};
  auto arm = ImportUrdf(kArm, options);
  ASSERT_TRUE(arm.ok()) << arm.status();
  // arm.urdf: the shoulder (revolute) has effort="50", the slide (prismatic) effort="20".
  const v1::Constraint* shoulder = FindConstraint(arm->scene, "arm-shoulder");
  ASSERT_TRUE(shoulder != nullptr && shoulder->hinge().has_drive());
  const v1::JointDrive& turn = shoulder->hinge().drive();
  EXPECT_EQ(turn.mode(), v1::DRIVE_MODE_SPRING);
  EXPECT_EQ(turn.target_position(), 0.5);
  EXPECT_EQ(turn.stiffness(), 300.0);
  EXPECT_EQ(turn.damping(), 20.0);
  EXPECT_EQ(turn.max_force(), 50.0);
  // The elbow (continuous, no <limit>) has no effort limit: its drive is unbounded.
  const v1::Constraint* elbow = FindConstraint(arm->scene, "arm-elbow");
  ASSERT_TRUE(elbow != nullptr && elbow->hinge().has_drive());
  EXPECT_EQ(elbow->hinge().drive().target_position(), 0.0);
  EXPECT_FALSE(elbow->hinge().drive().has_max_force());
  const v1::Constraint* slide = FindConstraint(arm->scene, "arm-wrist_slide");
  ASSERT_TRUE(slide != nullptr && slide->slider().has_drive());
  EXPECT_EQ(slide->slider().drive().target_position(), 0.05);
  EXPECT_EQ(slide->slider().drive().max_force(), 20.0);
  // A fixed joint gets none; the velocity limits are still reported, the efforts are not.
  EXPECT_TRUE(FindConstraint(arm->scene, "arm-tool_mount")->has_fixed());
  EXPECT_THAT(arm->unsupported, ElementsAre("joint \"shoulder\": velocity limits are not enforced",
                                            "joint \"wrist_slide\": velocity limits are not "
                                            "enforced"));

  // Gains that cannot make a spring are refused.
  for (const UrdfOptions::Drives bad : {UrdfOptions::Drives{0.0, 0.0},
                                        UrdfOptions::Drives{-1.0, 1.0},
                                        UrdfOptions::Drives{std::nan(""), 1.0}}) {
    options.drives = bad;
    auto refused = ImportUrdf(kArm, options);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(refused.status().message(), HasSubstr("drives:"));
  }
}

// ---------------------------------------------------------------------------------------
// The world link, massless links, ids.

TEST(UrdfImport, MasslessRootHoldsItsChildrenToTheWorld) {
  const std::string xml =
      Robot("<link name=\"world\"/>\n" + MassLink("base") + MassLink("wheel") +
            "<joint name=\"bolt\" type=\"fixed\"><parent link=\"world\"/><child link=\"base\"/>"
            "<origin xyz=\"1 2 3\"/></joint>\n"
            "<joint name=\"spin\" type=\"continuous\"><parent link=\"world\"/>"
            "<child link=\"wheel\"/><origin xyz=\"0 0 1\"/><axis xyz=\"0 0 1\"/></joint>\n");
  auto robot = ImportUrdfXml(xml, kArmDir, ZUp());
  ASSERT_TRUE(robot.ok()) << robot.status();
  const v1::Scene& s = robot->scene;
  ASSERT_EQ(s.bodies_size(), 2);  // no body for the world link
  EXPECT_EQ(FindBody(s, "r-base")->kind(), v1::BODY_KIND_DYNAMIC);
  EXPECT_VEC(Vec(FindBody(s, "r-base")->pose().position()), 1.0, 2.0, 3.0);
  const v1::JointFrames& bolt = FindConstraint(s, "r-bolt")->fixed().frames();
  EXPECT_EQ(bolt.body_a(), "r-base");
  EXPECT_EQ(bolt.body_b(), "");  // the world
  EXPECT_VEC(Vec(bolt.frame_b().position()), 1.0, 2.0, 3.0);
  // Against the world the child is A and the frames' X runs along -axis, so that B's (the
  // world's) angle relative to A is the URDF angle.
  const v1::JointFrames& spin = FindConstraint(s, "r-spin")->hinge().frames();
  EXPECT_EQ(spin.body_a(), "r-wheel");
  EXPECT_EQ(spin.body_b(), "");
  EXPECT_VEC(Vec(spin.frame_a().position()), 0.0, 0.0, 0.0);
  EXPECT_VEC(Vec(spin.frame_b().position()), 0.0, 0.0, 1.0);
  EXPECT_VEC(Rotate(Quat(spin.frame_a().orientation()), {1, 0, 0}), 0.0, 0.0, -1.0);
  EXPECT_VEC(Rotate(Quat(spin.frame_b().orientation()), {1, 0, 0}), 0.0, 0.0, -1.0);
}

TEST(UrdfImport, MasslessRootWithCollisionsBecomesAStaticBody) {
  const std::string xml = Robot(
      "<link name=\"table\"><collision><geometry><box size=\"2 2 0.1\"/></geometry>"
      "</collision></link>\n" +
      MassLink("cup") +
      "<joint name=\"slide\" type=\"prismatic\"><parent link=\"table\"/><child link=\"cup\"/>"
      "<origin xyz=\"0 0 0.5\"/><axis xyz=\"1 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"0\" "
      "velocity=\"0\"/>"
      "</joint>\n");
  auto robot = ImportUrdfXml(xml, kArmDir, ZUp());
  ASSERT_TRUE(robot.ok()) << robot.status();
  const v1::Scene& s = robot->scene;
  ASSERT_EQ(s.bodies_size(), 2);
  EXPECT_EQ(s.bodies(0).id(), "r-table");
  EXPECT_EQ(s.bodies(0).kind(), v1::BODY_KIND_STATIC);
  EXPECT_VEC(Vec(s.bodies(0).shape().box().half_extents()), 1.0, 1.0, 0.05);
  const v1::JointFrames& f = FindConstraint(s, "r-slide")->slider().frames();
  EXPECT_EQ(f.body_a(), "r-cup");
  EXPECT_EQ(f.body_b(), "r-table");
  EXPECT_VEC(Vec(f.frame_b().position()), 0.0, 0.0, 0.5);
  EXPECT_VEC(Rotate(Quat(f.frame_a().orientation()), {1, 0, 0}), -1.0, 0.0, 0.0);
  EXPECT_VEC(Rotate(Quat(f.frame_b().orientation()), {1, 0, 0}), -1.0, 0.0, 0.0);
}

TEST(UrdfImport, MasslessFixedLinkMergesIntoItsParent) {
  // finger (no inertial) is fixed to hand at (0.1, 0, 0), turned 90 degrees about Z; its
  // sphere sits 0.02 along its own X, so at (0.1, 0.02, 0) in the hand. The tip hangs from
  // the finger by a revolute joint 0.05 along the finger's X: (0.1, 0.05, 0) in the hand.
  const std::string xml =
      Robot(MassLink("hand",
                     "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry>"
                     "</collision>") +
            "<link name=\"finger\"><collision><origin xyz=\"0.02 0 0\"/>"
            "<geometry><sphere radius=\"0.01\"/></geometry></collision></link>\n" +
            MassLink("tip") +
            "<joint name=\"knuckle\" type=\"fixed\"><parent link=\"hand\"/><child link=\"finger\"/>"
            "<origin xyz=\"0.1 0 0\" rpy=\"0 0 1.5707963267948966\"/></joint>\n"
            "<joint name=\"tip_joint\" type=\"revolute\"><parent link=\"finger\"/>"
            "<child link=\"tip\"/><origin xyz=\"0.05 0 0\"/><axis xyz=\"0 0 1\"/>"
            "<limit lower=\"0\" upper=\"1\" effort=\"0\" velocity=\"0\"/></joint>\n");
  UrdfOptions options = ZUp();
  options.id_prefix = "";
  auto robot = ImportUrdfXml(xml, kArmDir, options);
  ASSERT_TRUE(robot.ok()) << robot.status();
  const v1::Scene& s = robot->scene;
  ASSERT_EQ(s.bodies_size(), 2);
  const v1::Compound& hand = FindBody(s, "hand")->shape().compound();
  ASSERT_EQ(hand.children_size(), 2);
  EXPECT_VEC(Vec(hand.children(0).shape().box().half_extents()), 0.05, 0.05, 0.05);
  EXPECT_DOUBLE_EQ(hand.children(1).shape().sphere().radius(), 0.01);
  EXPECT_VEC(Vec(hand.children(1).pose().position()), 0.1, 0.02, 0.0);
  EXPECT_VEC(Vec(FindBody(s, "tip")->pose().position()), 0.1, 0.05, 0.0);
  ASSERT_EQ(s.constraints_size(), 1);  // the fixed joint is gone
  const v1::JointFrames& f = FindConstraint(s, "tip_joint")->hinge().frames();
  EXPECT_EQ(f.body_a(), "hand");
  EXPECT_EQ(f.body_b(), "tip");
  EXPECT_VEC(Vec(f.frame_a().position()), 0.1, 0.05, 0.0);
  EXPECT_VEC(Rotate(Quat(f.frame_a().orientation()), {1, 0, 0}), 0.0, 0.0, 1.0);
  EXPECT_TRUE(robot->unsupported.empty());  // zero effort and velocity: nothing to enforce
}

TEST(UrdfImport, IdsAreSanitizedTruncatedAndUnique) {
  const std::string long_name(80, 'x');
  const std::string xml = absl::StrCat(
      "<robot name=\"My Robot!\">", MassLink("Link A"), MassLink("link.a"), MassLink(long_name),
      "<joint name=\"j\" type=\"floating\"><parent link=\"Link A\"/><child link=\"link.a\"/>"
      "</joint><joint name=\"k\" type=\"floating\"><parent link=\"Link A\"/>"
      "<child link=\"",
      long_name, "\"/></joint></robot>");
  UrdfOptions options = ZUp();
  auto robot = ImportUrdfXml(xml, kArmDir, options);
  ASSERT_TRUE(robot.ok()) << robot.status();
  const v1::Scene& s = robot->scene;
  ASSERT_EQ(s.bodies_size(), 3);
  EXPECT_EQ(s.constraints_size(), 0);  // floating joints hold nothing
  std::vector<std::string> ids;
  for (const v1::Body& b : s.bodies()) ids.push_back(b.id());
  EXPECT_THAT(ids, UnorderedElementsAre("my-robot--link-a", "my-robot--link-a-2",
                                        "my-robot--" + std::string(53, 'x')));
}

TEST(UrdfImport, StaticRootMeshIsATriangleMeshAndFreeBaseMoves) {
  const std::string xml =
      Robot(MassLink("base",
                     "<collision><geometry><mesh filename=\"meshes/tool.stl\" scale=\"2 2 3\"/>"
                     "</geometry></collision>"));
  auto fixed = ImportUrdfXml(xml, kArmDir, ZUp());
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  const v1::MeshAssetShape& mesh = fixed->scene.bodies(0).shape().mesh_asset();
  EXPECT_EQ(mesh.file(), kArmDir + "/meshes/tool.stl");
  EXPECT_FALSE(mesh.as_hull());
  EXPECT_VEC(Vec(mesh.scale()), 2.0, 2.0, 3.0);

  UrdfOptions free_base = ZUp();
  free_base.fixed_base = false;
  auto moving = ImportUrdfXml(xml, kArmDir, free_base);
  ASSERT_TRUE(moving.ok()) << moving.status();
  EXPECT_EQ(moving->scene.bodies(0).kind(), v1::BODY_KIND_DYNAMIC);
  EXPECT_TRUE(moving->scene.bodies(0).shape().mesh_asset().as_hull());
  EXPECT_DOUBLE_EQ(moving->scene.bodies(0).material().mass(), 1.0);
}

// ---------------------------------------------------------------------------------------
// Mesh paths.

std::string MeshRobot(const std::string& uri) {
  return Robot(MassLink("l", absl::StrCat("<collision><geometry><mesh filename=\"", uri,
                                          "\"/></geometry></collision>")));
}

TEST(UrdfImport, PackageAndFileUrisResolve) {
  UrdfOptions options = ZUp();
  options.package_dirs["arm_pkg"] = kArmDir;
  auto package = ImportUrdfXml(MeshRobot("package://arm_pkg/meshes/tool.stl"), "/", options);
  ASSERT_TRUE(package.ok()) << package.status();
  EXPECT_EQ(package->scene.bodies(0).shape().mesh_asset().file(), kArmDir + "/meshes/tool.stl");

  auto file =
      ImportUrdfXml(MeshRobot("file://" + kArmDir + "/meshes/../meshes/tool.stl"), "/", options);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->scene.bodies(0).shape().mesh_asset().file(), kArmDir + "/meshes/tool.stl");
}

TEST(UrdfImport, UnknownPackageAndMissingMeshAreNotFound) {
  auto package = ImportUrdfXml(MeshRobot("package://nope/x.stl"), kArmDir, ZUp());
  EXPECT_EQ(package.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(package.status().message(), HasSubstr("link \"l\""));
  EXPECT_THAT(package.status().message(), HasSubstr("package://nope/x.stl"));
  EXPECT_THAT(package.status().message(), HasSubstr("package \"nope\""));

  auto missing = ImportUrdfXml(MeshRobot("meshes/missing.stl"), kArmDir, ZUp());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("meshes/missing.stl"));
}

// ---------------------------------------------------------------------------------------
// What is reported, and the errors.

TEST(UrdfImport, UnsupportedElementsAreReportedOneLineEach) {
  const std::string xml = Robot(
      MassLink("a") + MassLink("b") + MassLink("c") + MassLink("d") +
      "<joint name=\"elbow\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/>"
      "<mimic joint=\"wrist\" multiplier=\"2\"/>"
      "<dynamics damping=\"0.5\" friction=\"0.1\"/></joint>\n"
      "<joint name=\"wrist\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/>"
      "<limit lower=\"-1\" upper=\"1\" effort=\"0\" velocity=\"0\"/>"
      "<safety_controller soft_lower_limit=\"-0.9\" soft_upper_limit=\"0.9\" "
      "k_velocity=\"10\"/><calibration rising=\"0.1\"/></joint>\n"
      "<joint name=\"table\" type=\"planar\"><parent link=\"a\"/><child link=\"d\"/></joint>\n"
      "<transmission name=\"t1\"><type>transmission_interface/SimpleTransmission</type>"
      "</transmission>\n"
      "<gazebo reference=\"a\"><material>Gazebo/Red</material></gazebo>\n");
  auto robot = ImportUrdfXml(xml, kArmDir, ZUp());
  ASSERT_TRUE(robot.ok()) << robot.status();
  EXPECT_THAT(
      robot->unsupported,
      UnorderedElementsAre(
          "<transmission> \"t1\": not supported before drives exist", "<gazebo> for \"a\": ignored",
          "joint \"elbow\": <mimic> is not supported (the joint moves freely)",
          "joint \"elbow\": <dynamics> damping/friction ignored",
          "joint \"wrist\": <safety_controller> is not supported (ignored)",
          "joint \"wrist\": <calibration> is not supported (ignored)",
          "joint \"table\": planar joints are not supported (the link moves freely)"));
  // The mimicking joint is still a hinge; the planar one holds nothing.
  EXPECT_EQ(robot->scene.constraints_size(), 2);
  EXPECT_TRUE(FindConstraint(robot->scene, "r-elbow")->has_hinge());
}

TEST(UrdfImport, MissingFileIsNotFound) {
  auto robot = ImportUrdf(kArmDir + "/no_such.urdf", UrdfOptions{});
  EXPECT_EQ(robot.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(robot.status().message(), HasSubstr("no_such.urdf"));
}

TEST(UrdfImport, BadXmlNamesTheLine) {
  auto robot =
      ImportUrdfXml("<robot name=\"r\">\n<link name=\"a\">\n</robot>\n", kArmDir, UrdfOptions{});
  EXPECT_EQ(robot.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(robot.status().message(), HasSubstr("URDF text"));
  EXPECT_THAT(robot.status().message(), HasSubstr("line"));
}

TEST(UrdfImport, InvalidRobotCarriesUrdfdomsReason) {
  // A joint to a link that does not exist.
  const std::string xml = Robot(
      MassLink("a") +
      "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"ghost\"/></joint>\n");
  auto robot = ImportUrdfXml(xml, kArmDir, UrdfOptions{});
  EXPECT_EQ(robot.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(robot.status().message(), HasSubstr("ghost"));
}

TEST(UrdfImport, MovingJointToMasslessLinkIsAnError) {
  const std::string xml =
      Robot(MassLink("a") + "<link name=\"flap\"/>\n" +
            "<joint name=\"hinge\" type=\"continuous\"><parent link=\"a\"/><child link=\"flap\"/>"
            "</joint>\n");
  auto robot = ImportUrdfXml(xml, kArmDir, UrdfOptions{});
  EXPECT_EQ(robot.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(robot.status().message(), HasSubstr("joint \"hinge\""));
  EXPECT_THAT(robot.status().message(), HasSubstr("link \"flap\""));
}

TEST(UrdfImport, NegativeMassAndBadBasePoseAreErrors) {
  const std::string xml = Robot(
      "<link name=\"heavy\"><inertial><mass value=\"-1\"/><inertia ixx=\"1\" iyy=\"1\" "
      "izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n");
  auto negative = ImportUrdfXml(xml, kArmDir, UrdfOptions{});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), HasSubstr("link \"heavy\""));

  UrdfOptions options;
  options.base_pose.mutable_orientation()->set_w(2.0);
  auto turned = ImportUrdf(kArm, options);
  EXPECT_EQ(turned.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(turned.status().message(), HasSubstr("base_pose"));
  EXPECT_THAT(turned.status().message(), HasSubstr("arm.urdf"));
}

}  // namespace
}  // namespace ligature::client
