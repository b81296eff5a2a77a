// Soft bodies against rigid bodies through the constraint solve: forces carry weights
// through a stack in both directions (soft on rigid, rigid on soft), momentum is exchanged
// and kept in a collision, and Coulomb friction holds a soft block on an incline below its
// angle of friction and lets it slide above, at the acceleration g (sin - mu cos).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "server/constraint/contact_rows.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

using testing::SoftMass;
using testing::SoftMomentum;
using testing::VerticalImpulse;

constexpr double kG = 9.81;

// A cube of side 2 half, its lowest face at height `bottom`, 1000 kg/m^3 (corotational
// unless told).
BodyDesc SoftCube(const std::string& id, double half, double bottom, double young, double damping,
                  SoftModelKind model = SoftModelKind::kCorotational) {
  return testing::SoftFemBox(id, Vec3::Constant(half), Vec3(0.0, bottom + half, 0.0), {2, 2, 2},
                             model, young, damping);
}

// The tests that hold for both models whose bodies meet rigid ones through the solve with
// their own compliance, a corotational body (its implicit system) and a mass-point body
// (each vertex's mass, under implicit Euler), under both solvers.
class SoftRigidContact : public ::testing::TestWithParam<std::tuple<SoftModelKind, SolverKind>> {
 protected:
  static SoftModelKind Model() { return std::get<0>(GetParam()); }
  // A scene at 100 Hz with this test's solver.
  static SceneDesc Scene() {
    SceneDesc scene;
    scene.settings.rate_hz = 100.0;
    scene.settings.solver.kind = std::get<1>(GetParam());
    return scene;
  }
};

Vec3 SoftCentroid(const World& world, const std::string& id) {
  const std::vector<Vec3>& x = world.soft_bodies().FindBody(id)->positions();
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : x) c += p;
  return c / static_cast<double>(x.size());
}

// A soft cube on a free rigid box on a static floor: the floor carries both weights, the
// box the cube's, each step (averaged over the last second of three, at 100 Hz).
TEST_P(SoftRigidContact, SoftCubeOnRigidBoxOnFloorCarriesBothWeights) {
  SceneDesc scene = Scene();
  scene.bodies.push_back(testing::MakeBody("floor", Shape::Box(Vec3(1.0, 0.05, 1.0)),
                                           Vec3(0.0, -0.05, 0.0), BodyKind::kStatic));
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.1, 0.05, 0.1)), Vec3(0, 0.05, 0));
  box.rigid()->material.mass = 2.0;
  scene.bodies.push_back(box);
  scene.bodies.push_back(SoftCube("cube", 0.05, 0.101, 2e5, 5.0, Model()));
  auto world = testing::MakeWorld(scene);
  const double m_soft = SoftMass(*world, "cube");
  const double dt = scene.settings.dt();
  double floor_sum = 0.0, box_sum = 0.0;
  constexpr int kSettle = 200, kMeasure = 100;
  for (int i = 0; i < kSettle + kMeasure; ++i) {
    world->Step();
    if (i < kSettle) continue;
    floor_sum += VerticalImpulse(*world, "floor", "box");
    box_sum += VerticalImpulse(*world, "cube", "box");
  }
  const double both = (m_soft + 2.0) * kG * dt;
  EXPECT_NEAR(floor_sum / kMeasure, both, 0.005 * both);
  EXPECT_NEAR(box_sum / kMeasure, m_soft * kG * dt, 0.005 * m_soft * kG * dt);
  // The cube rests on the box, which rests on the floor, each within the contacts' slop
  // (the tunable solver rests its rigid contacts at the slop, to a micrometre).
  const double box_top = testing::PositionOf(*world, "box").y() + 0.05;
  EXPECT_NEAR(box_top, 0.1, kPenetrationSlop);
  const std::vector<Vec3>& x = world->soft_bodies().FindBody("cube")->positions();
  double lowest = 1e9;
  for (const Vec3& p : x) lowest = std::min(lowest, p.y());
  EXPECT_NEAR(lowest, box_top, kPenetrationSlop);
  EXPECT_LT(world->last_stats().max_penetration, kPenetrationSlop + 1e-6);
}

// A rigid box on a soft slab held at its base: it settles on the slab without sinking into
// it, and the slab carries its weight (under both solvers).
class SoftContactOnSlab : public ::testing::TestWithParam<SolverKind> {};

TEST_P(SoftContactOnSlab, RigidBoxRestsOnIt) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.solver.kind = GetParam();
  BodyDesc slab;
  slab.id = "slab";
  SoftBodyDesc soft;
  soft.mesh = MakeBoxMesh(Vec3(0.2, 0.05, 0.2), 6, 2, 6);
  soft.model = SoftModelKind::kCorotational;
  soft.fem.young = 1e5;
  soft.fem.density = 1000.0;
  soft.fem.mass_damping = 10.0;
  for (size_t v = 0; v < soft.mesh.vertices.size(); ++v) {
    if (soft.mesh.vertices[v].y() < -0.05 + 1e-9) soft.fixed.push_back(static_cast<int>(v));
  }
  slab.body = soft;
  scene.bodies.push_back(slab);
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.08, 0.04, 0.08)),
                                   Vec3(0.0, 0.05 + 0.04 + 1e-3, 0.0));
  box.rigid()->material.mass = 1.0;
  scene.bodies.push_back(box);
  auto world = testing::MakeWorld(scene);
  const double dt = scene.settings.dt();
  double slab_sum = 0.0;
  constexpr int kSettle = 200, kMeasure = 100;
  for (int i = 0; i < kSettle + kMeasure; ++i) {
    world->Step();
    if (i >= kSettle) slab_sum += VerticalImpulse(*world, "slab", "box");
  }
  EXPECT_NEAR(slab_sum / kMeasure, 1.0 * kG * dt, 0.005 * kG * dt);
  // No slab vertex under the box is inside it by more than the contacts' slop.
  const double bottom = testing::PositionOf(*world, "box").y() - 0.04;
  const std::vector<Vec3>& x = world->soft_bodies().FindBody("slab")->positions();
  double deepest = 0.0;
  for (const Vec3& p : x) {
    if (std::abs(p.x()) < 0.08 && std::abs(p.z()) < 0.08) {
      deepest = std::max(deepest, p.y() - bottom);
    }
  }
  EXPECT_LT(deepest, kPenetrationSlop);
  // It rests: the box is still.
  EXPECT_LT(testing::VelocityOf(*world, "box").norm(), 1e-2);
  EXPECT_EQ(world->last_stats().recovered_bodies, 0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, SoftContactOnSlab,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

// Zero gravity, a free rigid box thrown at a soft cube at rest: the total momentum is the
// same before, during and after the collision (no mass damping: the soft body's own step
// keeps momentum, and the contacts push both ways equally).
TEST_P(SoftRigidContact, SoftRigidCollisionKeepsMomentum) {
  SceneDesc scene = Scene();
  scene.settings.gravity = Vec3::Zero();
  scene.bodies.push_back(SoftCube("cube", 0.05, -0.05, 1e5, 0.0, Model()));
  BodyDesc box =
      testing::MakeBody("box", Shape::Box(Vec3(0.04, 0.04, 0.04)), Vec3(0.2, 0.01, 0.02));
  box.rigid()->material.mass = 1.5;
  box.rigid()->linear_velocity = Vec3(-1.0, 0.0, 0.0);
  scene.bodies.push_back(box);
  auto world = testing::MakeWorld(scene);
  const Vec3 before = 1.5 * Vec3(-1.0, 0.0, 0.0);
  bool touched = false;
  for (int i = 0; i < 60; ++i) {
    world->Step();
    touched |= !world->LastContacts().empty();
    const Vec3 total = SoftMomentum(*world, "cube") + 1.5 * testing::VelocityOf(*world, "box");
    EXPECT_LT((total - before).norm(), 1e-9) << "step " << i;
  }
  EXPECT_TRUE(touched);
  // The cube took momentum from the box and moves away from it.
  EXPECT_LT(SoftMomentum(*world, "cube").x(), -0.3);
  EXPECT_LT(SoftCentroid(*world, "cube").x(), -0.01);
}

// The height of soft body `id`'s upward-facing surface over (x, z), m (-inf off it).
double TopAt(const World& world, const std::string& id, double x, double z) {
  const SoftWorld::Body& body = *world.soft_bodies().FindBody(id);
  const std::vector<Vec3>& p = body.positions();
  double top = -std::numeric_limits<double>::infinity();
  for (const auto& t : body.surface.triangles) {
    const Vec3 &a = p[t[0]], &b = p[t[1]], &c = p[t[2]];
    if ((b - a).cross(c - a).normalized().y() < 0.5) continue;
    // Barycentric coordinates of (x, z) in the triangle's projection on the ground.
    const Eigen::Vector2d e1(b.x() - a.x(), b.z() - a.z()), e2(c.x() - a.x(), c.z() - a.z());
    const Eigen::Vector2d q(x - a.x(), z - a.z());
    const double det = e1.x() * e2.y() - e1.y() * e2.x();
    const double wb = (q.x() * e2.y() - q.y() * e2.x()) / det;
    const double wc = (e1.x() * q.y() - e1.y() * q.x()) / det;
    if (wb < 0.0 || wc < 0.0 || wb + wc > 1.0) continue;
    top = std::max(top, a.y() + wb * (b.y() - a.y()) + wc * (c.y() - a.y()));
  }
  return top;
}

// Small and thin rigid parts on a coarse soft slab held at its base (top triangles with
// 10 cm legs): a 6 mm cube over the middle of a triangle and a 3 mm square rod 8 cm long
// lying across several, both far from every vertex. Vertices alone would let them fall
// through; their corners and edges rest on the faces. Over the last half second of two,
// the slab carries their weights within 0.5 %, and neither is sunk by more than 1 mm below
// the slab's top where it now is.
TEST_P(SoftRigidContact, ThinPartsRestOnTheFacesBetweenVertices) {
  SceneDesc scene = Scene();
  BodyDesc slab = testing::SoftFemBox("slab", Vec3(0.1, 0.02, 0.1), Vec3::Zero(), {2, 1, 2},
                                      Model(), 1e6, 10.0);
  SoftBodyDesc& soft = *slab.soft();
  for (size_t v = 0; v < soft.mesh.vertices.size(); ++v) {
    if (soft.mesh.vertices[v].y() < -0.02 + 1e-9) soft.fixed.push_back(static_cast<int>(v));
  }
  scene.bodies.push_back(slab);
  BodyDesc cube = testing::MakeBody("cube", Shape::Box(Vec3::Constant(0.003)),
                                    Vec3(0.035, 0.02 + 0.0035, 0.06));
  cube.rigid()->material.mass = 0.02;
  scene.bodies.push_back(cube);
  BodyDesc rod = testing::MakeBody("rod", Shape::Box(Vec3(0.04, 0.0015, 0.0015)),
                                   Vec3(-0.05, 0.02 + 0.002, -0.045));
  rod.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3::UnitY()));
  rod.rigid()->material.mass = 0.05;
  scene.bodies.push_back(rod);
  auto world = testing::MakeWorld(scene);
  const double dt = scene.settings.dt();
  double cube_sum = 0.0, rod_sum = 0.0;
  constexpr int kSettle = 150, kMeasure = 50;
  for (int i = 0; i < kSettle + kMeasure; ++i) {
    world->Step();
    if (i < kSettle) continue;
    cube_sum += VerticalImpulse(*world, "slab", "cube");
    rod_sum += VerticalImpulse(*world, "slab", "rod");
  }
  EXPECT_NEAR(cube_sum / kMeasure, 0.02 * kG * dt, 0.005 * 0.02 * kG * dt);
  EXPECT_NEAR(rod_sum / kMeasure, 0.05 * kG * dt, 0.005 * 0.05 * kG * dt);
  // Both lie on the slab's top where it now is (the mass-point slab sags under them).
  const Vec3 c = testing::PositionOf(*world, "cube");
  EXPECT_GT(c.y() - 0.003, TopAt(*world, "slab", c.x(), c.z()) - 1e-3);
  const Vec3 r = testing::PositionOf(*world, "rod");
  EXPECT_GT(r.y() - 0.0015, TopAt(*world, "slab", r.x(), r.z()) - 1e-3);
  EXPECT_LT(testing::VelocityOf(*world, "cube").norm(), 1e-2);
  EXPECT_LT(testing::VelocityOf(*world, "rod").norm(), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(
    Models, SoftRigidContact,
    ::testing::Combine(::testing::Values(SoftModelKind::kCorotational, SoftModelKind::kMassPoint),
                       ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp)),
    [](const auto& info) {
      return testing::SoftModelName(std::get<0>(info.param)) +
             testing::SolverName(std::get<1>(info.param));
    });

// A soft block on a static incline of angle theta with mu = 0.5 (both coefficients 0.5):
// returns how far its centroid moved along the slope in 0.5 s after 0.3 s of settling.
double SlideOnIncline(double theta_deg, double* expected) {
  const double theta = theta_deg * M_PI / 180.0;
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  const Quat tilt(Eigen::AngleAxisd(theta, Vec3::UnitZ()));
  BodyDesc incline = testing::MakeBody("incline", Shape::Box(Vec3(2.0, 0.05, 0.5)),
                                       tilt * Vec3(0.0, -0.05, 0.0), BodyKind::kStatic);
  incline.rigid()->pose.orientation = tilt;
  incline.rigid()->material.friction = 0.5;
  scene.bodies.push_back(incline);
  // Damped by stiffness alone: mass damping would drag on the sliding block.
  BodyDesc block = SoftCube("block", 0.05, 0.0, 2e5, 0.0);
  block.soft()->fem.stiffness_damping = 0.01;
  for (Vec3& v : block.soft()->mesh.vertices) v = tilt * (v + Vec3(0.0, 1e-4, 0.0));
  block.soft()->friction = 0.5;
  scene.bodies.push_back(block);
  auto world = testing::MakeWorld(scene);
  const Vec3 down_slope = tilt * Vec3(-1.0, 0.0, 0.0);
  for (int i = 0; i < 60; ++i) world->Step();
  const Vec3 start = SoftCentroid(*world, "block");
  const Vec3 v0 = SoftMomentum(*world, "block") / SoftMass(*world, "block");
  constexpr double kTime = 0.5;
  for (int i = 0; i < 100; ++i) world->Step();
  const double a = kG * (std::sin(theta) - 0.5 * std::cos(theta));
  *expected = v0.dot(down_slope) * kTime + 0.5 * std::max(a, 0.0) * kTime * kTime;
  return (SoftCentroid(*world, "block") - start).dot(down_slope);
}

TEST(SoftContact, FrictionHoldsBelowTheAngleOfFriction) {
  double expected = 0.0;
  const double moved = SlideOnIncline(20.0, &expected);  // tan 20 deg = 0.36 < 0.5
  EXPECT_LT(std::abs(moved), 1e-6);
}

TEST(SoftContact, FrictionSlidesAboveTheAngleOfFriction) {
  double expected = 0.0;
  const double moved = SlideOnIncline(40.0, &expected);  // tan 40 deg = 0.84 > 0.5
  EXPECT_GT(expected, 0.2);
  EXPECT_NEAR(moved, expected, 0.03 * expected);
}

}  // namespace
}  // namespace ligature
