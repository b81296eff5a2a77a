// A cut corotational body's refresh: right after the cut the body steps with the
// factorization it had, mapped onto the cut mesh, and moves as with the cut mesh's own; the
// cut mesh's factorization takes over exactly RestRefresh::kSeconds of steps later, and two
// copies stepped alike stay equal to the bit whatever the other thread's speed.

#include "server/world/soft/rest_refresh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "server/world/soft/soft_world.h"

namespace ligature {
namespace {

constexpr double kH = 0.01;
const Vec3 kGravity(0.0, -9.81, 0.0);

// A 6 x 2 x 2 bar, cuttable, stepped three times (so that it has a rest factorization),
// then cut half way down at its middle.
SoftWorld::Body CutBar() {
  SoftBodyDesc d;
  d.id = "bar";
  d.mesh = MakeBoxMesh(Vec3(0.06, 0.01, 0.01), 6, 2, 2);
  d.model = SoftModelKind::kCorotational;
  d.fem.young = 1e5;
  CuttingParams cutting;
  cutting.toughness = 1e-6;
  d.cutting = cutting;
  SoftWorld world;
  EXPECT_TRUE(world.AddBody(d).ok());
  SoftWorld::Body body = world.bodies().front();
  body.system = std::make_shared<CorotationalSystem>();
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(body.fem->Step(kH, kGravity, {}, body.system.get(), &body.fem_state).ok());
  }
  // The top vertices of the middle line, at z = -0.01 and z = 0.
  int front = -1, middle = -1;
  for (size_t v = 0; v < d.mesh.vertices.size(); ++v) {
    const Vec3& p = d.mesh.vertices[v];
    if (std::abs(p.x()) > 1e-9 || std::abs(p.y() - 0.01) > 1e-9) continue;
    if (std::abs(p.z() + 0.01) < 1e-9) front = static_cast<int>(v);
    if (std::abs(p.z()) < 1e-9) middle = static_cast<int>(v);
  }
  CuttingAttempt attempt;
  attempt.attempt = true;
  attempt.v0 = front;
  attempt.v1 = middle;
  attempt.normal = Vec3::UnitY();
  SoftTool blade;
  blade.id = "scalpel";
  blade.scalpel.cut_depth = 0.04;
  EXPECT_TRUE(CutSoftBody(blade, body.positions()[middle], attempt, &body).has_value());
  return body;
}

// One tick of the body as a world steps it.
void Tick(SoftWorld::Body* body) {
  body->refresh.Tick(*body->fem, kH, body->system.get());
  ASSERT_TRUE(body->fem->Step(kH, kGravity, {}, body->system.get(), &body->fem_state).ok());
}

TEST(RestRefreshTest, TheCutMeshsFactorizationTakesOverAFixedTimeAfterTheCut) {
  SoftWorld::Body body = CutBar();
  const int vertices = static_cast<int>(body.positions().size());
  ASSERT_TRUE(body.refresh.pending());
  const std::shared_ptr<const RestFactorization> carried = body.system->rest_factorization();
  ASSERT_NE(carried, nullptr);
  EXPECT_EQ(static_cast<int>(body.system->rest_vertices().size()), vertices);

  // The first step with the carried factorization moves the body as its own would.
  SoftWorld::Body own = body;
  own.system = std::make_shared<CorotationalSystem>();
  ASSERT_TRUE(own.fem->Step(kH, kGravity, {}, own.system.get(), &own.fem_state).ok());
  SoftWorld::Body twin = body;
  twin.system = std::make_shared<CorotationalSystem>();
  twin.system->UseRest(carried, body.system->rest_vertices());
  Tick(&body);
  EXPECT_EQ(body.system->rest_factorization(), carried);
  EXPECT_LT((body.system->velocity_change() - own.system->velocity_change()).norm(),
            1e-8 * own.system->velocity_change().norm());

  // It takes over after kSeconds of steps, not before; the twin, stepped alike on its own
  // system, ends with the same bits.
  const int ticks = static_cast<int>(std::ceil(RestRefresh::kSeconds / kH));
  Tick(&twin);
  for (int i = 1; i < ticks; ++i) {
    EXPECT_EQ(body.system->rest_factorization(), carried) << i;
    Tick(&body);
    Tick(&twin);
  }
  EXPECT_NE(body.system->rest_factorization(), carried);
  EXPECT_TRUE(body.system->rest_vertices().empty());
  EXPECT_FALSE(body.refresh.pending());
  for (int i = 0; i < 5; ++i) {
    Tick(&body);
    Tick(&twin);
  }
  EXPECT_EQ(body.fem_state.x, twin.fem_state.x);
  EXPECT_EQ(body.fem_state.v, twin.fem_state.v);
}

}  // namespace
}  // namespace ligature
