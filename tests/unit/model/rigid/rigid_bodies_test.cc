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
  d.rigid()->shape = Shape::Sphere(0.5);
  d.rigid()->material.density = 1000.0;
  d.rigid()->pose.position = Vec3(x, 2.0 * x, -x);
  d.rigid()->linear_velocity = Vec3(x, 0.0, 1.0);
  d.rigid()->angular_velocity = Vec3(0.0, x, 0.0);
  return d;
}

// Mass of a 0.5 m water sphere.
double SphereMass(double density = 1000.0) { return density * 4.0 / 3.0 * kPi * 0.125; }

// Every dense array has one entry per body, and each body's handle maps to its own data.
void ExpectConsistent(const RigidBodies& b) {
  const size_t n = static_cast<size_t>(b.size());
  EXPECT_EQ(b.kind.size(), n);
  EXPECT_EQ(b.shapes.size(), n);
  EXPECT_EQ(b.compound.size(), n);
  EXPECT_EQ(b.center_local.size(), n);
  EXPECT_EQ(b.material.size(), n);
  EXPECT_EQ(b.inv_mass.size(), n);
  EXPECT_EQ(b.inv_inertia_local.size(), n);
  EXPECT_EQ(b.position.size(), n);
  EXPECT_EQ(b.orientation.size(), n);
  EXPECT_EQ(b.linear_velocity.size(), n);
  EXPECT_EQ(b.angular_velocity.size(), n);
  EXPECT_EQ(b.rest_time.size(), n);
  EXPECT_EQ(b.sleep_island.size(), n);
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
  cd.rigid()->shape = Shape::Box(Vec3(0.1, 0.2, 0.3));
  cd.rigid()->material.friction = 0.9;
  cd.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3::UnitZ()));
  const BodyHandle c = bodies.Add(cd);
  const double c_inv_mass = bodies.inv_mass[2];
  EXPECT_FALSE(bodies.IsAsleep(2));
  bodies.rest_time[2] = 0.75;
  bodies.sleep_island[2] = 4;

  bodies.Remove(b);
  ASSERT_EQ(bodies.size(), 2);
  EXPECT_FALSE(bodies.IsValid(b));
  ASSERT_TRUE(bodies.IsValid(c));
  const uint32_t ci = bodies.Index(c);
  EXPECT_EQ(ci, 1u);
  EXPECT_EQ(bodies.HandleAt(1), c);
  EXPECT_EQ(bodies.id[ci], "c");
  ASSERT_EQ(bodies.shapes[ci].size(), 1u);
  EXPECT_EQ(bodies.shapes[ci][0].shape.type, ShapeType::kBox);
  EXPECT_EQ(bodies.material[ci].friction, 0.9);
  EXPECT_EQ(bodies.inv_mass[ci], c_inv_mass);
  EXPECT_EQ(bodies.position[ci], Vec3(3, 6, -3));
  EXPECT_TRUE(bodies.orientation[ci].isApprox(cd.rigid()->pose.orientation, 1e-15));
  EXPECT_EQ(bodies.linear_velocity[ci], Vec3(3, 0, 1));
  EXPECT_EQ(bodies.angular_velocity[ci], Vec3(0, 3, 0));
  EXPECT_EQ(bodies.rest_time[ci], 0.75);
  EXPECT_TRUE(bodies.IsAsleep(ci));
  EXPECT_FALSE(bodies.Moves(ci));
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
  EXPECT_TRUE(bodies.inv_inertia_local[dyn].isApprox(Mat3::Identity() / (0.4 * m * 0.25)));
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
  d.rigid()->shape = Shape::Plane();
  d.rigid()->material.mass = 10.0;
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
  EXPECT_GT(bodies.inv_inertia_local[i].diagonal().minCoeff(), 0.0);
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
  EXPECT_TRUE(bodies.inv_inertia_local[i].isApprox(5.0 * Mat3::Identity(), 1e-12));

  // A non-dynamic body stays massless whatever its material.
  bodies.SetKind(i, BodyKind::kKinematic);
  bodies.SetMaterial(i, m);
  EXPECT_EQ(bodies.inv_mass[i], 0.0);
}

// Orientations are stored normalized; Describe reports what was added.
TEST(RigidBodiesTest, DescribeReturnsTheBody) {
  RigidBodies bodies;
  BodyDesc d = Sphere("a", 1);
  d.rigid()->pose.orientation = Quat(2.0, 0.0, 0.0, 0.0);  // scaled identity
  d.rigid()->material.restitution = 0.25;
  const uint32_t i = bodies.Index(bodies.Add(d));
  EXPECT_NEAR(bodies.orientation[i].norm(), 1.0, 1e-15);
  const BodyDesc out = bodies.Describe(i);
  EXPECT_EQ(out.id, "a");
  EXPECT_EQ(out.kind, BodyKind::kDynamic);
  EXPECT_EQ(out.rigid()->shape.type, ShapeType::kSphere);
  EXPECT_EQ(out.rigid()->shape.radius, 0.5);
  EXPECT_TRUE(out.rigid()->children.empty());
  EXPECT_EQ(bodies.compound[i], 0);
  EXPECT_TRUE(bodies.center_local[i].isZero());
  EXPECT_EQ(out.rigid()->material.restitution, 0.25);
  EXPECT_EQ(out.rigid()->pose.position, d.rigid()->pose.position);
  EXPECT_TRUE(out.rigid()->pose.orientation.isApprox(Quat::Identity()));
  EXPECT_EQ(out.rigid()->linear_velocity, d.rigid()->linear_velocity);
  EXPECT_EQ(out.rigid()->angular_velocity, d.rigid()->angular_velocity);
}

// ---------------------------------------------------------------------------------------
// Compound bodies: the state is the centre of mass's, the client sees the body frame.

// Two boxes of one material, 8 kg at the body origin and 16 kg at (0.6, 0.2, 0), the second
// turned about z: the centre of mass is at (0.4, 0.4 / 3, 0) in the body frame.
BodyDesc TwoBoxes(const std::string& id) {
  BodyDesc d;
  d.id = id;
  d.rigid()->material.density = 1000.0;
  d.rigid()->children.push_back({Shape::Box(Vec3(0.1, 0.1, 0.1)), Transform{}});
  d.rigid()->children.push_back(
      {Shape::Box(Vec3(0.2, 0.1, 0.1)),
       Transform{Vec3(0.6, 0.2, 0.0), Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()))}});
  d.rigid()->pose.position = Vec3(1.0, -2.0, 3.0);
  d.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.8, Vec3(1, 2, 3).normalized()));
  d.rigid()->linear_velocity = Vec3(0.5, 0.0, -0.5);
  d.rigid()->angular_velocity = Vec3(0.0, 0.3, 0.0);
  return d;
}
const Vec3 kTwoBoxesCenter(0.4, 0.4 / 3.0, 0.0);

void ExpectPoseNear(const Transform& actual, const Transform& expected, double tol) {
  EXPECT_LT((actual.position - expected.position).norm(), tol)
      << actual.position.transpose() << " vs " << expected.position.transpose();
  EXPECT_LT(actual.orientation.angularDistance(expected.orientation), tol);
}

// The held position is the centre of mass: body origin + R * center_local; BodyPose gives
// the body frame back, and the shapes are placed around the centre of mass.
TEST(RigidBodiesCompoundTest, PositionIsCentreOfMass) {
  RigidBodies bodies;
  const BodyDesc d = TwoBoxes("jack");
  const uint32_t i = bodies.Index(bodies.Add(d));
  EXPECT_EQ(bodies.compound[i], 1);
  EXPECT_LT((bodies.center_local[i] - kTwoBoxesCenter).norm(), 1e-12);
  const Vec3 expected = d.rigid()->pose.position + d.rigid()->pose.orientation * kTwoBoxesCenter;
  EXPECT_LT((bodies.position[i] - expected).norm(), 1e-12);
  EXPECT_TRUE(bodies.orientation[i].isApprox(d.rigid()->pose.orientation, 1e-15));
  ExpectPoseNear(bodies.BodyPose(i), d.rigid()->pose, 1e-12);
  ASSERT_EQ(bodies.shapes[i].size(), 2u);
  EXPECT_LT((bodies.shapes[i][0].local.position + kTwoBoxesCenter).norm(), 1e-12);
  EXPECT_LT((bodies.shapes[i][1].local.position - (Vec3(0.6, 0.2, 0.0) - kTwoBoxesCenter)).norm(),
            1e-12);
  // Points convert between the two frames by the centre offset.
  EXPECT_LT((bodies.ToCenterFrame(i, Vec3(1, 1, 1)) - (Vec3(1, 1, 1) - kTwoBoxesCenter)).norm(),
            1e-15);
  EXPECT_LT((bodies.FromCenterFrame(i, bodies.ToCenterFrame(i, Vec3(1, 1, 1))) - Vec3(1, 1, 1))
                .norm(),
            1e-15);
}

// SetBodyPose then BodyPose returns the pose given, for several poses; the centre of mass
// moves with the body frame.
TEST(RigidBodiesCompoundTest, BodyPoseRoundTrips) {
  RigidBodies bodies;
  const uint32_t i = bodies.Index(bodies.Add(TwoBoxes("jack")));
  const Transform poses[] = {
      {Vec3::Zero(), Quat::Identity()},
      {Vec3(-4.0, 0.5, 2.0), Quat(Eigen::AngleAxisd(3.0, Vec3::UnitY()))},
      {Vec3(10.0, 20.0, -30.0), Quat(Eigen::AngleAxisd(1.2, Vec3(-1, 0.5, 2).normalized()))},
  };
  for (const Transform& pose : poses) {
    bodies.SetBodyPose(i, pose);
    ExpectPoseNear(bodies.BodyPose(i), pose, 1e-12);
    EXPECT_LT((bodies.position[i] - (pose.position + pose.orientation * kTwoBoxesCenter)).norm(),
              1e-12);
  }
  // An unnormalized orientation is stored normalized.
  bodies.SetBodyPose(i, {Vec3(1, 2, 3), Quat(0.0, 0.0, 3.0, 0.0)});
  EXPECT_NEAR(bodies.orientation[i].norm(), 1.0, 1e-15);
  ExpectPoseNear(bodies.BodyPose(i), {Vec3(1, 2, 3), Quat(0, 0, 1, 0)}, 1e-12);
}

// Describe returns the children as given, in the body frame, and the body frame's pose.
TEST(RigidBodiesCompoundTest, DescribeReturnsChildrenInBodyFrame) {
  RigidBodies bodies;
  const BodyDesc d = TwoBoxes("jack");
  bodies.Add(Sphere("other", 1));  // not at index 0, so a mix-up of indices shows
  const uint32_t i = bodies.Index(bodies.Add(d));
  const BodyDesc out = bodies.Describe(i);
  EXPECT_EQ(out.id, "jack");
  ASSERT_EQ(out.rigid()->children.size(), d.rigid()->children.size());
  for (size_t k = 0; k < d.rigid()->children.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(out.rigid()->children[k].shape.type, d.rigid()->children[k].shape.type);
    EXPECT_EQ(out.rigid()->children[k].shape.half_extents,
              d.rigid()->children[k].shape.half_extents);
    ExpectPoseNear(out.rigid()->children[k].local, d.rigid()->children[k].local, 1e-12);
  }
  ExpectPoseNear(out.rigid()->pose, d.rigid()->pose, 1e-12);
  EXPECT_EQ(out.rigid()->linear_velocity, d.rigid()->linear_velocity);
  EXPECT_EQ(out.rigid()->angular_velocity, d.rigid()->angular_velocity);
  // Adding the description again gives the same body.
  RigidBodies copy;
  const uint32_t j = copy.Index(copy.Add(out));
  EXPECT_LT((copy.position[j] - bodies.position[i]).norm(), 1e-12);
  EXPECT_TRUE(copy.inv_inertia_local[j].isApprox(bodies.inv_inertia_local[i], 1e-12));
}

// The inverse mass and inertia are those of the compound about its centre of mass; a
// removal swaps the compound's arrays along with the rest.
TEST(RigidBodiesCompoundTest, MassPropertiesAndRemoval) {
  RigidBodies bodies;
  const BodyHandle first = bodies.Add(Sphere("a", 1));
  const BodyHandle jack = bodies.Add(TwoBoxes("jack"));
  uint32_t i = bodies.Index(jack);
  EXPECT_NEAR(bodies.inv_mass[i], 1.0 / 24.0, 1e-15);
  // About the centre (0.4, 0.4/3, 0): cube 8 kg at d0 = -c, box 16 kg at d1 = (0.2, 0.2/3, 0),
  // the box's own moments turned by 0.5 rad about z.
  const Vec3 c = kTwoBoxesCenter;
  const Vec3 d0 = -c, d1 = Vec3(0.6, 0.2, 0.0) - c;
  const Mat3 r = Eigen::AngleAxisd(0.5, Vec3::UnitZ()).toRotationMatrix();
  const Mat3 cube = Mat3::Identity() * 8.0 * 0.08 / 12.0;
  const Mat3 box = r * Vec3(0.08, 0.2, 0.2).asDiagonal() * r.transpose() * 16.0 / 12.0;
  const Mat3 inertia = cube + 8.0 * (d0.squaredNorm() * Mat3::Identity() - d0 * d0.transpose()) +
                       box + 16.0 * (d1.squaredNorm() * Mat3::Identity() - d1 * d1.transpose());
  EXPECT_TRUE(bodies.inv_inertia_local[i].isApprox(inertia.inverse(), 1e-12))
      << bodies.inv_inertia_local[i] << "\nvs\n" << inertia.inverse();

  bodies.Remove(first);
  ASSERT_TRUE(bodies.IsValid(jack));
  i = bodies.Index(jack);
  EXPECT_EQ(i, 0u);
  EXPECT_EQ(bodies.compound[i], 1);
  EXPECT_EQ(bodies.shapes[i].size(), 2u);
  EXPECT_LT((bodies.center_local[i] - kTwoBoxesCenter).norm(), 1e-12);
  EXPECT_TRUE(bodies.inv_inertia_local[i].isApprox(inertia.inverse(), 1e-12));
  ExpectConsistent(bodies);
}

}  // namespace
}  // namespace ligature
