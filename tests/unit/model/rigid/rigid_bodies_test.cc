#include "server/model/rigid/rigid_bodies.h"

#include <gtest/gtest.h>

#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

constexpr double kPi = std::numbers::pi;

BodyDesc Sphere(const std::string& id, double x, BodyKind kind = BodyKind::kDynamic) {
  BodyDesc d;
  d.id = id;
  d.kind = kind;
  d.shape = Shape::Sphere(0.5);
  d.material.density = 1000.0;
  d.pose.position = Vec3(x, 2.0 * x, -x);
  d.linear_velocity = Vec3(x, 0.0, 1.0);
  d.angular_velocity = Vec3(0.0, x, 0.0);
  return d;
}

// Mass of a 0.5 m water sphere.
double SphereMass(double density = 1000.0) { return density * 4.0 / 3.0 * kPi * 0.125; }

// Every dense array has one entry per body, and each body's handle maps to its own data.
void ExpectConsistent(const RigidBodies& b) {
  const size_t n = static_cast<size_t>(b.size());
  EXPECT_EQ(b.kind.size(), n);
  EXPECT_EQ(b.shape.size(), n);
  EXPECT_EQ(b.material.size(), n);
  EXPECT_EQ(b.inv_mass.size(), n);
  EXPECT_EQ(b.inv_inertia_local.size(), n);
  EXPECT_EQ(b.position.size(), n);
  EXPECT_EQ(b.orientation.size(), n);
  EXPECT_EQ(b.linear_velocity.size(), n);
  EXPECT_EQ(b.angular_velocity.size(), n);
  for (uint32_t i = 0; i < n; ++i) {
    const BodyHandle h = b.HandleAt(i);
    EXPECT_TRUE(b.IsValid(h)) << i;
    EXPECT_EQ(b.Index(h), i);
  }
}

// Handles address bodies through their slots; dense indices follow insertion order.
TEST(RigidBodiesTest, AddAssignsDenseIndicesAndValidHandles) {
  RigidBodies bodies;
  const BodyHandle a = bodies.Add(Sphere("a", 1));
  const BodyHandle b = bodies.Add(Sphere("b", 2));
  const BodyHandle c = bodies.Add(Sphere("c", 3));
  EXPECT_EQ(bodies.size(), 3);
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(bodies.Index(a), 0u);
  EXPECT_EQ(bodies.Index(b), 1u);
  EXPECT_EQ(bodies.Index(c), 2u);
  EXPECT_EQ(bodies.id[bodies.Index(b)], "b");
  EXPECT_EQ(bodies.position[bodies.Index(c)], Vec3(3, 6, -3));
  ExpectConsistent(bodies);
}

// Removing from the middle moves the last body into the hole: every array moves together
// and the moved body's handle follows it.
TEST(RigidBodiesTest, RemoveSwapsLastIntoHole) {
  RigidBodies bodies;
  const BodyHandle a = bodies.Add(Sphere("a", 1));
  const BodyHandle b = bodies.Add(Sphere("b", 2));
  BodyDesc cd = Sphere("c", 3);
  cd.shape = Shape::Box(Vec3(0.1, 0.2, 0.3));
  cd.material.friction = 0.9;
  cd.pose.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3::UnitZ()));
  const BodyHandle c = bodies.Add(cd);
  const double c_inv_mass = bodies.inv_mass[2];

  bodies.Remove(b);
  ASSERT_EQ(bodies.size(), 2);
  EXPECT_FALSE(bodies.IsValid(b));
  ASSERT_TRUE(bodies.IsValid(c));
  const uint32_t ci = bodies.Index(c);
  EXPECT_EQ(ci, 1u);
  EXPECT_EQ(bodies.HandleAt(1), c);
  EXPECT_EQ(bodies.id[ci], "c");
  EXPECT_EQ(bodies.shape[ci].type, ShapeType::kBox);
  EXPECT_EQ(bodies.material[ci].friction, 0.9);
  EXPECT_EQ(bodies.inv_mass[ci], c_inv_mass);
  EXPECT_EQ(bodies.position[ci], Vec3(3, 6, -3));
  EXPECT_TRUE(bodies.orientation[ci].isApprox(cd.pose.orientation, 1e-15));
  EXPECT_EQ(bodies.linear_velocity[ci], Vec3(3, 0, 1));
  EXPECT_EQ(bodies.angular_velocity[ci], Vec3(0, 3, 0));
  // The first body did not move.
  EXPECT_EQ(bodies.Index(a), 0u);
  EXPECT_EQ(bodies.id[0], "a");
  ExpectConsistent(bodies);
}

// Removing the last body needs no swap; removing everything leaves an empty set.
TEST(RigidBodiesTest, RemoveLastAndAll) {
  RigidBodies bodies;
  const BodyHandle a = bodies.Add(Sphere("a", 1));
  const BodyHandle b = bodies.Add(Sphere("b", 2));
  bodies.Remove(b);
  EXPECT_EQ(bodies.size(), 1);
  EXPECT_EQ(bodies.id[bodies.Index(a)], "a");
  bodies.Remove(a);
  EXPECT_EQ(bodies.size(), 0);
  EXPECT_FALSE(bodies.IsValid(a));
  EXPECT_FALSE(bodies.IsValid(b));
  ExpectConsistent(bodies);
}

// A freed slot is reused with a new generation: the old handle stays stale even though
// its slot is occupied again.
TEST(RigidBodiesTest, StaleHandleDetectedAfterSlotReuse) {
  RigidBodies bodies;
  bodies.Add(Sphere("a", 1));
  const BodyHandle b = bodies.Add(Sphere("b", 2));
  bodies.Remove(b);
  const BodyHandle d = bodies.Add(Sphere("d", 4));
  EXPECT_EQ(d.slot, b.slot);
  EXPECT_NE(d.generation, b.generation);
  EXPECT_TRUE(bodies.IsValid(d));
  EXPECT_FALSE(bodies.IsValid(b));
  EXPECT_EQ(bodies.id[bodies.Index(d)], "d");
  // Reused again: both earlier handles stay stale.
  bodies.Remove(d);
  const BodyHandle e = bodies.Add(Sphere("e", 5));
  EXPECT_EQ(e.slot, b.slot);
  EXPECT_FALSE(bodies.IsValid(b));
  EXPECT_FALSE(bodies.IsValid(d));
  EXPECT_TRUE(bodies.IsValid(e));
  ExpectConsistent(bodies);
}

// Handles that never existed are invalid.
TEST(RigidBodiesTest, NullAndOutOfRangeHandlesAreInvalid) {
  RigidBodies bodies;
  bodies.Add(Sphere("a", 1));
  EXPECT_FALSE(bodies.IsValid(BodyHandle{}));
  EXPECT_TRUE(BodyHandle{}.IsNull());
  EXPECT_FALSE(bodies.IsValid(BodyHandle{7, 0}));
  EXPECT_FALSE(bodies.IsValid(BodyHandle{0, 1}));
}

// Many adds and removes in a mixed order keep the ids attached to their handles.
TEST(RigidBodiesTest, ChurnKeepsHandlesAttachedToTheirBodies) {
  RigidBodies bodies;
  std::vector<std::pair<BodyHandle, std::string>> live;
  for (int round = 0; round < 50; ++round) {
    const std::string id = absl::StrCat("b", round);
    live.emplace_back(bodies.Add(Sphere(id, round)), id);
    if (round % 3 == 2) {
      const size_t victim = (round * 7) % live.size();
      bodies.Remove(live[victim].first);
      EXPECT_FALSE(bodies.IsValid(live[victim].first));
      live.erase(live.begin() + victim);
    }
  }
  ASSERT_EQ(bodies.size(), static_cast<int>(live.size()));
  for (const auto& [handle, id] : live) {
    ASSERT_TRUE(bodies.IsValid(handle)) << id;
    EXPECT_EQ(bodies.id[bodies.Index(handle)], id);
  }
  ExpectConsistent(bodies);
}

// Dynamic bodies get 1/m and 1/I; static and kinematic bodies get zero inverse mass.
TEST(RigidBodiesTest, InverseMassByKind) {
  RigidBodies bodies;
  const uint32_t dyn = bodies.Index(bodies.Add(Sphere("dyn", 1)));
  const uint32_t kin = bodies.Index(bodies.Add(Sphere("kin", 2, BodyKind::kKinematic)));
  const uint32_t sta = bodies.Index(bodies.Add(Sphere("sta", 3, BodyKind::kStatic)));
  const double m = SphereMass();
  EXPECT_NEAR(bodies.inv_mass[dyn], 1.0 / m, 1e-15);
  EXPECT_TRUE(bodies.inv_inertia_local[dyn].isApprox(Vec3::Constant(1.0 / (0.4 * m * 0.25))));
  EXPECT_EQ(bodies.inv_mass[kin], 0.0);
  EXPECT_TRUE(bodies.inv_inertia_local[kin].isZero());
  EXPECT_EQ(bodies.inv_mass[sta], 0.0);
  EXPECT_TRUE(bodies.inv_inertia_local[sta].isZero());
  EXPECT_TRUE(bodies.IsDynamic(dyn));
  EXPECT_FALSE(bodies.IsDynamic(kin));
  EXPECT_FALSE(bodies.IsDynamic(sta));
  // A kinematic body keeps its velocity; a static one is created at rest.
  EXPECT_EQ(bodies.linear_velocity[kin], Vec3(2, 0, 1));
  EXPECT_TRUE(bodies.linear_velocity[sta].isZero());
  EXPECT_TRUE(bodies.angular_velocity[sta].isZero());
}

// A static plane has no mass even though it is given a density or a mass.
TEST(RigidBodiesTest, PlaneHasZeroInverseMass) {
  RigidBodies bodies;
  BodyDesc d;
  d.id = "ground";
  d.kind = BodyKind::kStatic;
  d.shape = Shape::Plane();
  d.material.mass = 10.0;
  const uint32_t i = bodies.Index(bodies.Add(d));
  EXPECT_EQ(bodies.inv_mass[i], 0.0);
  EXPECT_TRUE(bodies.inv_inertia_local[i].isZero());
}

// SetKind recomputes the inverse mass both ways; becoming static also stops the body.
TEST(RigidBodiesTest, SetKindRecomputesInverseMass) {
  RigidBodies bodies;
  const uint32_t i = bodies.Index(bodies.Add(Sphere("a", 1)));
  const double inv_m = bodies.inv_mass[i];
  ASSERT_GT(inv_m, 0.0);

  bodies.SetKind(i, BodyKind::kKinematic);
  EXPECT_EQ(bodies.inv_mass[i], 0.0);
  EXPECT_TRUE(bodies.inv_inertia_local[i].isZero());
  EXPECT_EQ(bodies.linear_velocity[i], Vec3(1, 0, 1));  // kinematic keeps moving

  bodies.SetKind(i, BodyKind::kStatic);
  EXPECT_EQ(bodies.inv_mass[i], 0.0);
  EXPECT_TRUE(bodies.linear_velocity[i].isZero());
  EXPECT_TRUE(bodies.angular_velocity[i].isZero());

  bodies.SetKind(i, BodyKind::kDynamic);
  EXPECT_NEAR(bodies.inv_mass[i], inv_m, 1e-15);
  EXPECT_GT(bodies.inv_inertia_local[i].minCoeff(), 0.0);
}

// SetMaterial recomputes the inverse mass from the new density or mass override.
TEST(RigidBodiesTest, SetMaterialRecomputesInverseMass) {
  RigidBodies bodies;
  const uint32_t i = bodies.Index(bodies.Add(Sphere("a", 1)));
  Material m;
  m.density = 4000.0;
  bodies.SetMaterial(i, m);
  EXPECT_NEAR(bodies.inv_mass[i], 1.0 / SphereMass(4000.0), 1e-15);
  EXPECT_EQ(bodies.material[i].density, 4000.0);

  m.mass = 2.0;  // override: I = 0.4 * 2 * 0.25 = 0.2
  bodies.SetMaterial(i, m);
  EXPECT_DOUBLE_EQ(bodies.inv_mass[i], 0.5);
  EXPECT_TRUE(bodies.inv_inertia_local[i].isApprox(Vec3::Constant(5.0), 1e-12));

  // A non-dynamic body stays massless whatever its material.
  bodies.SetKind(i, BodyKind::kKinematic);
  bodies.SetMaterial(i, m);
  EXPECT_EQ(bodies.inv_mass[i], 0.0);
}

// Orientations are stored normalized; Describe reports what was added.
TEST(RigidBodiesTest, DescribeReturnsTheBody) {
  RigidBodies bodies;
  BodyDesc d = Sphere("a", 1);
  d.pose.orientation = Quat(2.0, 0.0, 0.0, 0.0);  // scaled identity
  d.material.restitution = 0.25;
  const uint32_t i = bodies.Index(bodies.Add(d));
  EXPECT_NEAR(bodies.orientation[i].norm(), 1.0, 1e-15);
  const BodyDesc out = bodies.Describe(i);
  EXPECT_EQ(out.id, "a");
  EXPECT_EQ(out.kind, BodyKind::kDynamic);
  EXPECT_EQ(out.shape.type, ShapeType::kSphere);
  EXPECT_EQ(out.shape.radius, 0.5);
  EXPECT_EQ(out.material.restitution, 0.25);
  EXPECT_EQ(out.pose.position, d.pose.position);
  EXPECT_TRUE(out.pose.orientation.isApprox(Quat::Identity()));
  EXPECT_EQ(out.linear_velocity, d.linear_velocity);
  EXPECT_EQ(out.angular_velocity, d.angular_velocity);
}

}  // namespace
}  // namespace ligature
