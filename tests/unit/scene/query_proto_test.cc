#include "server/scene/query_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "server/world/query/query_shapes.h"

namespace ligature {
namespace {

using ::testing::StartsWith;

// Directions are made unit, a reach of 0 takes the default, and a closest-point query
// without a shape asks about its point.
TEST(QueryProtoTest, ChecksAndDefaults) {
  v1::QueryRequest req;
  v1::RayQuery* ray = req.add_queries()->mutable_ray();
  ray->mutable_direction()->set_y(-4.0);
  v1::ClosestPointQuery* closest = req.add_queries()->mutable_closest_point();
  closest->mutable_point()->set_x(2.0);
  closest->set_max_distance(3.0);
  v1::ShapeCastQuery* cast = req.add_queries()->mutable_shape_cast();
  cast->mutable_shape()->mutable_capsule()->set_radius(0.1);
  cast->mutable_shape()->mutable_capsule()->set_half_length(0.5);
  cast->mutable_direction()->set_x(1.0);
  auto calls = QueriesFromProto(req);
  ASSERT_TRUE(calls.ok()) << calls.status();
  ASSERT_EQ(calls->size(), 3u);
  EXPECT_EQ((*calls)[0].type, QueryCall::Type::kRay);
  EXPECT_EQ((*calls)[0].direction, Vec3(0, -1, 0));
  EXPECT_EQ((*calls)[0].max_distance, kDefaultQueryReach);
  EXPECT_EQ((*calls)[1].type, QueryCall::Type::kClosestPoint);
  EXPECT_EQ((*calls)[1].shape.points, std::vector<Vec3>{Vec3(2, 0, 0)});
  EXPECT_EQ((*calls)[1].max_distance, 3.0);
  EXPECT_EQ((*calls)[2].shape.points.size(), 2u);
  EXPECT_EQ((*calls)[2].shape.radius, 0.1);
}

TEST(QueryProtoTest, BadShapesAndPosesAreNamed) {
  v1::QueryRequest req;
  v1::OverlapQuery* overlap = req.add_queries()->mutable_overlap();
  overlap->mutable_shape()->mutable_sphere()->set_radius(-1.0);
  auto calls = QueriesFromProto(req);
  ASSERT_FALSE(calls.ok());
  EXPECT_THAT(std::string(calls.status().message()),
              StartsWith("queries[0].overlap.shape.sphere.radius"));
  overlap->mutable_shape()->mutable_sphere()->set_radius(1.0);
  overlap->mutable_pose()->mutable_orientation()->set_x(3.0);
  calls = QueriesFromProto(req);
  ASSERT_FALSE(calls.ok());
  EXPECT_THAT(std::string(calls.status().message()),
              StartsWith("queries[0].overlap.pose.orientation"));
}

// An empty world's frame answers with its tick and no hits, one result per query.
TEST(QueryProtoTest, AnswersCarryTheFrame) {
  auto frame = std::make_shared<Frame>();
  frame->world = "worlds/e";
  frame->tick = 7;
  const SceneQuery scene(frame, std::make_shared<const QueryShapes>());
  std::vector<QueryCall> calls(2);
  const v1::QueryResponse resp = AnswerQueries(scene, calls, 42);
  EXPECT_EQ(resp.world(), "worlds/e");
  EXPECT_EQ(resp.tick(), 7u);
  EXPECT_EQ(resp.request_id(), 42u);
  ASSERT_EQ(resp.results_size(), 2);
  EXPECT_EQ(resp.results(0).hits_size(), 0);
}

// Three balls on the X axis, each ray along it hits all three: with a budget of 4 hits the
// first ray keeps its 3, the second 1 of them (truncated), the third none (truncated).
TEST(QueryProtoTest, ResponsesKeepToTheirHitBudget) {
  auto frame = std::make_shared<Frame>();
  auto shapes = std::make_shared<QueryShapes>();
  for (int i = 0; i < 3; ++i) {
    BodyState& state = frame->bodies.emplace_back();
    state.id = "ball" + std::to_string(i);
    state.pose.position = Vec3(2.0 * (i + 1), 0, 0);
    QueryBody& body = shapes->bodies.emplace_back();
    body.id = state.id;
    body.shapes.push_back({Shape::Sphere(0.5), Transform{}});
  }
  const SceneQuery scene(frame, shapes);
  QueryCall ray;
  ray.all_hits = true;
  const v1::QueryResponse resp = AnswerQueries(scene, {ray, ray, ray}, 1, 4);
  ASSERT_EQ(resp.results_size(), 3);
  EXPECT_EQ(resp.results(0).hits_size(), 3);
  EXPECT_FALSE(resp.results(0).truncated());
  EXPECT_EQ(resp.results(1).hits_size(), 1);
  EXPECT_EQ(resp.results(1).hits(0).body(), "ball0");
  EXPECT_TRUE(resp.results(1).truncated());
  EXPECT_EQ(resp.results(2).hits_size(), 0);
  EXPECT_TRUE(resp.results(2).truncated());
}

}  // namespace
}  // namespace ligature
