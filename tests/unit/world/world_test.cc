#include "server/world/world.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

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
  b.shape = Shape::Sphere(0.25);
  b.pose.position = position;
  return b;
}

ConstraintDesc Joint(const std::string& id, const std::string& a, const std::string& b = "") {
  ConstraintDesc c;
  c.id = id;
  c.point.body_a = a;
  c.point.anchor_a = Vec3(0.0, 0.25, 0.0);
  c.point.body_b = b;
  c.point.anchor_b = b.empty() ? Vec3(0.0, 5.0, 0.0) : Vec3(0.0, -0.25, 0.0);
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

  auto joint = world->AddConstraint(Joint("", *first));
  ASSERT_TRUE(joint.ok());
  EXPECT_THAT(*joint, StartsWith("constraint-"));
  EXPECT_TRUE(world->HasConstraint(*joint));
  ASSERT_TRUE(world->AddConstraint(Joint("j", "body-2")).ok());
  auto joint_dup = world->AddConstraint(Joint("j", "body-3"));
  EXPECT_EQ(joint_dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(world->constraint_count(), 2);
}

// A generated id never collides with a constraint id either.
TEST(WorldTest, GeneratedIdsSkipConstraintIds) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  ASSERT_TRUE(world->AddConstraint(Joint("body-1", "a")).ok());
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
  ASSERT_TRUE(world->AddConstraint(Joint("j1", "a")).ok());
  auto second = world->AddConstraint(Joint("j2", "b"));
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
  auto missing_a = world->AddConstraint(Joint("j", "zz"));
  EXPECT_EQ(missing_a.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing_a.status().message()), HasSubstr("point.body_a"));
  auto missing_b = world->AddConstraint(Joint("j", "a", "zz"));
  EXPECT_EQ(missing_b.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing_b.status().message()), HasSubstr("point.body_b"));
  auto self = world->AddConstraint(Joint("j", "a", "a"));
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
  ASSERT_TRUE(world->AddConstraint(Joint("ab", "a", "b")).ok());
  ASSERT_TRUE(world->AddConstraint(Joint("bc", "b", "c")).ok());
  ASSERT_TRUE(world->AddConstraint(Joint("a-top", "a")).ok());
  ASSERT_TRUE(world->AddConstraint(Joint("b-top", "b")).ok());

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
  c.linear_velocity = Vec3(1, 2, 3);
  ASSERT_TRUE(world->AddBody(c).ok());
  ASSERT_TRUE(world->AddConstraint(Joint("c-top", "c")).ok());
  ASSERT_TRUE(world->RemoveBody("a").ok());
  auto got = world->GetBody("c");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->pose.position, Vec3(6, 10, 0));
  EXPECT_EQ(got->linear_velocity, Vec3(1, 2, 3));
  const SceneDesc scene = world->Export();
  ASSERT_EQ(scene.constraints.size(), 1u);
  EXPECT_EQ(scene.constraints[0].point.body_a, "c");
}

// UpdateBody changes exactly the given fields.
TEST(WorldTest, UpdateBodyFields) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  BodyUpdate u;
  u.position = Vec3(1, 2, 3);
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  auto a = world->GetBody("a");
  EXPECT_EQ(a->pose.position, Vec3(1, 2, 3));
  EXPECT_TRUE(a->pose.orientation.isApprox(Quat::Identity()));

  u = {};
  u.orientation = Quat(0.0, 0.0, 2.0, 0.0);  // 180 degrees about Y, not normalized
  u.linear_velocity = Vec3(0.5, 0, 0);
  u.angular_velocity = Vec3(0, 0, 0.25);
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  a = world->GetBody("a");
  EXPECT_EQ(a->pose.position, Vec3(1, 2, 3));
  EXPECT_TRUE(a->pose.orientation.isApprox(Quat(0, 0, 1, 0)));
  EXPECT_EQ(a->linear_velocity, Vec3(0.5, 0, 0));
  EXPECT_EQ(a->angular_velocity, Vec3(0, 0, 0.25));

  u = {};
  Material m;
  m.mass = 3.0;
  m.friction = 0.1;
  u.material = m;
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  a = world->GetBody("a");
  EXPECT_EQ(a->material.mass, 3.0);
  EXPECT_EQ(a->material.friction, 0.1);
  EXPECT_DOUBLE_EQ(world->bodies().inv_mass[0], 1.0 / 3.0);

  EXPECT_EQ(world->UpdateBody("zz", u).code(), absl::StatusCode::kNotFound);
}

// Turning a body static stops it, and velocity updates of a static body are ignored.
TEST(WorldTest, UpdateBodyKindStatic) {
  auto world = EmptyWorld();
  BodyDesc d = Body("a", Vec3(0, 10, 0));
  d.linear_velocity = Vec3(1, 0, 0);
  ASSERT_TRUE(world->AddBody(d).ok());
  BodyUpdate u;
  u.kind = BodyKind::kStatic;
  u.linear_velocity = Vec3(5, 5, 5);
  ASSERT_TRUE(world->UpdateBody("a", u).ok());
  auto a = world->GetBody("a");
  EXPECT_EQ(a->kind, BodyKind::kStatic);
  EXPECT_TRUE(a->linear_velocity.isZero());
  world->Step();
  EXPECT_EQ(world->GetBody("a")->pose.position, Vec3(0, 10, 0));  // gravity does not act
}

// One tick of free fall (semi-implicit Euler): v = g h, x = x0 + g h^2.
TEST(WorldTest, StepFreeFall) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("a", Vec3(0, 10, 0))).ok());
  world->Step();
  const double h = 0.01;
  auto a = world->GetBody("a");
  EXPECT_NEAR(a->linear_velocity.y(), -9.81 * h, 1e-12);
  EXPECT_NEAR(a->pose.position.y(), 10.0 - 9.81 * h * h, 1e-12);
  EXPECT_EQ(world->tick(), 1u);
  EXPECT_NEAR(world->sim_time(), h, 1e-15);
  const Frame f = world->MakeFrame();
  EXPECT_EQ(f.tick, 1u);
  EXPECT_EQ(f.world, "worlds/w");
  ASSERT_EQ(f.bodies.size(), 1u);
  EXPECT_EQ(f.bodies[0].id, "a");
  EXPECT_EQ(f.bodies[0].pose.position, a->pose.position);
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
  tool.pose.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()));
  ASSERT_TRUE(world->AddBody(tool).ok());
  Transform target;
  target.position = Vec3(0.8, 1.2, -0.4);
  target.orientation = Quat(Eigen::AngleAxisd(0.9, Vec3(1, 1, 0).normalized()));
  ASSERT_TRUE(world->SetDeviceTarget("tool", target).ok());

  world->Step();
  auto t = world->GetBody("tool");
  ASSERT_TRUE(t.ok());
  EXPECT_LT((t->pose.position - target.position).norm(), 1e-12);
  EXPECT_LT(t->pose.orientation.angularDistance(target.orientation), 1e-9);
  EXPECT_LT((t->linear_velocity - Vec3(0.3, 0.2, 0.1) / 0.01).norm(), 1e-9);

  for (int i = 0; i < 3; ++i) world->Step();
  t = world->GetBody("tool");
  EXPECT_LT((t->pose.position - target.position).norm(), 1e-12);
  EXPECT_LT(t->pose.orientation.angularDistance(target.orientation), 1e-9);
  EXPECT_TRUE(t->linear_velocity.isZero());
  EXPECT_TRUE(t->angular_velocity.isZero());
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
  EXPECT_LT((world->GetBody("tool")->pose.position - second.position).norm(), 1e-12);
}

// A body hanging from a world point stays within reach of it (the joint holds).
TEST(WorldTest, PointConstraintHoldsBody) {
  auto world = EmptyWorld();
  ASSERT_TRUE(world->AddBody(Body("bob", Vec3(0, 4.75, 0))).ok());
  ASSERT_TRUE(world->AddConstraint(Joint("pin", "bob")).ok());  // anchor (0, 0.25, 0) to (0, 5, 0)
  for (int i = 0; i < 100; ++i) world->Step();
  auto bob = world->GetBody("bob");
  const Vec3 anchor = bob->pose.Apply(Vec3(0, 0.25, 0));
  EXPECT_LT((anchor - Vec3(0, 5, 0)).norm(), 1e-6);
  EXPECT_NEAR(bob->pose.position.y(), 4.75, 1e-6);  // hangs straight down, at rest
}

void ExpectSameBody(const BodyDesc& a, const BodyDesc& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.shape.type, b.shape.type);
  EXPECT_EQ(a.shape.radius, b.shape.radius);
  EXPECT_EQ(a.shape.half_extents, b.shape.half_extents);
  EXPECT_EQ(a.shape.half_length, b.shape.half_length);
  EXPECT_EQ(a.material.density, b.material.density);
  EXPECT_EQ(a.material.mass, b.material.mass);
  EXPECT_EQ(a.material.friction, b.material.friction);
  EXPECT_EQ(a.material.restitution, b.material.restitution);
  EXPECT_EQ(a.pose.position, b.pose.position);
  EXPECT_TRUE(a.pose.orientation.isApprox(b.pose.orientation, 1e-15));
  EXPECT_EQ(a.linear_velocity, b.linear_velocity);
  EXPECT_EQ(a.angular_velocity, b.angular_velocity);
}

// Export then FromScene rebuilds the same bodies, constraints and settings.
TEST(WorldTest, ExportThenFromSceneReproducesBodies) {
  WorldSettings settings = Settings(120.0);
  settings.gravity = Vec3(0.0, -3.0, 1.0);
  settings.solver.max_iterations = 7;
  World world("worlds/src", settings, WorldLimits{});
  BodyDesc ground = Body("ground", Vec3::Zero(), BodyKind::kStatic);
  ground.shape = Shape::Plane();
  ASSERT_TRUE(world.AddBody(ground).ok());
  BodyDesc box = Body("box", Vec3(0, 0.5, 0));
  box.shape = Shape::Box(Vec3(0.2, 0.3, 0.4));
  box.material.density = 250.0;
  box.material.friction = 0.8;
  box.pose.orientation = Quat(Eigen::AngleAxisd(0.2, Vec3::UnitY()));
  ASSERT_TRUE(world.AddBody(box).ok());
  BodyDesc cap = Body("", Vec3(2, 3, 0));
  cap.shape = Shape::Capsule(0.1, 0.3);
  cap.material.mass = 4.0;
  cap.material.restitution = 0.5;
  cap.angular_velocity = Vec3(0, 1, 0);
  ASSERT_TRUE(world.AddBody(cap).ok());
  ASSERT_TRUE(world.AddBody(Body("kin", Vec3(-2, 1, 0), BodyKind::kKinematic)).ok());
  ASSERT_TRUE(world.AddConstraint(Joint("pin", "body-1")).ok());
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
  EXPECT_NE(world.GetBody("body-1")->pose.position, Vec3(2, 3, 0));
  ASSERT_EQ((*copy)->Export().constraints.size(), 1u);
  EXPECT_EQ((*copy)->Export().constraints[0].id, "pin");
  EXPECT_EQ((*copy)->Export().constraints[0].point.body_a, "body-1");
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
  scene.constraints.push_back(Joint("ok", "a"));
  scene.constraints.push_back(Joint("bad", "nobody"));
  auto bad = World::FromScene("worlds/x", scene, WorldLimits{});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("constraints[1]"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("point.body_a"));
}

}  // namespace
}  // namespace ligature
