#include "server/world/query/scene_query.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "server/model/soft/tet_mesh.h"
#include "server/world/query/query_shapes.h"
#include "server/world/world.h"

namespace ligature {
namespace {

constexpr double kTol = 1e-9;

BodyDesc Rigid(const std::string& id, BodyKind kind, const Vec3& at) {
  BodyDesc b;
  b.id = id;
  b.kind = kind;
  b.rigid()->pose.position = at;
  return b;
}

// One body of every kind, apart, without gravity, so that the first frame is the scene:
// a ground plane; a static 2 m cube centred at (10, 1, 0) on collision layer 1 alone (bit
// 2); a compound of two balls (r 0.5) at body-frame (0, 0, 0) and (2, 0, 0), its frame at
// (0, 5, 0), whose centre of mass lies between them; a straight rod (r 0.05) from
// (-5, 2, 5) to (5, 2, 5); a soft 1 m cube centred at (0, 1.5, -5) on layer 2 alone (bit
// 4); a strand (r 0.01) standing from (-10, 0, 0) to
// (-10, 2, 0) in two segments.
std::unique_ptr<World> EveryKind() {
  SceneDesc scene;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc ground = Rigid("ground", BodyKind::kStatic, Vec3::Zero());
  ground.rigid()->shape = Shape::Plane();
  scene.bodies.push_back(ground);
  BodyDesc box = Rigid("box", BodyKind::kStatic, Vec3(10, 1, 0));
  box.rigid()->shape = Shape::Box(Vec3::Ones());
  box.rigid()->collision.layers = 2;
  scene.bodies.push_back(box);
  BodyDesc pair = Rigid("pair", BodyKind::kDynamic, Vec3(0, 5, 0));
  pair.rigid()->children = {{Shape::Sphere(0.5), Transform{}},
                            {Shape::Sphere(0.5), Transform{Vec3(2, 0, 0), Quat::Identity()}}};
  scene.bodies.push_back(pair);
  BodyDesc rod;
  rod.id = "rod";
  rod.kind = BodyKind::kKinematic;
  RodDesc r;
  r.points = {Vec3(-5, 2, 5), Vec3(5, 2, 5)};
  r.material.radius = 0.05;
  rod.body = r;
  scene.bodies.push_back(rod);
  BodyDesc soft;
  soft.id = "soft";
  SoftBodyDesc s;
  s.mesh = MakeBoxMesh(Vec3::Constant(0.5), 2, 2, 2);
  for (Vec3& v : s.mesh.vertices) v += Vec3(0, 1.5, -5);
  s.collision.layers = 4;
  soft.body = s;
  scene.bodies.push_back(soft);
  BodyDesc strand;
  strand.id = "strand";
  StrandBodyDesc st;
  st.pose.position = Vec3(-10, 0, 0);
  st.strand.points = {Vec3::Zero(), Vec3(0, 1, 0), Vec3(0, 2, 0)};
  st.strand.materials[0].radius = 0.01;
  strand.body = st;
  scene.bodies.push_back(strand);
  auto world = World::FromScene("worlds/q", scene, WorldLimits{});
  EXPECT_TRUE(world.ok()) << world.status();
  return std::move(*world);
}

class SceneQueryTest : public ::testing::Test {
 protected:
  SceneQueryTest()
      : world_(EveryKind()),
        query_(std::make_shared<const Frame>(world_->MakeFrame()),
               std::make_shared<const QueryShapes>(BuildQueryShapes(*world_))) {}

  const std::string& IdOf(const QueryHit& hit) const { return query_.frame().bodies[hit.body].id; }

  std::unique_ptr<World> world_;
  SceneQuery query_;
};

// Straight down onto each body kind: the hit is on its top, with what names the part.
TEST_F(SceneQueryTest, RaysDownOntoEveryKind) {
  const Vec3 down = -Vec3::UnitY();
  QueryFilter all;
  // The compound's second ball, placed from the body frame (not the centre of mass).
  auto ball = query_.RaycastClosest(Vec3(2, 10, 0), down, 100.0, all);
  ASSERT_TRUE(ball.has_value());
  EXPECT_EQ(IdOf(*ball), "pair");
  EXPECT_EQ(ball->child, 1);
  EXPECT_NEAR(ball->point.y(), 5.5, kTol);
  EXPECT_NEAR(ball->distance, 4.5, kTol);
  // The rod: its top at y = 2.05, 6 m along it.
  auto rod = query_.RaycastClosest(Vec3(1, 10, 5), down, 100.0, all);
  ASSERT_TRUE(rod.has_value());
  EXPECT_EQ(IdOf(*rod), "rod");
  EXPECT_NEAR(rod->point.y(), 2.05, 1e-6);
  EXPECT_NEAR(rod->u, 6.0, 1e-6);
  // The soft cube's top face, a triangle facing up.
  auto soft = query_.RaycastClosest(Vec3(0.1, 10, -5.2), down, 100.0, all);
  ASSERT_TRUE(soft.has_value());
  EXPECT_EQ(IdOf(*soft), "soft");
  EXPECT_NEAR(soft->point.y(), 2.0, kTol);
  EXPECT_NEAR((soft->normal - Vec3::UnitY()).norm(), 0.0, kTol);
  EXPECT_GE(soft->triangle, 0);
  // The static cube, then the ground where nothing else is.
  auto box = query_.RaycastClosest(Vec3(10.5, 10, 0.5), down, 100.0, all);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(IdOf(*box), "box");
  EXPECT_NEAR(box->point.y(), 2.0, kTol);
  auto ground = query_.RaycastClosest(Vec3(20, 10, 20), down, 100.0, all);
  ASSERT_TRUE(ground.has_value());
  EXPECT_EQ(IdOf(*ground), "ground");
  EXPECT_NEAR(ground->distance, 10.0, kTol);
  // Out of reach: nothing.
  EXPECT_FALSE(query_.RaycastClosest(Vec3(20, 10, 20), down, 9.0, all).has_value());
}

// A layer mask passes by the shapes on none of its layers: the cube (bit 2) is seen only
// by masks naming it, the soft cube (bit 4) too, and every other body (bit 1) only by masks
// naming bit 1.
TEST_F(SceneQueryTest, LayerMasks) {
  const Vec3 down = -Vec3::UnitY();
  QueryFilter not_two;
  not_two.layer_mask = ~2u;
  auto past = query_.RaycastClosest(Vec3(10.5, 10, 0.5), down, 100.0, not_two);
  ASSERT_TRUE(past.has_value());
  EXPECT_EQ(IdOf(*past), "ground");
  QueryFilter only_two;
  only_two.layer_mask = 2u;
  auto box = query_.RaycastClosest(Vec3(10.5, 10, 0.5), down, 100.0, only_two);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(IdOf(*box), "box");
  EXPECT_FALSE(query_.RaycastClosest(Vec3(1, 10, 5), down, 100.0, only_two).has_value());
  // Onto the soft cube: the ground under it, unless the mask names its layer.
  auto under = query_.RaycastClosest(Vec3(0.1, 10, -5.2), down, 100.0, not_two);
  ASSERT_TRUE(under.has_value());
  EXPECT_EQ(IdOf(*under), "soft");
  QueryFilter not_four;
  not_four.layer_mask = ~4u;
  under = query_.RaycastClosest(Vec3(0.1, 10, -5.2), down, 100.0, not_four);
  ASSERT_TRUE(under.has_value());
  EXPECT_EQ(IdOf(*under), "ground");
}

// Sideways at the strand's upper segment: it is met at its radius, on segment 1.
TEST_F(SceneQueryTest, RayOntoStrandSegment) {
  auto hit = query_.RaycastClosest(Vec3(-20, 1.5, 0), Vec3::UnitX(), 100.0, QueryFilter{});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(IdOf(*hit), "strand");
  EXPECT_EQ(hit->segment, 1);
  EXPECT_NEAR(hit->point.x(), -10.01, 1e-9);
}

// Every body along a ray, nearest first, one hit each; filters leave bodies and kinds out.
TEST_F(SceneQueryTest, AllHitsAndFilters) {
  const Vec3 down = -Vec3::UnitY();
  auto hits = query_.RaycastAll(Vec3(0.2, 10, 0), down, 100.0, QueryFilter{});
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(IdOf(hits[0]), "pair");
  EXPECT_EQ(IdOf(hits[1]), "ground");
  EXPECT_LT(hits[0].distance, hits[1].distance);
  QueryFilter no_pair;
  no_pair.exclude.insert("pair");
  auto past = query_.RaycastClosest(Vec3(0.2, 10, 0), down, 100.0, no_pair);
  ASSERT_TRUE(past.has_value());
  EXPECT_EQ(IdOf(*past), "ground");
  QueryFilter deformables;
  deformables.kinds = (1u << static_cast<int>(QueryBodyKind::kRod)) |
                      (1u << static_cast<int>(QueryBodyKind::kSoft));
  EXPECT_FALSE(query_.RaycastClosest(Vec3(0.2, 10, 0), down, 100.0, deformables).has_value());
}

// A ball of radius 0.25 dropped above the rod meets it after 10 - 2 - 0.05 - 0.25 m; beside
// everything it lands on the ground after 10 - 0.25 m.
TEST_F(SceneQueryTest, SphereCasts) {
  const ConvexCore ball{{Vec3(3, 10, 5)}, 0.25};
  auto rod = query_.ShapeCast(ball, -Vec3::UnitY(), 100.0, QueryFilter{});
  ASSERT_TRUE(rod.has_value());
  EXPECT_EQ(IdOf(*rod), "rod");
  EXPECT_NEAR(rod->distance, 10.0 - 2.05 - 0.25, 1e-6);
  EXPECT_NEAR(rod->u, 8.0, 1e-6);
  const ConvexCore far{{Vec3(30, 10, 30)}, 0.25};
  auto ground = query_.ShapeCast(far, -Vec3::UnitY(), 100.0, QueryFilter{});
  ASSERT_TRUE(ground.has_value());
  EXPECT_EQ(IdOf(*ground), "ground");
  EXPECT_NEAR(ground->distance, 9.75, kTol);
}

// A box spanning the compound and the soft cube, above the ground, overlaps those two.
TEST_F(SceneQueryTest, OverlapListsBodiesInFrameOrder) {
  ConvexCore box =
      CoreOf(Shape::Box(Vec3(0.6, 2.0, 3.0)), Transform{Vec3(0, 3.5, -2.5), Quat::Identity()});
  bool truncated = true;
  auto hits = query_.Overlap(box, QueryFilter{}, 10, &truncated);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(IdOf(hits[0]), "pair");
  EXPECT_EQ(IdOf(hits[1]), "soft");
  EXPECT_FALSE(truncated);
  auto one = query_.Overlap(box, QueryFilter{}, 1, &truncated);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_TRUE(truncated);
}

// The point nearest (12, 1.5, 0.5) is on the static cube's +X face, 1 m away; a point
// inside the compound's first ball is at 0.
TEST_F(SceneQueryTest, ClosestPoint) {
  auto near = query_.Closest({{Vec3(12, 1.5, 0.5)}, 0.0}, 100.0, QueryFilter{});
  ASSERT_TRUE(near.has_value());
  EXPECT_EQ(IdOf(*near), "box");
  EXPECT_NEAR(near->distance, 1.0, kTol);
  EXPECT_NEAR((near->point - Vec3(11, 1.5, 0.5)).norm(), 0.0, kTol);
  auto inside = query_.Closest({{Vec3(0.1, 5.1, 0)}, 0.0}, 100.0, QueryFilter{});
  ASSERT_TRUE(inside.has_value());
  EXPECT_EQ(IdOf(*inside), "pair");
  EXPECT_EQ(inside->distance, 0.0);
  EXPECT_FALSE(query_.Closest({{Vec3(12, 1.5, 0.5)}, 0.0}, 0.5, QueryFilter{}).has_value());
}

}  // namespace
}  // namespace ligature
