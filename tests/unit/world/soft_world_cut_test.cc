// Cutting in a SoftWorld: a cut keeps the mass and the momentum exactly and leaves every
// tet positive; two strokes across a block separate it into two pieces with a closed
// surface each; a scalpel resting on the surface (no move between vertices) never cuts,
// however weak the tissue; only corotational bodies may be cut.

#include <gtest/gtest.h>

#include <numeric>

#include "server/world/soft_world.h"
#include "tests/unit/model/soft/surface_checks.h"

namespace ligature {
namespace {

constexpr double kHalf = 0.02;  // m, the block's half extent

// A 4 x 2 x 2 FEM block, cuttable; the tissue is weak (a cut needs only the geometry).
SoftBodyDesc Block() {
  SoftBodyDesc d;
  d.id = "block";
  d.mesh = MakeBoxMesh(Vec3(kHalf, 0.5 * kHalf, 0.5 * kHalf), 4, 2, 2);
  d.model = SoftModelKind::kCorotational;
  d.fem.young = 1e5;
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
  const std::vector<Vec3>& x = body.fem_state.x;
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
  return std::accumulate(body.fem->rest().mass.begin(), body.fem->rest().mass.end(), 0.0);
}

Vec3 Momentum(const SoftWorld::Body& body) {
  Vec3 p = Vec3::Zero();
  for (size_t v = 0; v < body.fem_state.v.size(); ++v) {
    p += body.fem->rest().mass[v] * body.fem_state.v[v];
  }
  return p;
}

double SmallestVolume(const SoftWorld::Body& body) {
  const TetMesh now{body.fem_state.x, body.desc.mesh.tets};
  double smallest = 1.0;
  for (int t = 0; t < static_cast<int>(now.tets.size()); ++t) {
    smallest = std::min({smallest, TetVolume(body.desc.mesh, t), TetVolume(now, t)});
  }
  return smallest;
}

TEST(SoftWorldCutTest, CutKeepsMassAndMomentumAndSeparatesInTwoStrokes) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block()).ok());
  SoftWorld::Body body = world.bodies().front();
  // A moving, spinning block: every vertex has its own velocity.
  for (size_t v = 0; v < body.fem_state.v.size(); ++v) {
    body.fem_state.v[v] = Vec3(0.3, -0.1, 0.2) + Vec3(0, 0, 5.0).cross(body.fem_state.x[v]);
  }
  const double mass = Mass(body);
  const Vec3 momentum = Momentum(body);
  const int vertices = static_cast<int>(body.fem_state.x.size());

  const int front = TopVertexAt(body, -0.5 * kHalf), middle = TopVertexAt(body, 0.0),
            back = TopVertexAt(body, 0.5 * kHalf);
  ASSERT_GE(front, 0);
  ASSERT_GE(middle, 0);
  ASSERT_GE(back, 0);
  const SoftTool blade = Blade(2.0 * kHalf);  // deeper than the block
  const std::optional<CutEvent> first =
      CutSoftBody(blade, body.fem_state.x[middle], Along(front, middle), &body);
  ASSERT_TRUE(first.has_value());
  EXPECT_GT(first->vertices_added, 0);
  EXPECT_EQ(first->pieces, 1);  // half way across
  EXPECT_EQ(body.topology_version, 1u);
  EXPECT_EQ(static_cast<int>(body.fem_state.x.size()), vertices + first->vertices_added);
  EXPECT_NEAR(Mass(body), mass, 1e-12 * mass);
  EXPECT_LT((Momentum(body) - momentum).norm(), 1e-12 * momentum.norm());
  EXPECT_GT(SmallestVolume(body), 0.0);

  const std::optional<CutEvent> second =
      CutSoftBody(blade, body.fem_state.x[back], Along(middle, back), &body);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->pieces, 2);
  EXPECT_EQ(CountPieces(body.desc.mesh), 2);
  EXPECT_EQ(body.topology_version, 2u);
  EXPECT_NEAR(Mass(body), mass, 1e-12 * mass);
  EXPECT_LT((Momentum(body) - momentum).norm(), 1e-12 * momentum.norm());
  EXPECT_GT(SmallestVolume(body), 0.0);
  EXPECT_TRUE(testing::BoundaryClosed(body.surface));
  EXPECT_EQ(body.fem->vertex_count(), static_cast<int>(body.fem_state.x.size()));
  // The cut tets are damaged, the others keep the body's damage.
  ASSERT_EQ(body.damage.size(), body.desc.mesh.tets.size());
  EXPECT_EQ(*std::min_element(body.damage.begin(), body.damage.end()), 0.2);
  EXPECT_EQ(*std::max_element(body.damage.begin(), body.damage.end()), 1.0);
}

// A blade that separates nothing (a stroke outside the body's tets) changes nothing.
TEST(SoftWorldCutTest, CutThatSeparatesNothingChangesNothing) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block()).ok());
  SoftWorld::Body body = world.bodies().front();
  const int front = TopVertexAt(body, -0.5 * kHalf), middle = TopVertexAt(body, 0.0);
  CuttingAttempt up = Along(front, middle);
  up.normal = -Vec3::UnitY();  // the blade goes up, out of the body
  EXPECT_FALSE(CutSoftBody(Blade(0.01), body.fem_state.x[middle], up, &body).has_value());
  EXPECT_EQ(body.topology_version, 0u);
  EXPECT_EQ(body.fem_state.x.size(), world.bodies().front().fem_state.x.size());
}

// Zero gravity, a scalpel whose tip rests on the top surface for many steps: touching but
// never moving to another vertex is no attempt, so even the weakest tissue stays whole.
TEST(SoftWorldCutTest, RestingTipNeverCuts) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block()).ok());
  SoftTool tool = Blade(0.05);
  tool.pose.position = Vec3(0.003, 0.5 * kHalf + 1e-4, 0.001);
  for (int i = 0; i < 50; ++i) {
    world.Step(i * 0.01, 0.01, Vec3::Zero(), nullptr, {}, std::span<const SoftTool>(&tool, 1));
    EXPECT_TRUE(world.cuts().empty());
  }
  EXPECT_EQ(world.bodies().front().topology_version, 0u);
}

// The tip pressed a little into the top surface and drawn across it loads the weak tissue
// and cuts it; the cuts are reported.
TEST(SoftWorldCutTest, StrokeAcrossTheSurfaceCuts) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Block()).ok());
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
}

TEST(SoftWorldCutTest, OnlyCorotationalBodiesCanBeCut) {
  SoftWorld world;
  SoftBodyDesc mass_point = Block();
  mass_point.model = SoftModelKind::kMassPoint;
  const absl::Status s = world.AddBody(mass_point);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cutting"), std::string::npos);
  SoftBodyDesc bad = Block();
  bad.cutting->zeta = 2.0;
  EXPECT_EQ(world.AddBody(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(world.empty());
}

}  // namespace
}  // namespace ligature
