// Cutting in a SoftWorld: a cut keeps the mass and the momentum exactly and leaves every
// tet positive; two strokes across a block separate it into two pieces with a closed
// surface each; a scalpel resting on the surface (no move between vertices) never cuts,
// however weak the tissue; a stroke across the surface cuts. Each holds for every model:
// mass-point, corotational and St Venant-Kirchhoff bodies.

#include <gtest/gtest.h>

#include <numeric>

#include "server/world/soft/soft_world.h"
#include "tests/unit/model/soft/surface_checks.h"

namespace ligature {
namespace {

constexpr double kHalf = 0.02;  // m, the block's half extent

// A 4 x 2 x 2 block, cuttable; the tissue is weak (a cut needs only the geometry).
SoftBodyDesc Block(SoftModelKind model = SoftModelKind::kCorotational) {
  SoftBodyDesc d;
  d.id = "block";
  d.mesh = MakeBoxMesh(Vec3(kHalf, 0.5 * kHalf, 0.5 * kHalf), 4, 2, 2);
  d.model = model;
  d.fem.young = 1e5;
  d.mass_point.distance_stiffness = 200.0;
  d.mass_point.volume_stiffness = 20.0;
  CuttingParams cutting;
  cutting.toughness = 1e-6;
  d.cutting = cutting;
  return d;
}

SoftTool Blade(double depth) {
  SoftTool tool;
  tool.id = "scalpel";
  tool.scalpel.cut_depth = depth;
  return tool;
}

// The top vertex of the block's mid-length line (x = 0) at z.
int TopVertexAt(const SoftWorld::Body& body, double z) {
  const std::vector<Vec3>& x = body.positions();
  for (size_t v = 0; v < x.size(); ++v) {
    if (std::abs(x[v].x()) < 1e-9 && std::abs(x[v].y() - 0.5 * kHalf) < 1e-9 &&
        std::abs(x[v].z() - z) < 1e-9) {
      return static_cast<int>(v);
    }
  }
  return -1;
}

CuttingAttempt Along(int v0, int v1) {
  CuttingAttempt a;
  a.attempt = true;
  a.v0 = v0;
  a.v1 = v1;
  a.normal = Vec3::UnitY();
  return a;
}

double Mass(const SoftWorld::Body& body) {
  return std::accumulate(body.masses().begin(), body.masses().end(), 0.0);
}

const std::vector<Vec3>& Velocities(const SoftWorld::Body& body) {
  return body.mass_point ? body.mass_point_state.v : body.fem_state.v;
}

Vec3 Momentum(const SoftWorld::Body& body) {
  Vec3 p = Vec3::Zero();
  for (size_t v = 0; v < Velocities(body).size(); ++v) p += body.masses()[v] * Velocities(body)[v];
  return p;
}

double SmallestVolume(const SoftWorld::Body& body) {
  const TetMesh now{body.positions(), body.desc.mesh.tets};
  double smallest = 1.0;
  for (int t = 0; t < static_cast<int>(now.tets.size()); ++t) {
    smallest = std::min({smallest, TetVolume(body.desc.mesh, t), TetVolume(now, t)});
  }
  return smallest;
}

class SoftWorldCutModelTest : public ::testing::TestWithParam<SoftModelKind> {};

TEST_P(SoftWorldCutModelTest, CutKeepsMassAndMomentumAndSeparatesInTwoStrokes) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block(GetParam())).ok());
  SoftWorld::Body body = world.bodies().front();
  // A moving, spinning block: every vertex has its own velocity.
  for (size_t v = 0; v < body.positions().size(); ++v) {
    body.mutable_velocities()[v] =
        Vec3(0.3, -0.1, 0.2) + Vec3(0, 0, 5.0).cross(body.positions()[v]);
  }
  const double mass = Mass(body);
  const Vec3 momentum = Momentum(body);
  const int vertices = static_cast<int>(body.positions().size());

  const int front = TopVertexAt(body, -0.5 * kHalf), middle = TopVertexAt(body, 0.0),
            back = TopVertexAt(body, 0.5 * kHalf);
  ASSERT_GE(front, 0);
  ASSERT_GE(middle, 0);
  ASSERT_GE(back, 0);
  const SoftTool blade = Blade(2.0 * kHalf);  // deeper than the block
  const std::optional<CutEvent> first =
      CutSoftBody(blade, body.positions()[middle], Along(front, middle), &body);
  ASSERT_TRUE(first.has_value());
  EXPECT_GT(first->vertices_added, 0);
  EXPECT_EQ(first->pieces, 1);  // half way across
  EXPECT_EQ(body.topology_version, 1u);
  EXPECT_EQ(static_cast<int>(body.positions().size()), vertices + first->vertices_added);
  EXPECT_NEAR(Mass(body), mass, 1e-12 * mass);
  EXPECT_LT((Momentum(body) - momentum).norm(), 1e-12 * momentum.norm());
  EXPECT_GT(SmallestVolume(body), 0.0);

  const std::optional<CutEvent> second =
      CutSoftBody(blade, body.positions()[back], Along(middle, back), &body);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->pieces, 2);
  EXPECT_EQ(CountPieces(body.desc.mesh), 2);
  EXPECT_EQ(body.topology_version, 2u);
  EXPECT_NEAR(Mass(body), mass, 1e-12 * mass);
  EXPECT_LT((Momentum(body) - momentum).norm(), 1e-12 * momentum.norm());
  EXPECT_GT(SmallestVolume(body), 0.0);
  EXPECT_TRUE(testing::BoundaryClosed(body.surface));
  // The model was rebuilt on the cut mesh.
  EXPECT_EQ(body.masses().size(), body.positions().size());
  EXPECT_EQ(Velocities(body).size(), body.positions().size());
  // The cut tets are damaged, the others keep the body's damage.
  ASSERT_EQ(body.damage.size(), body.desc.mesh.tets.size());
  EXPECT_EQ(*std::min_element(body.damage.begin(), body.damage.end()), 0.2);
  EXPECT_EQ(*std::max_element(body.damage.begin(), body.damage.end()), 1.0);
}

// A blade that separates nothing (a stroke outside the body's tets) changes nothing.
TEST_P(SoftWorldCutModelTest, CutThatSeparatesNothingChangesNothing) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block(GetParam())).ok());
  SoftWorld::Body body = world.bodies().front();
  const int front = TopVertexAt(body, -0.5 * kHalf), middle = TopVertexAt(body, 0.0);
  CuttingAttempt up = Along(front, middle);
  up.normal = -Vec3::UnitY();  // the blade goes up, out of the body
  EXPECT_FALSE(CutSoftBody(Blade(0.01), body.positions()[middle], up, &body).has_value());
  EXPECT_EQ(body.topology_version, 0u);
  EXPECT_EQ(body.positions().size(), world.bodies().front().positions().size());
}

// Zero gravity, a scalpel whose tip rests on the top surface for many steps: touching but
// never moving to another vertex is no attempt, so even the weakest tissue stays whole.
TEST_P(SoftWorldCutModelTest, RestingTipNeverCuts) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block(GetParam())).ok());
  SoftTool tool = Blade(0.05);
  tool.pose.position = Vec3(0.003, 0.5 * kHalf + 1e-4, 0.001);
  for (int i = 0; i < 50; ++i) {
    world.Step(i * 0.01, 0.01, Vec3::Zero(), nullptr, {}, std::span<const SoftTool>(&tool, 1));
    EXPECT_TRUE(world.cuts().empty());
  }
  EXPECT_EQ(world.bodies().front().topology_version, 0u);
}

// The tip pressed a little into the top surface and drawn across it loads the weak tissue
// and cuts it; the cuts are reported. A scalpel whose mask leaves out the block's layer
// passes through it and cuts nothing.
// (Corotational and mass-point blocks; an StVK block is dragged along by the pressed tip.)
TEST(SoftWorldCutTest, StrokeAcrossTheSurfaceCuts) {
  for (const SoftModelKind model : {SoftModelKind::kCorotational, SoftModelKind::kMassPoint}) {
    SCOPED_TRACE(static_cast<int>(model));
    SoftWorld world;
    ASSERT_TRUE(world.AddBody(Block(model)).ok());
    SoftTool tool = Blade(0.05);
    int cuts = 0;
    for (int i = 0; i <= 50; ++i) {
      tool.pose.position = Vec3(0.0, 0.5 * kHalf - 5e-4, -0.45 * kHalf + 0.9 * kHalf * i / 50);
      world.Step(i * 0.01, 0.01, Vec3::Zero(), nullptr, {}, std::span<const SoftTool>(&tool, 1));
      for (const CutEvent& cut : world.cuts()) {
        EXPECT_EQ(cut.body, "block");
        EXPECT_EQ(cut.tool, "scalpel");
        EXPECT_GT(cut.vertices_added, 0);
        ++cuts;
      }
    }
    EXPECT_GE(cuts, 1);
    EXPECT_EQ(world.bodies().front().topology_version, static_cast<uint32_t>(cuts));

    SoftWorld apart;
    ASSERT_TRUE(apart.AddBody(Block(model)).ok());
    tool.filter = CollisionFilter{2, ~1u};
    for (int i = 0; i <= 50; ++i) {
      tool.pose.position = Vec3(0.0, 0.5 * kHalf - 5e-4, -0.45 * kHalf + 0.9 * kHalf * i / 50);
      apart.Step(i * 0.01, 0.01, Vec3::Zero(), nullptr, {}, std::span<const SoftTool>(&tool, 1));
      EXPECT_TRUE(apart.cuts().empty());
    }
    EXPECT_EQ(apart.bodies().front().topology_version, 0u);
  }
}

// Bad cutting parameters are refused for every model, naming the field.
TEST_P(SoftWorldCutModelTest, BadCuttingParametersNameTheField) {
  SoftWorld world;
  SoftBodyDesc bad = Block(GetParam());
  bad.cutting->zeta = 2.0;
  const absl::Status s = world.AddBody(bad);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cutting"), std::string::npos) << s.message();
  EXPECT_TRUE(world.empty());
  EXPECT_TRUE(world.AddBody(Block(GetParam())).ok());
}

INSTANTIATE_TEST_SUITE_P(Models, SoftWorldCutModelTest,
                         ::testing::Values(SoftModelKind::kMassPoint,
                                           SoftModelKind::kCorotational, SoftModelKind::kStVK),
                         [](const ::testing::TestParamInfo<SoftModelKind>& info) {
                           switch (info.param) {
                             case SoftModelKind::kMassPoint: return "MassPoint";
                             case SoftModelKind::kCorotational: return "Corotational";
                             case SoftModelKind::kStVK: return "StVK";
                           }
                           return "Unknown";
                         });

// A mass-point body's held vertices (nails) stay held on both sides of a cut: their
// duplicates are nailed too, and the constraint set grew to the new vertices.
TEST(SoftWorldCutTest, MassPointCutKeepsHeldVerticesHeld) {
  SoftWorld world;
  SoftBodyDesc desc = Block(SoftModelKind::kMassPoint);
  for (size_t v = 0; v < desc.mesh.vertices.size(); ++v) {
    if (std::abs(desc.mesh.vertices[v].y() + 0.5 * kHalf) < 1e-9) {
      desc.fixed.push_back(static_cast<int>(v));
    }
  }
  ASSERT_TRUE(world.AddBody(desc).ok());
  SoftWorld::Body body = world.bodies().front();
  const int front = TopVertexAt(body, -0.5 * kHalf), middle = TopVertexAt(body, 0.0),
            back = TopVertexAt(body, 0.5 * kHalf);
  const SoftTool blade = Blade(2.0 * kHalf);
  ASSERT_TRUE(CutSoftBody(blade, body.positions()[middle], Along(front, middle), &body)
                  .has_value());
  ASSERT_TRUE(
      CutSoftBody(blade, body.positions()[back], Along(middle, back), &body).has_value());
  EXPECT_EQ(CountPieces(body.desc.mesh), 2);
  EXPECT_GT(body.desc.fixed.size(), desc.fixed.size());  // bottom vertices were split
  for (const int v : body.desc.fixed) EXPECT_TRUE(body.held(v)) << v;
  // A step under gravity keeps every held vertex exactly where it was.
  const std::vector<Vec3> before = body.positions();
  ASSERT_TRUE(StepWithConstraints(body.desc.integrator, *body.mass_point, Vec3(0, -9.81, 0),
                                  0.01, 0.0, body.constraints, &body.mass_point_state)
                  .ok());
  for (const int v : body.desc.fixed) {
    EXPECT_LT((body.positions()[v] - before[v]).norm(), 1e-12) << v;
  }
}

}  // namespace
}  // namespace ligature
