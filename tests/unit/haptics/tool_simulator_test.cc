#include "server/haptics/tool_simulator.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>

namespace ligature::haptics {
namespace {

constexpr double kRadius = 0.02;
constexpr double kMass = 0.1;
constexpr double kH = 1e-3;

CouplingParams Coupling() {
  CouplingParams c;
  c.stiffness = 400;
  c.damping = 2 * std::sqrt(400 * kMass);
  return c;
}

// A sphere tool at rest at `y` without gravity, optionally above a fixed floor at y = 0.
std::shared_ptr<ToolLocalModel> Model(double y, bool floor) {
  auto m = std::make_shared<ToolLocalModel>();
  m->dt = 0.01;
  m->mass = kMass;
  m->inertia_local = 0.4 * kMass * kRadius * kRadius * Mat3::Identity();
  m->shapes = {{Shape::Sphere(kRadius), {}}};
  m->tool.position = Vec3(0, y, 0);
  if (floor) {
    ContactPlane p;
    p.point = Vec3(0, y - kRadius, 0);
    p.normal = Vec3::UnitY();
    p.gap = y - kRadius;
    m->planes.push_back(p);
  }
  return m;
}

double TotalEnergy(const ToolSimulator& sim, const DeviceTarget& t) {
  return sim.CouplingEnergy(t) + 0.5 * kMass * sim.state().linear_velocity.squaredNorm();
}

TEST(ToolSimulatorTest, FreeToolFollowsAStillDeviceLosingEnergyEveryStep) {
  ToolSimulator sim(Coupling());
  sim.Reset(Model(0.0, false));
  DeviceTarget t;
  t.position = Vec3(0.05, 0.02, 0);
  double energy = TotalEnergy(sim, t);
  for (int i = 0; i < 2000; ++i) {
    sim.Step(t, kH);
    const double e = TotalEnergy(sim, t);
    ASSERT_LE(e, energy + 1e-15) << "step " << i;  // passive: never gains energy
    energy = e;
  }
  EXPECT_LT((sim.state().position - t.position).norm(), 1e-6);
}

TEST(ToolSimulatorTest, FloorStopsTheToolAndTheForceIsTheSpringsStretch) {
  ToolSimulator sim(Coupling());
  sim.Reset(Model(0.05, true));
  DeviceTarget t;
  t.position = Vec3(0, -0.01, 0);  // 3 cm below where the floor stops the tool
  ToolStepResult r;
  double min_y = 1.0;
  for (int i = 0; i < 3000; ++i) {
    r = sim.Step(t, kH);
    min_y = std::min(min_y, sim.state().position.y());
  }
  EXPECT_GE(min_y, kRadius - 1e-9);  // never through the floor
  EXPECT_NEAR(sim.state().position.y(), kRadius, 1e-9);
  EXPECT_NEAR(r.force.y(), -400 * (kRadius + 0.01), 1e-6);  // on the tool, downwards
  EXPECT_EQ(r.contacts, 1);
  // Held still: no oscillation, the force stays put.
  const double f0 = r.force.y();
  for (int i = 0; i < 500; ++i) EXPECT_NEAR(sim.Step(t, kH).force.y(), f0, 1e-9);
}

TEST(ToolSimulatorTest, OverlapWithAFixedObstacleLeavesWithoutVelocity) {
  ToolSimulator sim(Coupling());
  sim.Reset(Model(kRadius - 0.005, true));  // 5 mm into the floor
  DeviceTarget t;
  t.position = Vec3(0, kRadius - 0.005, 0);
  sim.Step(t, kH);
  // One step removes a fifth of the overlap, and the tool does not fly off.
  EXPECT_NEAR(sim.state().position.y(), kRadius - 0.004, 1e-9);
  EXPECT_NEAR(sim.state().linear_velocity.norm(), 0.0, 1e-9);
}

TEST(ToolSimulatorTest, BufferVertexYieldsLikeASpringInSeries) {
  // One soft vertex under the tool with compliance c: at rest the tool sinks d with
  // k (0.03 - d) = d / c (coupling spring and vertex spring in series).
  auto m = Model(kRadius, false);
  BufferModel b;
  b.positions = {Vec3::Zero()};
  b.vertex_indices = {0};
  const double c = 1.0 / 400.0;
  b.compliance = c * Eigen::MatrixXd::Identity(3, 3);
  m->buffers.push_back(b);
  ToolSimulator sim(Coupling());
  sim.Reset(m);
  DeviceTarget t;
  t.position = Vec3(0, -0.01, 0);
  ToolStepResult r;
  for (int i = 0; i < 4000; ++i) r = sim.Step(t, kH);
  const double d = 400 * 0.03 / (400 + 1 / c);
  EXPECT_NEAR(sim.state().position.y(), kRadius - d, 1e-7);
  EXPECT_NEAR(-r.force.y(), d / c, 1e-4);
}

// One stiff soft vertex under the tool, left by the world pressed by g (down and sideways)
// and held there by friction; the device holds the tool where the world had it, its springs
// pulling with g and turning against the torque of g's sideways part about the tool's
// centre. With mu above |g_t| / g_n the tool finds g again at once and stays; with less,
// or none, the vertex lets go sideways and the tool slides.
struct SidewaysLoad {
  Vec3 g = Vec3(0.5, -2.0, 0.0);  // N, the tool's force on the vertex
  double c = 1e-4;                 // m/N
  static constexpr double kTurn = 1.0;  // N m/rad
  CouplingParams Coupling() const {
    CouplingParams p = haptics::Coupling();
    p.rotational_stiffness = kTurn;
    p.rotational_damping = 2 * std::sqrt(kTurn * 0.4 * kMass * kRadius * kRadius);
    return p;
  }
  std::shared_ptr<ToolLocalModel> Model(double mu) const {
    auto m = haptics::Model(kRadius, false);
    BufferModel b;
    b.vertex_indices = {0};
    b.anchors = {Vec3::Zero()};          // at the bottom of the tool
    b.positions = {Vec3::Zero() - c * g};  // unpressed
    b.compliance = c * Eigen::MatrixXd::Identity(3, 3);
    b.friction = mu;
    m->buffers.push_back(b);
    return m;
  }
  DeviceTarget Target() const {
    DeviceTarget t;
    t.position = Vec3(0, kRadius, 0) + g / 400.0;
    // The vertex's -g at the bottom turns the tool by R g_x about -z; the device holds it.
    t.orientation = Quat(Eigen::AngleAxisd(kRadius * g.x() / kTurn, Vec3::UnitZ()));
    return t;
  }
};

TEST(ToolSimulatorTest, BufferFrictionHoldsTheSidewaysLoadTheWorldLeft) {
  const SidewaysLoad load;
  ToolSimulator sim(load.Coupling());
  sim.Reset(load.Model(0.5));
  ToolStepResult r = sim.Step(load.Target(), kH);
  // The vertex pushes the tool back with -g, to the sphere's curvature over the offset.
  EXPECT_LT((r.contact_normal_force + r.contact_friction_force + load.g).norm(), 1e-3);
  EXPECT_GT(r.contact_friction_force.norm(), 0.4);
  // It stays: the rows' normal is the sphere's at the unpressed vertex, turned from the
  // anchor's by c |g_t| / R, which bounds how far the tool may settle (0.05 mm, 2.5 mrad;
  // without friction it slides by millimetres).
  for (int i = 0; i < 200; ++i) r = sim.Step(load.Target(), kH);
  const double offset = load.c * std::abs(load.g.x());
  EXPECT_LT((sim.state().position - Vec3(0, kRadius, 0)).norm(), offset);
  EXPECT_LT(sim.state().orientation.angularDistance(Quat::Identity()), offset / kRadius);
  EXPECT_LT((r.force - load.g).norm(), 1e-3);
}

TEST(ToolSimulatorTest, BufferFrictionGivesBeyondTheCone) {
  const SidewaysLoad load;
  for (const double mu : {0.0, 0.1}) {
    ToolSimulator sim(load.Coupling());
    sim.Reset(load.Model(mu));
    const ToolStepResult r = sim.Step(load.Target(), kH);
    // At most mu times the normal force sideways, and the tool slides along the load.
    EXPECT_LE(r.contact_friction_force.norm(), mu * r.contact_normal_force.norm() + 1e-9);
    for (int i = 0; i < 50; ++i) sim.Step(load.Target(), kH);
    EXPECT_GT(sim.state().position.x(), 1e-4) << "mu " << mu;
  }
}

// A buffer of one surface triangle (10 cm sides, in y = `y`, outward +y, or -y when
// `flipped`) whose vertices yield c each, lumped.
BufferModel Triangle(double y, bool flipped, double c) {
  BufferModel b;
  b.vertex_indices = {0, 1, 2};
  b.positions = {Vec3(0, y, 0), Vec3(0, y, 0.1), Vec3(0.1, y, 0)};
  b.compliance = c * Eigen::MatrixXd::Identity(9, 9);
  b.faces = {flipped ? std::array<int, 3>{0, 2, 1} : std::array<int, 3>{0, 1, 2}};
  return b;
}

// A thin sphere tool (2 mm) over the middle of a coarse triangle, its vertices 4.7 cm away
// (out of a vertex's reach), the device 1 cm below the surface. The triangle's centroid
// yields c / 3 (a third of each vertex's force, moving a third of each vertex's motion),
// so at rest the tool sinks d with k (0.01 - d) = 3 d / c, springs in series.
struct ThinTool {
  static constexpr double kThin = 0.002;
  static constexpr double kC = 1.0 / 400.0;
  std::shared_ptr<ToolLocalModel> Model() const {
    auto m = std::make_shared<ToolLocalModel>();
    m->dt = 0.01;
    m->mass = kMass;
    m->inertia_local = 0.4 * kMass * kThin * kThin * Mat3::Identity();
    m->shapes = {{Shape::Sphere(kThin), {}}};
    m->tool.position = Vec3(0.1 / 3, kThin, 0.1 / 3);
    return m;
  }
  DeviceTarget Target() const {
    DeviceTarget t;
    t.position = Vec3(0.1 / 3, kThin - 0.01, 0.1 / 3);
    return t;
  }
  double Sink() const { return 400 * 0.01 / (400 + 3 / kC); }
};

TEST(ToolSimulatorTest, AThinToolBetweenVerticesMeetsTheTriangleYieldingAsItsPoint) {
  const ThinTool thin;
  auto m = thin.Model();
  m->buffers.push_back(Triangle(0.0, false, ThinTool::kC));
  ToolSimulator sim(Coupling());
  sim.Reset(m);
  ToolStepResult r;
  for (int i = 0; i < 4000; ++i) r = sim.Step(thin.Target(), kH);
  EXPECT_EQ(r.contacts, 1);
  EXPECT_NEAR(sim.state().position.y(), ThinTool::kThin - thin.Sink(), 1e-7);
  EXPECT_NEAR(-r.force.y(), 3 * thin.Sink() / ThinTool::kC, 1e-4);
  // Without the triangle the tool passes between the vertices to the device.
  m->buffers[0].faces.clear();
  sim.Reset(m);
  for (int i = 0; i < 4000; ++i) r = sim.Step(thin.Target(), kH);
  EXPECT_EQ(r.contacts, 0);
  EXPECT_NEAR(sim.state().position.y(), thin.Target().position.y(), 1e-6);
}

// A thin body: the same triangle 1 cm above its far side (outward -y). The tool sunk into
// the near side lies under the far side too, 7.5 mm deep: the near side holds it, so the
// far side must not push it on through.
TEST(ToolSimulatorTest, AThinBodysFarSideNeverPushesTheToolThroughItsNearSide) {
  const ThinTool thin;
  auto m = thin.Model();
  m->tool.position.y() += 0.01;
  m->buffers.push_back(Triangle(0.01, false, ThinTool::kC));
  m->buffers.push_back(Triangle(0.0, true, ThinTool::kC));
  ToolSimulator sim(Coupling());
  sim.Reset(m);
  DeviceTarget t = thin.Target();
  t.position.y() += 0.01;
  ToolStepResult r;
  for (int i = 0; i < 4000; ++i) r = sim.Step(t, kH);
  EXPECT_EQ(r.contacts, 1);
  EXPECT_NEAR(sim.state().position.y(), 0.01 + ThinTool::kThin - thin.Sink(), 1e-7);
  EXPECT_NEAR(-r.force.y(), 3 * thin.Sink() / ThinTool::kC, 1e-4);
}

// The world left the triangle pressed 5 mm down by the tool (its anchors), the tool in the
// dent: the triangle holds it there, pushing with the force of the dent.
TEST(ToolSimulatorTest, AToolInATrianglesDentFindsTheForceThatMadeIt) {
  const ThinTool thin;
  auto m = thin.Model();
  BufferModel b = Triangle(0.0, false, ThinTool::kC);
  b.anchors = b.positions;
  for (Vec3& a : b.anchors) a.y() -= 0.005;
  m->buffers.push_back(b);
  m->tool.position.y() -= 0.005;
  // Each vertex took a third of F = 3 * 0.005 / c: the device holds the tool with F.
  const double force = 3 * 0.005 / ThinTool::kC;
  DeviceTarget t;
  t.position = m->tool.position - Vec3(0, force / 400, 0);
  ToolSimulator sim(Coupling());
  sim.Reset(m);
  const ToolStepResult r = sim.Step(t, kH);
  EXPECT_NEAR(-r.force.y(), force, 1e-3 * force);
  EXPECT_NEAR(sim.state().position.y(), m->tool.position.y(), 1e-6);
}

TEST(ToolSimulatorTest, RotationalCouplingTurnsTheTool) {
  CouplingParams c = Coupling();
  c.rotational_stiffness = 0.05;
  c.rotational_damping = 2 * std::sqrt(0.05 * 0.4 * kMass * kRadius * kRadius);
  ToolSimulator sim(c);
  sim.Reset(Model(0.0, false));
  DeviceTarget t;
  t.orientation = Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
  for (int i = 0; i < 3000; ++i) sim.Step(t, kH);
  EXPECT_LT(RotationBetween(sim.state().orientation, t.orientation).norm(), 1e-6);
}

}  // namespace
}  // namespace ligature::haptics
