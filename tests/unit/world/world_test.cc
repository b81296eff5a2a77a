#include "server/world/world.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "server/model/soft/tet_mesh.h"
#include "tests/support/grid_mesh.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

BodyDesc Body(const std::string& id, const Vec3& position, BodyKind kind = BodyKind::kDynamic) {
  BodyDesc b;
  b.id = id;
  b.kind = kind;
  b.rigid()->shape = Shape::Sphere(0.25);
  b.rigid()->pose.position = position;
  return b;
}

// A ball joint from the top of `a` to the bottom of `b`, or to the world point (0, 5, 0).
ConstraintDesc BallJoint(const std::string& id, const std::string& a, const std::string& b = "") {
  ConstraintDesc c;
  c.id = id;
  c.params.kind = JointKind::kBall;
  c.body_a = a;
  c.frame_a.position = Vec3(0.0, 0.25, 0.0);
  c.body_b = b;
  c.frame_b.position = b.empty() ? Vec3(0.0, 5.0, 0.0) : Vec3(0.0, -0.25, 0.0);
  return c;
}

WorldSettings Settings(double rate_hz = 100.0) {
  WorldSettings s;
  s.rate_hz = rate_hz;
  return s;
}

// Bodies far apart (no contacts) so only what a test sets up acts on them.
std::unique_ptr<World> EmptyWorld(const WorldLimits& limits = {}) {
  return std::make_unique<World>("worlds/w", Settings(), limits);
}

// Generated ids count up and skip ids that clients already chose; duplicates are refused.
TEST(WorldTest, AddBodyIdsAndAlreadyExists) {
  auto world = EmptyWorld();
  auto first = world->AddBody(Body("", Vec3(0, 10, 0)));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, "body-1");
  ASSERT_TRUE(world->AddBody(Body("body-2", Vec3(5, 10, 0))).ok());
  auto third = world->AddBody(Body("", Vec3(10, 10, 0)));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*third, "body-3");
  EXPECT_NE(*third, "body-2");

  auto dup = world->AddBody(Body("body-2", Vec3(0, 0, 0)));
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(dup.status().message()), HasSubstr("body-2"));
  EXPECT_EQ(world->body_count(), 3);

  auto joint = world->AddConstraint(BallJoint("", *first));
  ASSERT_TRUE(joint.ok());
  EXPECT_THAT(*joint, StartsWith("constraint-"));
  EXPECT_TRUE(world->HasConstraint(*joint));
  ASSERT_TRUE(world->AddConstraint(BallJoint("j", "body-2")).ok());
  auto joint_dup = world->AddConstraint(BallJoint("j", "body-3"));
  EXPECT_EQ(joint_dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(world->constraint_count(), 2);
}

// A generated id never collides with a constraint id either.
TEST(WorldTest, GeneratedIdsSkipConstraintIds) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  ASSERT_TRUE(world->AddConstraint(BallJoint("body-1", "a")).ok());
  auto id = world->AddBody(Body("", Vec3(3, 10, 0)));
  ASSERT_TRUE(id.ok());
  EXPECT_NE(*id, "body-1");
}

// Limits: adding past max_bodies or max_constraints is RESOURCE_EXHAUSTED.
TEST(WorldTest, LimitsAreResourceExhausted) {
  WorldLimits limits;
  limits.max_bodies = 2;
  limits.max_constraints = 1;
  auto world = EmptyWorld(limits);
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  ASSERT_TRUE(world->AddBody(Body("b", Vec3(3, 10, 0))).ok());
  auto third = world->AddBody(Body("c", Vec3(6, 10, 0)));
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(world->body_count(), 2);
  ASSERT_TRUE(world->AddConstraint(BallJoint("j1", "a")).ok());
  auto second = world->AddConstraint(BallJoint("j2", "b"));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(world->constraint_count(), 1);
  // Freeing room makes adding possible again.
  ASSERT_TRUE(world->RemoveBody("b").ok());
  EXPECT_TRUE(world->AddBody(Body("c", Vec3(6, 10, 0))).ok());
}

// Constraint references: unknown bodies are NOT_FOUND naming the field; a body cannot be
// joined to itself.
TEST(WorldTest, AddConstraintChecksBodies) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  auto missing_a = world->AddConstraint(BallJoint("j", "zz"));
  EXPECT_EQ(missing_a.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing_a.status().message()), HasSubstr("body_a: body zz not found"));
  auto missing_b = world->AddConstraint(BallJoint("j", "a", "zz"));
  EXPECT_EQ(missing_b.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing_b.status().message()), HasSubstr("body_b: body zz not found"));
  auto self = world->AddConstraint(BallJoint("j", "a", "a"));
  EXPECT_EQ(self.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->constraint_count(), 0);
}

// Removing a body removes the constraints attached to it; the next frame reports them, the
// one after does not.
TEST(WorldTest, RemoveBodyRemovesAndReportsAttachedConstraints) {
  auto world = EmptyWorld();
  for (const char* id : {"a", "b", "c"}) {
    ASSERT_TRUE(world->AddBody(Body(id, Vec3(id[0] * 3.0, 10, 0))).ok());
  }
  ASSERT_TRUE(world->AddConstraint(BallJoint("ab", "a", "b")).ok());
  ASSERT_TRUE(world->AddConstraint(BallJoint("bc", "b", "c")).ok());
  ASSERT_TRUE(world->AddConstraint(BallJoint("a-top", "a")).ok());
  ASSERT_TRUE(world->AddConstraint(BallJoint("b-top", "b")).ok());

  ASSERT_TRUE(world->RemoveBody("b").ok());
  EXPECT_FALSE(world->HasBody("b"));
  EXPECT_FALSE(world->HasConstraint("ab"));
  EXPECT_FALSE(world->HasConstraint("bc"));
  EXPECT_FALSE(world->HasConstraint("b-top"));
  EXPECT_TRUE(world->HasConstraint("a-top"));
  EXPECT_EQ(world->constraint_count(), 1);

  world->Step();
  EXPECT_THAT(world->MakeFrame().removed_constraints, UnorderedElementsAre("ab", "bc", "b-top"));
  world->Step();
  EXPECT_THAT(world->MakeFrame().removed_constraints, IsEmpty());

  EXPECT_EQ(world->RemoveBody("b").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world->RemoveConstraint("ab").code(), absl::StatusCode::kNotFound);
}

// After a removal the remaining bodies keep their own state (the dense arrays swapped).
TEST(WorldTest, RemoveBodyKeepsOthersIntact) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  ASSERT_TRUE(world->AddBody(Body("b", Vec3(3, 10, 0))).ok());
  BodyDesc c = Body("c", Vec3(6, 10, 0));
  c.rigid()->linear_velocity = Vec3(1, 2, 3);
  ASSERT_TRUE(world->AddBody(c).ok());
  ASSERT_TRUE(world->AddConstraint(BallJoint("c-top", "c")).ok());
  ASSERT_TRUE(world->RemoveBody("a").ok());
  auto got = world->GetBody("c");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->rigid()->pose.position, Vec3(6, 10, 0));
  EXPECT_EQ(got->rigid()->linear_velocity, Vec3(1, 2, 3));
  const SceneDesc scene = world->Export();
  ASSERT_EQ(scene.constraints.size(), 1u);
  EXPECT_EQ(scene.constraints[0].body_a, "c");
  EXPECT_EQ(scene.constraints[0].frame_a.position, Vec3(0.0, 0.25, 0.0));
}

// A mesh body stays fixed: it cannot be made dynamic, and the refusal changes nothing.
TEST(WorldTest, MeshBodyCannotBecomeDynamic) {
  auto world = EmptyWorld();
  BodyDesc floor = Body("floor", Vec3::Zero(), BodyKind::kStatic);
  floor.rigid()->shape = Shape::Mesh(testing::GridMesh(2, 1.0));
  ASSERT_TRUE(world->AddBody(floor).ok());
  BodyUpdate u;
  u.kind = BodyKind::kDynamic;
  const absl::Status status = world->UpdateBody("floor", u);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("body.kind:"));
  EXPECT_EQ(world->GetBody("floor")->kind, BodyKind::kStatic);
  u.kind = BodyKind::kKinematic;
  EXPECT_TRUE(world->UpdateBody("floor", u).ok());
}

// UpdateBody changes exactly the given fields.
TEST(WorldTest, UpdateBodyFields) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  BodyUpdate u;
  u.position = Vec3(1, 2, 3);
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  auto a = world->GetBody("a");
  EXPECT_EQ(a->rigid()->pose.position, Vec3(1, 2, 3));
  EXPECT_TRUE(a->rigid()->pose.orientation.isApprox(Quat::Identity()));

  u = {};
  u.orientation = Quat(0.0, 0.0, 2.0, 0.0);  // 180 degrees about Y, not normalized
  u.linear_velocity = Vec3(0.5, 0, 0);
  u.angular_velocity = Vec3(0, 0, 0.25);
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  a = world->GetBody("a");
  EXPECT_EQ(a->rigid()->pose.position, Vec3(1, 2, 3));
  EXPECT_TRUE(a->rigid()->pose.orientation.isApprox(Quat(0, 0, 1, 0)));
  EXPECT_EQ(a->rigid()->linear_velocity, Vec3(0.5, 0, 0));
  EXPECT_EQ(a->rigid()->angular_velocity, Vec3(0, 0, 0.25));

  u = {};
  Material m;
  m.mass = 3.0;
  m.friction = 0.1;
  u.material = m;
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  a = world->GetBody("a");
  EXPECT_EQ(a->rigid()->material.mass, 3.0);
  EXPECT_EQ(a->rigid()->material.friction, 0.1);
  EXPECT_DOUBLE_EQ(world->bodies().inv_mass[0], 1.0 / 3.0);

  EXPECT_EQ(world->UpdateBody("zz", u).code(), absl::StatusCode::kNotFound);
}

// Turning a body static stops it, and velocity updates of a static body are ignored.
TEST(WorldTest, UpdateBodyKindStatic) {
  auto world = EmptyWorld();
  BodyDesc d = Body("a", Vec3(0, 10, 0));
  d.rigid()->linear_velocity = Vec3(1, 0, 0);
  ASSERT_TRUE(world->AddBody(d).ok());
  BodyUpdate u;
  u.kind = BodyKind::kStatic;
  u.linear_velocity = Vec3(5, 5, 5);
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  auto a = world->GetBody("a");
  EXPECT_EQ(a->kind, BodyKind::kStatic);
  EXPECT_TRUE(a->rigid()->linear_velocity.isZero());
  world->Step();
  EXPECT_EQ(world->GetBody("a")->rigid()->pose.position, Vec3(0, 10, 0));  // gravity does not act
}

// One tick of free fall (semi-implicit Euler): v = g h, x = x0 + g h^2.
TEST(WorldTest, StepFreeFall) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  world->Step();
  const double h = 0.01;
  auto a = world->GetBody("a");
  EXPECT_NEAR(a->rigid()->linear_velocity.y(), -9.81 * h, 1e-12);
  EXPECT_NEAR(a->rigid()->pose.position.y(), 10.0 - 9.81 * h * h, 1e-12);
  EXPECT_EQ(world->tick(), 1u);
  EXPECT_NEAR(world->sim_time(), h, 1e-15);
  const Frame f = world->MakeFrame();
  EXPECT_EQ(f.tick, 1u);
  EXPECT_EQ(f.world, "worlds/w");
  ASSERT_EQ(f.bodies.size(), 1u);
  EXPECT_EQ(f.bodies[0].id, "a");
  EXPECT_EQ(f.bodies[0].pose.position, a->rigid()->pose.position);
}

// Device targets drive kinematic bodies only.
TEST(WorldTest, SetDeviceTargetOnlyForKinematicBodies) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("dyn", Vec3(0, 10, 0))).ok());
  ASSERT_TRUE(world->AddBody(Body("sta", Vec3(3, 10, 0), BodyKind::kStatic)).ok());
  Transform target;
  EXPECT_EQ(world->SetDeviceTarget("dyn", target).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(world->SetDeviceTarget("sta", target).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(world->SetDeviceTarget("zz", target).code(), absl::StatusCode::kNotFound);
}

// A kinematic body reaches its device target exactly in one tick (gravity does not act on
// it), with the velocity that carries it there; with no new target it then holds still.
TEST(WorldTest, DeviceTargetReachedInOneTickThenHeld) {
  auto world = EmptyWorld();
  BodyDesc tool = Body("tool", Vec3(0.5, 1.0, -0.5), BodyKind::kKinematic);
  tool.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()));
  ASSERT_TRUE(world->AddBody(tool).ok());
  Transform target;
  target.position = Vec3(0.8, 1.2, -0.4);
  target.orientation = Quat(Eigen::AngleAxisd(0.9, Vec3(1, 1, 0).normalized()));
  ASSERT_TRUE(world->SetDeviceTarget("tool", target).ok());

  world->Step();
  auto t = world->GetBody("tool");
  ASSERT_TRUE(t.ok());
  EXPECT_LT((t->rigid()->pose.position - target.position).norm(), 1e-12);
  EXPECT_LT(t->rigid()->pose.orientation.angularDistance(target.orientation), 1e-9);
  EXPECT_LT((t->rigid()->linear_velocity - Vec3(0.3, 0.2, 0.1) / 0.01).norm(), 1e-9);

  for (int i = 0; i < 3; ++i) world->Step();
  t = world->GetBody("tool");
  EXPECT_LT((t->rigid()->pose.position - target.position).norm(), 1e-12);
  EXPECT_LT(t->rigid()->pose.orientation.angularDistance(target.orientation), 1e-9);
  EXPECT_TRUE(t->rigid()->linear_velocity.isZero());
  EXPECT_TRUE(t->rigid()->angular_velocity.isZero());
}

// Of two targets sent before one tick, the later one wins.
TEST(WorldTest, LatestDeviceTargetWins) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("tool", Vec3(0, 1, 0), BodyKind::kKinematic)).ok());
  Transform first, second;
  first.position = Vec3(1, 1, 0);
  second.position = Vec3(0, 1, 2);
  ASSERT_TRUE(world->SetDeviceTarget("tool", first).ok());
  ASSERT_TRUE(world->SetDeviceTarget("tool", second).ok());
  world->Step();
  EXPECT_LT((world->GetBody("tool")->rigid()->pose.position - second.position).norm(), 1e-12);
}

// A body hanging from a world point stays within reach of it (the joint holds).
// A joint update keeps the joint's kind and bodies and its runtime state; it counts as an
// edit unless it only streams targets; an unknown joint is NOT_FOUND.
TEST(WorldTest, UpdateJointReplacesParametersAndCountsEdits) {
  auto w = EmptyWorld();
  ASSERT_TRUE(w->AddBody(Body("a", Vec3(0, 1, 0))).ok());
  ASSERT_TRUE(w->AddConstraint(BallJoint("j", "a")).ok());
  auto desc = w->JointDesc("j");
  ASSERT_TRUE(desc.ok()) << desc.status();
  desc->params.break_force = 50.0;
  const uint64_t edits = w->edits();
  ASSERT_TRUE(w->UpdateJoint("j", *desc).ok());
  EXPECT_EQ(w->edits(), edits + 1);
  desc->params.break_torque = 5.0;
  ASSERT_TRUE(w->UpdateJoint("j", *desc, /*edit=*/false).ok());
  EXPECT_EQ(w->edits(), edits + 1);
  const auto now = w->JointDesc("j");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->params.break_force, 50.0);
  EXPECT_EQ(now->params.break_torque, 5.0);
  desc->params.kind = JointKind::kFixed;
  EXPECT_EQ(w->UpdateJoint("j", *desc).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(w->UpdateJoint("k", *desc).code(), absl::StatusCode::kNotFound);
}

TEST(WorldTest, PointConstraintHoldsBody) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("bob", Vec3(0, 4.75, 0))).ok());
  // Anchor (0, 0.25, 0) of the body to the world point (0, 5, 0).
  ASSERT_TRUE(world->AddConstraint(BallJoint("pin", "bob")).ok());
  for (int i = 0; i < 100; ++i) world->Step();
  auto bob = world->GetBody("bob");
  const Vec3 anchor = bob->rigid()->pose.Apply(Vec3(0, 0.25, 0));
  EXPECT_LT((anchor - Vec3(0, 5, 0)).norm(), 1e-6);
  EXPECT_NEAR(bob->rigid()->pose.position.y(), 4.75, 1e-6);  // hangs straight down, at rest
}

void ExpectSameBody(const BodyDesc& a, const BodyDesc& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.kind, b.kind);
  ASSERT_TRUE(a.is_rigid());
  ASSERT_TRUE(b.is_rigid());
  const RigidBodyDesc& ra = *a.rigid();
  const RigidBodyDesc& rb = *b.rigid();
  EXPECT_EQ(ra.shape.type, rb.shape.type);
  EXPECT_EQ(ra.shape.radius, rb.shape.radius);
  EXPECT_EQ(ra.shape.half_extents, rb.shape.half_extents);
  EXPECT_EQ(ra.shape.half_length, rb.shape.half_length);
  ASSERT_EQ(ra.children.size(), rb.children.size());
  for (size_t k = 0; k < ra.children.size(); ++k) {
    EXPECT_EQ(ra.children[k].shape.type, rb.children[k].shape.type) << k;
    EXPECT_EQ(ra.children[k].shape.radius, rb.children[k].shape.radius) << k;
    EXPECT_EQ(ra.children[k].shape.half_extents, rb.children[k].shape.half_extents) << k;
    EXPECT_LT((ra.children[k].local.position - rb.children[k].local.position).norm(), 1e-12) << k;
    EXPECT_TRUE(ra.children[k].local.orientation.isApprox(rb.children[k].local.orientation, 1e-15))
        << k;
  }
  EXPECT_EQ(ra.material.density, rb.material.density);
  EXPECT_EQ(ra.material.mass, rb.material.mass);
  EXPECT_EQ(ra.material.friction, rb.material.friction);
  EXPECT_EQ(ra.material.restitution, rb.material.restitution);
  EXPECT_EQ(ra.pose.position, rb.pose.position);
  EXPECT_TRUE(ra.pose.orientation.isApprox(rb.pose.orientation, 1e-15));
  EXPECT_EQ(ra.linear_velocity, rb.linear_velocity);
  EXPECT_EQ(ra.angular_velocity, rb.angular_velocity);
}

// Export then FromScene rebuilds the same bodies, constraints and settings.
TEST(WorldTest, ExportThenFromSceneReproducesBodies) {
  WorldSettings settings = Settings(120.0);
  settings.gravity = Vec3(0.0, -3.0, 1.0);
  settings.solver.max_iterations = 7;
  World world("worlds/src", settings, WorldLimits{});
  BodyDesc ground = Body("ground", Vec3::Zero(), BodyKind::kStatic);
  ground.rigid()->shape = Shape::Plane();
  ASSERT_TRUE(world.AddBody(ground).ok());
  BodyDesc box = Body("box", Vec3(0, 0.5, 0));
  box.rigid()->shape = Shape::Box(Vec3(0.2, 0.3, 0.4));
  box.rigid()->material.density = 250.0;
  box.rigid()->material.friction = 0.8;
  box.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.2, Vec3::UnitY()));
  ASSERT_TRUE(world.AddBody(box).ok());
  BodyDesc cap = Body("", Vec3(2, 3, 0));
  cap.rigid()->shape = Shape::Capsule(0.1, 0.3);
  cap.rigid()->material.mass = 4.0;
  cap.rigid()->material.restitution = 0.5;
  cap.rigid()->angular_velocity = Vec3(0, 1, 0);
  ASSERT_TRUE(world.AddBody(cap).ok());
  ASSERT_TRUE(world.AddBody(Body("kin", Vec3(-2, 1, 0), BodyKind::kKinematic)).ok());
  ASSERT_TRUE(world.AddConstraint(BallJoint("pin", "body-1")).ok());
  for (int i = 0; i < 5; ++i) world.Step();

  const SceneDesc scene = world.Export();
  ASSERT_EQ(scene.bodies.size(), 4u);
  auto copy = World::FromScene("worlds/copy", scene, WorldLimits{});
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ((*copy)->body_count(), 4);
  for (const BodyDesc& b : scene.bodies) {
    SCOPED_TRACE(b.id);
    auto original = world.GetBody(b.id);
    auto rebuilt = (*copy)->GetBody(b.id);
    ASSERT_TRUE(original.ok());
    ASSERT_TRUE(rebuilt.ok());
    ExpectSameBody(*rebuilt, *original);
  }
  // The exported bodies are the live ones, not the ones first added.
  EXPECT_NE(world.GetBody("body-1")->rigid()->pose.position, Vec3(2, 3, 0));
  ASSERT_EQ((*copy)->Export().constraints.size(), 1u);
  EXPECT_EQ((*copy)->Export().constraints[0].id, "pin");
  EXPECT_EQ((*copy)->Export().constraints[0].body_a, "body-1");
  EXPECT_EQ((*copy)->Export().constraints[0].params.kind, JointKind::kBall);
  EXPECT_EQ((*copy)->settings().rate_hz, 120.0);
  EXPECT_EQ((*copy)->settings().gravity, Vec3(0.0, -3.0, 1.0));
  EXPECT_EQ((*copy)->settings().solver.max_iterations, 7);
}

// FromScene reports the first bad reference with its index and builds nothing.
TEST(WorldTest, FromSceneNamesBadEntry) {
  SceneDesc scene;
  scene.bodies.push_back(Body("a", Vec3(0, 1, 0)));
  scene.bodies.push_back(Body("a", Vec3(0, 2, 0)));
  auto dup = World::FromScene("worlds/x", scene, WorldLimits{});
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(dup.status().message()), HasSubstr("bodies[1]"));

  scene.bodies.pop_back();
  scene.constraints.push_back(BallJoint("ok", "a"));
  scene.constraints.push_back(BallJoint("bad", "nobody"));
  auto bad = World::FromScene("worlds/x", scene, WorldLimits{});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("constraints[1]"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("body_a: body nobody not found"));
}

// ---------------------------------------------------------------------------------------
// Compound bodies and joints: the world holds centre-of-mass frames, clients see body
// frames.

BodyDesc Ground() {
  BodyDesc g;
  g.id = "ground";
  g.kind = BodyKind::kStatic;
  g.rigid()->shape = Shape::Plane();
  return g;
}

// A 32 kg slab at the body origin and an 8 kg cube at (0.5, 0, 0), both 0.2 m tall with
// their bottoms at y = -0.1: the centre of mass is at (0.1, 0, 0) in the body frame.
BodyDesc Slab(const std::string& id, const Vec3& position) {
  BodyDesc b;
  b.id = id;
  b.rigid()->children.push_back({Shape::Box(Vec3(0.2, 0.1, 0.2)), Transform{}});
  b.rigid()->children.push_back({Shape::Box(Vec3(0.1, 0.1, 0.1)), Transform{Vec3(0.5, 0.0, 0.0)}});
  b.rigid()->pose.position = position;
  return b;
}

void ExpectTransformNear(const Transform& actual, const Transform& expected, double tol) {
  EXPECT_LT((actual.position - expected.position).norm(), tol)
      << actual.position.transpose() << " vs " << expected.position.transpose();
  EXPECT_LT(actual.orientation.angularDistance(expected.orientation), tol);
}

// A compound of two boxes falls flat onto a plane and comes to rest on its bottom face. Its
// pose is reported for the body frame (origin over the slab, not over the centre of mass),
// and Export returns the children as given; a world rebuilt from the export has the body
// where it was.
TEST(WorldCompoundTest, CompoundFallsAndRestsOnPlane) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Ground()).ok());
  const BodyDesc slab = Slab("slab", Vec3(0.0, 1.0, 0.0));
  ASSERT_TRUE(world->AddBody(slab).ok());
  for (int i = 0; i < 200; ++i) world->Step();

  auto got = world->GetBody("slab");
  ASSERT_TRUE(got.ok());
  // Resting on its bottom face: body origin 0.1 m up, not moved sideways, not tipped.
  EXPECT_NEAR(got->rigid()->pose.position.y(), 0.1, 2e-3);
  EXPECT_NEAR(got->rigid()->pose.position.x(), 0.0, 1e-3);
  EXPECT_NEAR(got->rigid()->pose.position.z(), 0.0, 1e-3);
  EXPECT_LT(got->rigid()->pose.orientation.angularDistance(Quat::Identity()), 1e-3);
  EXPECT_LT(got->rigid()->linear_velocity.norm(), 1e-2);
  EXPECT_LT(got->rigid()->angular_velocity.norm(), 1e-2);
  // The centre of mass is held internally.
  ASSERT_EQ(world->bodies().id[1], "slab");
  EXPECT_LT((world->bodies().position[1] - got->rigid()->pose.Apply(Vec3(0.1, 0, 0))).norm(),
            1e-12);
  // Frames carry the body frame too.
  const Frame frame = world->MakeFrame();
  ASSERT_EQ(frame.bodies.size(), 2u);
  EXPECT_EQ(frame.bodies[1].id, "slab");
  ExpectTransformNear(frame.bodies[1].pose, got->rigid()->pose, 1e-15);

  const SceneDesc scene = world->Export();
  ASSERT_EQ(scene.bodies.size(), 2u);
  const BodyDesc& exported = scene.bodies[1];
  EXPECT_EQ(exported.id, "slab");
  ASSERT_EQ(exported.rigid()->children.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(exported.rigid()->children[k].shape.type, ShapeType::kBox);
    EXPECT_EQ(exported.rigid()->children[k].shape.half_extents,
              slab.rigid()->children[k].shape.half_extents);
    ExpectTransformNear(exported.rigid()->children[k].local, slab.rigid()->children[k].local,
                        1e-12);
  }
  ExpectTransformNear(exported.rigid()->pose, got->rigid()->pose, 1e-12);

  auto copy = World::FromScene("worlds/copy", scene, WorldLimits{});
  ASSERT_TRUE(copy.ok()) << copy.status();
  auto rebuilt = (*copy)->GetBody("slab");
  ASSERT_TRUE(rebuilt.ok());
  ExpectSameBody(*rebuilt, *got);
}

// The body's pose as given round-trips through AddBody/GetBody and UpdateBody for a body
// whose centre of mass is away from its origin, also when rotated.
TEST(WorldCompoundTest, CompoundPoseRoundTripsThroughEdits) {
  auto world = EmptyWorld();
  BodyDesc slab = Slab("slab", Vec3(1.0, 2.0, 3.0));
  slab.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(0, 1, 1).normalized()));
  ASSERT_TRUE(world->AddBody(slab).ok());
  ExpectTransformNear(world->GetBody("slab")->rigid()->pose, slab.rigid()->pose, 1e-12);

  BodyUpdate u;
  u.position = Vec3(-1.0, 4.0, 0.5);
  ASSERT_TRUE(world->UpdateBody("slab", u).ok());
  ExpectTransformNear(world->GetBody("slab")->rigid()->pose,
                      {Vec3(-1.0, 4.0, 0.5), slab.rigid()->pose.orientation}, 1e-12);
  u = {};
  u.orientation = Quat(Eigen::AngleAxisd(-1.1, Vec3::UnitX()));
  ASSERT_TRUE(world->UpdateBody("slab", u).ok());
  // Turning keeps the body origin where it was (the centre of mass moves around it).
  ExpectTransformNear(world->GetBody("slab")->rigid()->pose, {Vec3(-1.0, 4.0, 0.5), *u.orientation},
                      1e-12);
}

// Hinge frames given in the bodies' frames come back unchanged from Export, before and
// after stepping, for bodies whose centre of mass is away from their origin.
TEST(WorldJointTest, HingeFramesSurviveExport) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Slab("a", Vec3(0.0, 10.0, 0.0))).ok());
  BodyDesc b = Slab("b", Vec3(0.0, 10.0, 1.0));
  b.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3::UnitY()));
  ASSERT_TRUE(world->AddBody(b).ok());
  ConstraintDesc hinge;
  hinge.id = "hinge";
  hinge.params.kind = JointKind::kHinge;
  hinge.params.limited = true;
  hinge.params.lower = -0.75;
  hinge.params.upper = 0.5;
  hinge.body_a = "a";
  hinge.frame_a = {Vec3(0.15, -0.05, 0.2), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitY()))};
  hinge.body_b = "b";
  hinge.frame_b = {Vec3(-0.1, 0.05, -0.3),
                   Quat(Eigen::AngleAxisd(-0.2, Vec3(1, 1, 0).normalized()))};
  ASSERT_TRUE(world->AddConstraint(hinge).ok());
  // A hinge of `a` to the world: frame_b stays a world frame.
  ConstraintDesc to_world = hinge;
  to_world.id = "to-world";
  to_world.body_b.clear();
  to_world.frame_b = {Vec3(3.0, 2.0, 1.0), Quat(Eigen::AngleAxisd(0.9, Vec3::UnitZ()))};
  ASSERT_TRUE(world->AddConstraint(to_world).ok());

  for (int steps : {0, 3}) {
    SCOPED_TRACE(steps);
    for (int i = 0; i < steps; ++i) world->Step();
    const SceneDesc scene = world->Export();
    ASSERT_EQ(scene.constraints.size(), 2u);
    for (const ConstraintDesc& given : {hinge, to_world}) {
      SCOPED_TRACE(given.id);
      const ConstraintDesc* out = nullptr;
      for (const ConstraintDesc& c : scene.constraints) {
        if (c.id == given.id) out = &c;
      }
      ASSERT_NE(out, nullptr);
      EXPECT_EQ(out->params.kind, JointKind::kHinge);
      EXPECT_TRUE(out->params.limited);
      EXPECT_EQ(out->params.lower, -0.75);
      EXPECT_EQ(out->params.upper, 0.5);
      EXPECT_EQ(out->body_a, given.body_a);
      EXPECT_EQ(out->body_b, given.body_b);
      ExpectTransformNear(out->frame_a, given.frame_a, 1e-12);
      ExpectTransformNear(out->frame_b, given.frame_b, 1e-12);
    }
  }
}

// A compound body hinged to the world about the world X axis swings about it: the hinge
// point, given in the body frame, stays on the world point, and the axis stays aligned.
TEST(WorldJointTest, HingeHoldsCompoundAtBodyFramePoint) {
  auto world = EmptyWorld();
  BodyDesc door;
  door.id = "door";
  door.rigid()->children.push_back({Shape::Box(Vec3(0.1, 0.1, 0.1)), Transform{}});
  door.rigid()->children.push_back(
      {Shape::Box(Vec3(0.1, 0.1, 0.1)), Transform{Vec3(0.0, 0.0, 0.6)}});
  door.rigid()->pose.position = Vec3(0.0, 5.0, 0.0);
  ASSERT_TRUE(world->AddBody(door).ok());  // centre of mass (0, 0, 0.3) in the body frame
  const Vec3 pin(0.05, 0.1, -0.1);         // body frame
  ConstraintDesc hinge;
  hinge.id = "hinge";
  hinge.params.kind = JointKind::kHinge;
  hinge.body_a = "door";
  hinge.frame_a.position = pin;
  hinge.frame_b.position = door.rigid()->pose.Apply(pin);  // world
  ASSERT_TRUE(world->AddConstraint(hinge).ok());

  double lowest = 0.0;
  for (int i = 0; i < 100; ++i) {
    world->Step();
    auto d = world->GetBody("door");
    ASSERT_TRUE(d.ok());
    EXPECT_LT((d->rigid()->pose.Apply(pin) - hinge.frame_b.position).norm(), 1e-4) << "tick " << i;
    EXPECT_LT((d->rigid()->pose.Rotate(Vec3::UnitX()) - Vec3::UnitX()).norm(), 1e-4)
        << "tick " << i;
    lowest = std::min(lowest, d->rigid()->pose.Apply(Vec3(0, 0, 0.6)).y() - 5.0);
  }
  // It did swing: the far box went down.
  EXPECT_LT(lowest, -0.2);
}

// Removing a body removes the joints of every kind that name it, on either side (a curve
// names its body as B), and the next frame reports them.
TEST(WorldJointTest, RemoveBodyRemovesItsJointsOfEveryKind) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Slab("a", Vec3(0, 10, 0))).ok());
  ASSERT_TRUE(world->AddBody(Slab("b", Vec3(3, 10, 0))).ok());
  ASSERT_TRUE(world->AddBody(Body("c", Vec3(6, 10, 0))).ok());
  auto joint = [](const std::string& id, JointKind kind, const std::string& a,
                  const std::string& b) {
    ConstraintDesc c;
    c.id = id;
    c.params.kind = kind;
    c.body_a = a;
    c.body_b = b;
    return c;
  };
  ConstraintDesc curve;
  curve.id = "b-curve";
  curve.params.kind = JointKind::kCurve;
  curve.params.curve = {Vec3(3, 10, 0), Vec3(3, 10, 5)};
  curve.body_b = "b";
  ASSERT_TRUE(world->AddConstraint(joint("ab-hinge", JointKind::kHinge, "a", "b")).ok());
  ASSERT_TRUE(world->AddConstraint(joint("bc-slider", JointKind::kSlider, "b", "c")).ok());
  ASSERT_TRUE(world->AddConstraint(joint("b-fixed", JointKind::kFixed, "b", "")).ok());
  ASSERT_TRUE(world->AddConstraint(curve).ok());
  ConstraintDesc ball = joint("ac-ball", JointKind::kBall, "a", "c");
  ball.frame_a.position = Vec3(3, 0, 0);
  ball.frame_b.position = Vec3(-3, 0, 0);
  ASSERT_TRUE(world->AddConstraint(ball).ok());
  ASSERT_EQ(world->constraint_count(), 5);

  ASSERT_TRUE(world->RemoveBody("b").ok());
  EXPECT_EQ(world->constraint_count(), 1);
  EXPECT_TRUE(world->HasConstraint("ac-ball"));
  for (const char* id : {"ab-hinge", "bc-slider", "b-fixed", "b-curve"}) {
    EXPECT_FALSE(world->HasConstraint(id)) << id;
  }
  world->Step();
  EXPECT_THAT(world->MakeFrame().removed_constraints,
              UnorderedElementsAre("ab-hinge", "bc-slider", "b-fixed", "b-curve"));
  world->Step();
  EXPECT_THAT(world->MakeFrame().removed_constraints, IsEmpty());
  const SceneDesc scene = world->Export();
  ASSERT_EQ(scene.constraints.size(), 1u);
  EXPECT_EQ(scene.constraints[0].id, "ac-ball");
  EXPECT_EQ(scene.constraints[0].body_b, "c");
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

// Off layer 1's mask: the ground's layer 1 is not in its mask, so the shape falls through.
constexpr CollisionFilter kGhost{2, ~1u};

// A body whose mask leaves out the ground's layer falls through it as in free fall (1 s:
// 0.5 g t^2 = 4.9 m, within the step's first-order error), while one on the default layer
// rests on it; switching the resting one's filter by an update drops it too.
TEST(WorldFilterTest, LayersAndMasksDecideWhoCollides) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Ground()).ok());
  BodyDesc ghost = Body("ghost", Vec3(0, 1, 0));
  ghost.rigid()->collision = kGhost;
  ASSERT_TRUE(world->AddBody(ghost).ok());
  ASSERT_TRUE(world->AddBody(Body("solid", Vec3(5, 1, 0))).ok());
  for (int i = 0; i < 100; ++i) world->Step();
  EXPECT_NEAR(world->GetBody("ghost")->rigid()->pose.position.y(), 1.0 - 0.5 * 9.81, 0.1);
  EXPECT_NEAR(world->GetBody("solid")->rigid()->pose.position.y(), 0.25, 2e-3);
  EXPECT_EQ(world->GetBody("ghost")->rigid()->collision, kGhost);

  BodyUpdate update;
  update.collision = kGhost;
  ASSERT_TRUE(world->UpdateBody("solid", update).ok());
  for (int i = 0; i < 50; ++i) world->Step();
  EXPECT_LT(world->GetBody("solid")->rigid()->pose.position.y(), -0.5);
}

// A compound whose lower ball passes through the ground hangs from its upper ball, which
// rests on it: the body origin (the upper ball's centre) settles one radius up.
TEST(WorldFilterTest, CompoundChildHasItsOwnFilter) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Ground()).ok());
  BodyDesc pendant;
  pendant.id = "pendant";
  pendant.rigid()->children.push_back({Shape::Sphere(0.25), Transform{}});
  pendant.rigid()->children.push_back(
      {Shape::Sphere(0.25), Transform{Vec3(0, -1, 0), Quat::Identity()}, kGhost});
  pendant.rigid()->pose.position = Vec3(0, 0.5, 0);
  ASSERT_TRUE(world->AddBody(pendant).ok());
  for (int i = 0; i < 300; ++i) world->Step();
  auto got = world->GetBody("pendant");
  EXPECT_NEAR(got->rigid()->pose.position.y(), 0.25, 2e-3);
  EXPECT_EQ(got->rigid()->children[1].filter, kGhost);
  EXPECT_FALSE(got->rigid()->children[0].filter.has_value());
}

// A 40 cm rod, two 4 cm soft cubes (corotational, which meets rigid shapes in the solve,
// and mass-point, projected out of them after it) and a 10 cm strand (its base held), each
// laid 5 cm above the ground (the strand sideways from its base), on `filter`'s layers.
void AddDeformables(World* world, const CollisionFilter& filter) {
  BodyDesc rod;
  rod.id = "rod";
  RodDesc& r = rod.body.emplace<RodDesc>();
  r.points = {Vec3(-0.2, 0.05, 0), Vec3(0.2, 0.05, 0)};
  r.control_points = 8;
  r.collision = filter;
  ASSERT_TRUE(world->AddBody(rod).ok());
  for (const SoftModelKind model : {SoftModelKind::kCorotational, SoftModelKind::kMassPoint}) {
    const bool fem = model == SoftModelKind::kCorotational;
    BodyDesc cube;
    cube.id = fem ? "cube" : "lump";
    SoftBodyDesc& c = cube.body.emplace<SoftBodyDesc>();
    c.mesh = MakeBoxMesh(Vec3(0.02, 0.02, 0.02), 1, 1, 1);
    for (Vec3& v : c.mesh.vertices) v += Vec3(fem ? 1 : 2, 0.07, 0);
    c.model = model;
    c.fem.young = 1e5;
    c.mass_point.distance_stiffness = 200.0;
    c.mass_point.volume_stiffness = 20.0;
    c.collision = filter;
    ASSERT_TRUE(world->AddBody(cube).ok());
  }
  BodyDesc strand;
  strand.id = "strand";
  StrandBodyDesc& s = strand.body.emplace<StrandBodyDesc>();
  for (int i = 0; i <= 5; ++i) s.strand.points.push_back(Vec3(0.02 * i, 0, 0));
  StrandMaterial m;
  m.mass_per_length = 0.02;
  m.radius = 0.002;
  m.bend_rigidity_x = m.bend_rigidity_z = 1e-5;
  m.twist_rigidity = 1e-5;
  s.strand.materials = {m};
  s.pose.position = Vec3(-1, 0.05, 0);
  s.pose.orientation = Quat::Identity();
  s.collision = filter;
  ASSERT_TRUE(world->AddBody(strand).ok());
}

// The height of the lowest point of deformable body `id` of AddDeformables (m).
double Lowest(const World& world, const std::string& id) {
  const std::vector<Vec3>& points =
      id == "rod"      ? world.rods().FindRod(id)->state.x
      : id == "strand" ? world.strands().FindStrand(id)->points
                       : world.soft_bodies().FindBody(id)->positions();
  double y = points.front().y();
  for (const Vec3& x : points) y = std::min(y, x.y());
  return y;
}

// Rods, soft bodies and strands have layers and masks as rigid bodies do. On a layer the
// ground's mask takes, each rests on the ground (its lowest point above it, within its
// radius), and contact events name that layer on its side; with a
// mask that leaves the ground's layer out, the rod and the cube fall through it as in free
// fall (0.5 g t^2 = 4.9 m in 1 s, to within the step's first-order error) and the strand
// swings down through it from its base. An update gives the resting ones that filter, and
// they drop too; an update of anything else of a deformable body, or a sensor, is refused.
TEST(WorldFilterTest, RodsSoftBodiesAndStrandsHaveLayersToo) {
  auto ghosts = EmptyWorld();
  ASSERT_TRUE(ghosts->AddBody(Ground()).ok());
  AddDeformables(ghosts.get(), kGhost);
  auto solids = EmptyWorld();
  ASSERT_TRUE(solids->AddBody(Ground()).ok());
  constexpr CollisionFilter kEight{8, ~0u};
  AddDeformables(solids.get(), kEight);
  solids->SetEventReporting({.enabled = true});
  // The strand swings: the lowest it went.
  double ghost_strand = 1e9, solid_low = 1e9;
  std::set<std::string> touched;
  for (int i = 0; i < 100; ++i) {
    ghosts->Step();
    solids->Step();
    for (const ContactEvent& e : solids->TakeEvents().contacts) {
      const bool a_deformable = e.body_a != "ground";
      EXPECT_EQ(a_deformable ? e.layers_a : e.layers_b, 8u);
      EXPECT_EQ(a_deformable ? e.layers_b : e.layers_a, 1u);
      touched.insert(a_deformable ? e.body_a : e.body_b);
    }
    ghost_strand = std::min(ghost_strand, Lowest(*ghosts, "strand"));
    solid_low = std::min({solid_low, Lowest(*solids, "rod"), Lowest(*solids, "cube"),
                          Lowest(*solids, "lump"), Lowest(*solids, "strand")});
  }
  EXPECT_NEAR(Lowest(*ghosts, "rod"), 0.05 - 0.5 * 9.81, 0.1);
  EXPECT_NEAR(Lowest(*ghosts, "cube"), 0.05 - 0.5 * 9.81, 0.1);
  EXPECT_NEAR(Lowest(*ghosts, "lump"), 0.05 - 0.5 * 9.81, 0.1);
  EXPECT_LT(ghost_strand, -0.03);
  EXPECT_GT(solid_low, -0.005);
  // Strands push on nothing and are not in contact events.
  EXPECT_EQ(touched, (std::set<std::string>{"rod", "cube", "lump"}));
  // The filters are the bodies' own, as exported.
  for (const BodyDesc& b : ghosts->Export().bodies) {
    if (b.rod()) {
      EXPECT_EQ(b.rod()->collision, kGhost);
    }
    if (b.soft()) {
      EXPECT_EQ(b.soft()->collision, kGhost);
    }
    if (b.strand()) {
      EXPECT_EQ(b.strand()->collision, kGhost);
    }
  }

  BodyUpdate ghost;
  ghost.collision = kGhost;
  for (const char* id : {"rod", "cube", "lump", "strand"}) {
    ASSERT_TRUE(solids->UpdateBody(id, ghost).ok()) << id;
  }
  double solid_strand = 1e9;
  for (int i = 0; i < 50; ++i) {
    solids->Step();
    solid_strand = std::min(solid_strand, Lowest(*solids, "strand"));
  }
  EXPECT_LT(Lowest(*solids, "rod"), -0.5);
  EXPECT_LT(Lowest(*solids, "cube"), -0.5);
  EXPECT_LT(Lowest(*solids, "lump"), -0.5);
  EXPECT_LT(solid_strand, -0.03);

  BodyUpdate moved = ghost;
  moved.position = Vec3(0, 1, 0);
  EXPECT_EQ(solids->UpdateBody("rod", moved).code(), absl::StatusCode::kFailedPrecondition);
  BodyUpdate sensor;
  sensor.collision = CollisionFilter{1, ~0u, true};
  const absl::Status s = solids->UpdateBody("cube", sensor);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), StartsWith("body.collision.sensor:"));
}

// Two overlapping balls joined at their middle: no contact between them by default, a
// contact pushing them apart when the joint keeps them colliding.
TEST(WorldFilterTest, JointedBodiesCollideOnlyWhenAsked) {
  for (const bool collide : {false, true}) {
    SCOPED_TRACE(collide);
    WorldSettings settings = Settings();
    settings.gravity = Vec3::Zero();
    World world("worlds/j", settings, WorldLimits{});
    ASSERT_TRUE(world.AddBody(Body("a", Vec3(0, 0, 0))).ok());
    ASSERT_TRUE(world.AddBody(Body("b", Vec3(0.4, 0, 0))).ok());
    ConstraintDesc joint = BallJoint("j", "a", "b");
    joint.frame_a.position = Vec3(0.2, 0, 0);
    joint.frame_b.position = Vec3(-0.2, 0, 0);
    joint.collide_connected = collide;
    ASSERT_TRUE(world.AddConstraint(joint).ok());
    world.Step();
    EXPECT_EQ(world.LastContacts().empty(), !collide);
    EXPECT_EQ(world.Export().constraints[0].collide_connected, collide);
  }
}

}  // namespace
}  // namespace ligature
