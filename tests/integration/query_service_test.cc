// QueryService against a real server: rays, casts, overlaps and closest points answered
// from the newest frame (an edit to a paused world shows at once), in batches and on a
// stream, and bad queries refused with the field named.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "clients/cpp/cli/cli.h"
#include "clients/cpp/client.h"
#include "ligature/v1/query_service.grpc.pb.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

void Set(v1::Vec3* v, double x, double y, double z) {
  v->set_x(x);
  v->set_y(y);
  v->set_z(z);
}

// A ray straight down from (x, 5, z).
v1::SceneQuery RayDown(double x, double z, bool all_hits = false) {
  v1::SceneQuery q;
  Set(q.mutable_ray()->mutable_origin(), x, 5, z);
  Set(q.mutable_ray()->mutable_direction(), 0, -2, 0);
  q.mutable_ray()->set_all_hits(all_hits);
  return q;
}

class QueryServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    queries_ = v1::QueryService::NewStub(channel_);
    v1::World world;
    ASSERT_TRUE(CreateWorld("q", BallScene(), &world).ok());
  }

  grpc::Status Query(const std::vector<v1::SceneQuery>& queries, v1::QueryResponse* out,
                     const std::string& world = "worlds/q") {
    grpc::ClientContext ctx;
    v1::QueryRequest req;
    req.set_world(world);
    for (const auto& q : queries) *req.add_queries() = q;
    return queries_->Query(&ctx, req, out);
  }

  std::unique_ptr<v1::QueryService::Stub> queries_;
};

// The paused ball scene: the ball (r 0.1 at y 1) is hit first, then the ground; an
// overlap around the ball finds it alone; the point nearest (0, 3, 0) is the ball's top.
TEST_F(QueryServiceTest, EveryKindOfQuery) {
  v1::SceneQuery cast;
  cast.mutable_shape_cast()->mutable_shape()->mutable_sphere()->set_radius(0.2);
  Set(cast.mutable_shape_cast()->mutable_pose()->mutable_position(), 0.25, 5, 0);
  Set(cast.mutable_shape_cast()->mutable_direction(), 0, -1, 0);
  v1::SceneQuery overlap;
  overlap.mutable_overlap()->mutable_shape()->mutable_sphere()->set_radius(0.5);
  Set(overlap.mutable_overlap()->mutable_pose()->mutable_position(), 0, 1.2, 0);
  v1::SceneQuery closest;
  Set(closest.mutable_closest_point()->mutable_point(), 0, 3, 0);
  v1::QueryResponse resp;
  const grpc::Status s = Query({RayDown(0, 0), RayDown(0, 0, true), cast, overlap, closest}, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resp.world(), "worlds/q");
  ASSERT_EQ(resp.results_size(), 5);
  ASSERT_EQ(resp.results(0).hits_size(), 1);
  EXPECT_EQ(resp.results(0).hits(0).body(), "ball");
  EXPECT_NEAR(resp.results(0).hits(0).distance(), 5.0 - 1.1, 1e-9);
  EXPECT_NEAR(resp.results(0).hits(0).normal().y(), 1.0, 1e-9);
  ASSERT_EQ(resp.results(1).hits_size(), 2);
  EXPECT_EQ(resp.results(1).hits(1).body(), "ground");
  EXPECT_NEAR(resp.results(1).hits(1).distance(), 5.0, 1e-9);
  // The cast ball (r 0.2) passes 0.25 m beside the centre: it touches the ball where the
  // centres are 0.3 m apart, sqrt(0.3^2 - 0.25^2) above its centre.
  ASSERT_EQ(resp.results(2).hits_size(), 1);
  EXPECT_EQ(resp.results(2).hits(0).body(), "ball");
  EXPECT_NEAR(resp.results(2).hits(0).distance(), 4.0 - std::sqrt(0.09 - 0.0625), 1e-8);
  ASSERT_EQ(resp.results(3).hits_size(), 1);
  EXPECT_EQ(resp.results(3).hits(0).body(), "ball");
  ASSERT_EQ(resp.results(4).hits_size(), 1);
  EXPECT_EQ(resp.results(4).hits(0).body(), "ball");
  EXPECT_NEAR(resp.results(4).hits(0).distance(), 1.9, 1e-9);
}

// A body added to a paused world is in the very next answer: no tick is needed.
TEST_F(QueryServiceTest, AnswersFollowEditsWithoutATick) {
  v1::QueryResponse before;
  ASSERT_TRUE(Query({RayDown(3, 0)}, &before).ok());
  ASSERT_EQ(before.results(0).hits_size(), 1);
  EXPECT_EQ(before.results(0).hits(0).body(), "ground");
  v1::Body box;
  box.set_id("box");
  Set(box.mutable_shape()->mutable_box()->mutable_half_extents(), 0.5, 0.5, 0.5);
  Set(box.mutable_pose()->mutable_position(), 3, 0.5, 0);
  ASSERT_TRUE(CreateBodyIn("worlds/q", box).ok());
  v1::QueryResponse after;
  ASSERT_TRUE(Query({RayDown(3, 0)}, &after).ok());
  ASSERT_EQ(after.results(0).hits_size(), 1);
  EXPECT_EQ(after.results(0).hits(0).body(), "box");
  EXPECT_NEAR(after.results(0).hits(0).distance(), 4.0, 1e-9);
  EXPECT_EQ(after.tick(), before.tick());
}

// A stream answers each request in order, echoing its id; a bad request ends it with the
// field named.
TEST_F(QueryServiceTest, StreamAnswersInOrder) {
  grpc::ClientContext ctx;
  auto stream = queries_->StreamQueries(&ctx);
  for (uint64_t id = 1; id <= 3; ++id) {
    v1::QueryRequest req;
    req.set_world("worlds/q");
    req.set_request_id(id);
    *req.add_queries() = RayDown(0.01 * id, 0);
    ASSERT_TRUE(stream->Write(req));
    v1::QueryResponse resp;
    ASSERT_TRUE(stream->Read(&resp));
    EXPECT_EQ(resp.request_id(), id);
    ASSERT_EQ(resp.results_size(), 1);
    EXPECT_EQ(resp.results(0).hits(0).body(), "ball");
  }
  v1::QueryRequest bad;
  bad.set_world("worlds/q");
  *bad.add_queries() = RayDown(0, 0);
  bad.mutable_queries(0)->mutable_ray()->mutable_origin()->set_x(kNan);
  ASSERT_TRUE(stream->Write(bad));
  v1::QueryResponse none;
  EXPECT_FALSE(stream->Read(&none));
  const grpc::Status s = stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("queries[0].ray.origin"));
}

TEST_F(QueryServiceTest, BadQueriesNameTheField) {
  const auto expect = [&](const std::vector<v1::SceneQuery>& queries, grpc::StatusCode code,
                          const std::string& field, const std::string& world = "worlds/q") {
    v1::QueryResponse resp;
    const grpc::Status s = Query(queries, &resp, world);
    EXPECT_EQ(s.error_code(), code) << field << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(field));
  };
  v1::SceneQuery zero = RayDown(0, 0);
  Set(zero.mutable_ray()->mutable_direction(), 0, 0, 0);
  expect({RayDown(0, 0), zero}, grpc::StatusCode::INVALID_ARGUMENT, "queries[1].ray.direction");
  v1::SceneQuery far = RayDown(0, 0);
  far.mutable_ray()->set_max_distance(-1);
  expect({far}, grpc::StatusCode::INVALID_ARGUMENT, "queries[0].ray.max_distance");
  v1::SceneQuery plane;
  plane.mutable_overlap()->mutable_shape()->mutable_plane();
  expect({plane}, grpc::StatusCode::INVALID_ARGUMENT, "queries[0].overlap.shape");
  v1::SceneQuery huge;
  huge.mutable_overlap()->mutable_shape()->mutable_sphere()->set_radius(1);
  huge.mutable_overlap()->set_max_results(1u << 20);
  expect({huge}, grpc::StatusCode::INVALID_ARGUMENT, "queries[0].overlap.max_results");
  v1::SceneQuery kinds = RayDown(0, 0);
  kinds.mutable_filter()->add_kinds(static_cast<v1::QueryBodyKind>(9));
  expect({kinds}, grpc::StatusCode::INVALID_ARGUMENT, "queries[0].filter.kinds[0]");
  expect({v1::SceneQuery()}, grpc::StatusCode::INVALID_ARGUMENT, "queries[0]");
  expect({}, grpc::StatusCode::INVALID_ARGUMENT, "queries");
  // One query more than a batch may hold, each as small as a query can be (a ray along +X
  // from the origin) so that the request itself fits in a message.
  v1::SceneQuery tiny;
  tiny.mutable_ray()->mutable_direction()->set_x(1);
  expect(std::vector<v1::SceneQuery>(65537, tiny), grpc::StatusCode::RESOURCE_EXHAUSTED, "queries");
  expect({RayDown(0, 0)}, grpc::StatusCode::NOT_FOUND, "nowhere", "worlds/nowhere");
  // The world is as it was.
  v1::QueryResponse resp;
  ASSERT_TRUE(Query({RayDown(0, 0)}, &resp).ok());
  EXPECT_EQ(resp.results(0).hits(0).body(), "ball");
}

// The C++ client's query stream: answers in order, each about the newest frame.
TEST_F(QueryServiceTest, ClientQueryStream) {
  client::Client connection(channel_);
  auto stream = connection.OpenQueryStream("q");
  ASSERT_TRUE(stream.ok()) << stream.status();
  for (int i = 0; i < 3; ++i) {
    auto resp = (*stream)->Ask({RayDown(0, 0)});
    ASSERT_TRUE(resp.ok()) << resp.status();
    EXPECT_EQ(resp->request_id(), static_cast<uint64_t>(i + 1));
    EXPECT_EQ(resp->results(0).hits(0).body(), "ball");
  }
  EXPECT_TRUE((*stream)->Close().ok());
}

// `ligature query ray` prints the tick, then the hit: body, distance, point, normal.
TEST_F(QueryServiceTest, CommandLine) {
  std::ostringstream out, err;
  const std::string server = "127.0.0.1:" + std::to_string(server_->port());
  const int code = client::cli::RunCli(
      {"query", "ray", "q", "--from", "0,5,0", "--dir", "0,-1,0", "--all", "--server", server},
      out, err);
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_THAT(out.str(), HasSubstr("ball  distance 3.9  point 0,1.1,0  normal 0,1,0"));
  EXPECT_THAT(out.str(), HasSubstr("ground  distance 5  point 0,0,0"));
}

}  // namespace
}  // namespace ligature::testing
