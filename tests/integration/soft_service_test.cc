// Soft bodies over real gRPC: a soft box created as a body and nailed by a constraint,
// stepped, seen in frames (vertices and boundary), exported and re-created; bad soft input
// gets INVALID_ARGUMENT naming the field, or FAILED_PRECONDITION, and changes nothing.

#include <array>
#include <vector>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

v1::Body SoftBox(const std::string& id, v1::SoftModel model) {
  v1::Body b;
  b.set_id(id);
  b.mutable_pose()->mutable_position()->set_y(1.0);
  v1::SoftBody* soft = b.mutable_soft();
  v1::SoftBoxMesh* box = soft->mutable_box();
  box->mutable_half_extents()->set_x(0.05);
  box->mutable_half_extents()->set_y(0.05);
  box->mutable_half_extents()->set_z(0.05);
  box->set_cells_x(2);
  box->set_cells_y(2);
  box->set_cells_z(2);
  soft->set_model(model);
  soft->set_distance_stiffness(20.0);
  soft->set_volume_stiffness(5.0);
  soft->set_damping(0.5);
  return b;
}

class SoftServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("s", BallScene(), &w).ok());
  }
  grpc::Status AddBody(const v1::Body& body) { return CreateBodyIn("worlds/s", body); }
  grpc::Status AddConstraint(const v1::Constraint& c) { return CreateConstraintIn("worlds/s", c); }
  v1::World Get() {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name("worlds/s");
    v1::World w;
    EXPECT_TRUE(worlds_->GetWorld(&ctx, req, &w).ok());
    return w;
  }
};

v1::Constraint Nail(const std::string& id, const std::string& body, int vertex,
                    const v1::Vec3& goal) {
  v1::Constraint c;
  c.set_id(id);
  v1::SoftConstraint* s = c.mutable_soft();
  s->set_kind(v1::SOFT_CONSTRAINT_KIND_NAIL);
  s->set_body(body);
  s->add_vertices(vertex);
  *s->mutable_goal() = goal;
  return c;
}

const v1::BodyState* Find(const v1::Frame& frame, const std::string& id) {
  for (const v1::BodyState& b : frame.bodies()) {
    if (b.id() == id) return &b;
  }
  return nullptr;
}

TEST_F(SoftServiceTest, NailedSoftBoxHangsAndShowsInFrames) {
  ASSERT_TRUE(AddBody(SoftBox("jelly", v1::SOFT_MODEL_MASS_POINT)).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 1, &frame).ok());
  const v1::BodyState* jelly = Find(frame, "jelly");
  ASSERT_NE(jelly, nullptr);
  ASSERT_EQ(jelly->soft_vertices_size(), 27);  // a 2x2x2 grid of cells
  // 2 triangles per boundary cell face: 6 faces x 4 cells x 2.
  EXPECT_EQ(jelly->soft_triangles_size(), 3 * 48);
  // Nail the highest vertex where it is.
  int top = 0;
  for (int i = 1; i < jelly->soft_vertices_size(); ++i) {
    if (jelly->soft_vertices(i).y() > jelly->soft_vertices(top).y()) top = i;
  }
  const v1::Vec3 goal = jelly->soft_vertices(top);
  ASSERT_TRUE(AddConstraint(Nail("hook", "jelly", top, goal)).ok());
  ASSERT_TRUE(Step("worlds/s", 100, &frame).ok());
  jelly = Find(frame, "jelly");
  EXPECT_NEAR(jelly->soft_vertices(top).y(), goal.y(), 1e-9);
  EXPECT_NEAR(jelly->soft_vertices(top).x(), goal.x(), 1e-9);
  // The rest of it hangs below.
  double lowest = 10.0;
  for (const v1::Vec3& v : jelly->soft_vertices()) lowest = std::min(lowest, v.y());
  EXPECT_LT(lowest, 0.9);

  grpc::ClientContext ctx;
  v1::ExportSceneRequest req;
  req.set_parent("worlds/s");
  v1::Scene scene;
  ASSERT_TRUE(scenes_->ExportScene(&ctx, req, &scene).ok());
  v1::World copy;
  ASSERT_TRUE(CreateWorld("copy", scene, &copy).ok());
  EXPECT_EQ(copy.body_count(), Get().body_count());
  EXPECT_EQ(copy.constraint_count(), 1);
}

TEST_F(SoftServiceTest, BadSoftInputNamesTheField) {
  auto expect = [](const grpc::Status& s, grpc::StatusCode code, const std::string& field) {
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_NE(s.error_message().find(field), std::string::npos) << s.error_message();
  };
  v1::Body bad = SoftBox("bad", v1::SOFT_MODEL_MASS_POINT);
  bad.mutable_soft()->mutable_box()->set_cells_x(0);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.box.cells_x");
  bad = SoftBox("bad", v1::SOFT_MODEL_COROTATIONAL_FEM);
  bad.mutable_soft()->set_poisson_ratio(0.5);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.poisson_ratio");
  bad = SoftBox("bad", v1::SOFT_MODEL_MASS_POINT);
  bad.mutable_soft()->set_gmsh("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n");
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.gmsh");
  // Explicit tetrahedra: an inverted one, a flat one, a face shared by three.
  auto tets = [](std::vector<std::array<double, 3>> vertices, std::vector<int> indices) {
    v1::Body b = SoftBox("bad", v1::SOFT_MODEL_MASS_POINT);
    v1::TetMeshData* t = b.mutable_soft()->mutable_tets();
    for (const auto& v : vertices) {
      v1::Vec3* p = t->add_vertices();
      p->set_x(v[0]);
      p->set_y(v[1]);
      p->set_z(v[2]);
    }
    for (const int i : indices) t->add_tets(i);
    return b;
  };
  const std::vector<std::array<double, 3>> corners = {
      {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 1}};
  expect(AddBody(tets(corners, {0, 2, 1, 3})), grpc::INVALID_ARGUMENT, "body.soft.tets.tets[0]");
  expect(AddBody(tets({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}}, {0, 1, 2, 3})),
         grpc::INVALID_ARGUMENT, "degenerate");
  expect(AddBody(tets(corners, {0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 5})), grpc::INVALID_ARGUMENT,
         "more than two");
  bad = SoftBox("bad", v1::SOFT_MODEL_MASS_POINT);
  bad.mutable_soft()->add_fixed_vertices(1000);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "fixed_vertices[0]");
  const int bodies = Get().body_count();

  ASSERT_TRUE(AddBody(SoftBox("jelly", v1::SOFT_MODEL_MASS_POINT)).ok());
  ASSERT_TRUE(AddBody(SoftBox("tissue", v1::SOFT_MODEL_COROTATIONAL_FEM)).ok());
  EXPECT_EQ(Get().body_count(), bodies + 2);
  v1::Vec3 goal;
  expect(AddConstraint(Nail("far", "jelly", 99, goal)), grpc::INVALID_ARGUMENT, "vertices[0]");
  expect(AddConstraint(Nail("ghost", "nobody", 0, goal)), grpc::NOT_FOUND, "body");
  expect(AddConstraint(Nail("fem", "tissue", 0, goal)), grpc::FAILED_PRECONDITION, "mass-point");
  ASSERT_TRUE(AddConstraint(Nail("one", "jelly", 0, goal)).ok());
  expect(AddConstraint(Nail("two", "jelly", 0, goal)), grpc::INVALID_ARGUMENT, "vertices[0]");
  EXPECT_EQ(Get().constraint_count(), 1);
  // The world still steps.
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 5, &frame).ok());
}

}  // namespace
}  // namespace ligature::testing
