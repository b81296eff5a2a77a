// Soft bodies over real gRPC: a soft box created as a body and nailed by a constraint,
// stepped, seen in frames (vertices and boundary), exported and re-created; the built-in
// ligament cut by its scalpel, with cut events, the new topology in frames and in the
// export; bad soft input gets INVALID_ARGUMENT naming the field, or FAILED_PRECONDITION,
// and changes nothing.

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
  // Beside the world's ball (which also starts at y = 1), so that it hangs free.
  v1::Body box = SoftBox("jelly", v1::SOFT_MODEL_MASS_POINT);
  box.mutable_pose()->mutable_position()->set_x(0.5);
  ASSERT_TRUE(AddBody(box).ok());
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

grpc::Status SwitchConstraint(v1::SceneService::Stub* scenes, const std::string& name,
                              bool enabled) {
  grpc::ClientContext ctx;
  v1::SetConstraintEnabledRequest req;
  req.set_name(name);
  req.set_enabled(enabled);
  v1::SetConstraintEnabledResponse resp;
  return scenes->SetConstraintEnabled(&ctx, req, &resp);
}

// A nail switched off lets the vertex fall; switched on again it pulls the vertex back to
// its goal (within the step that holds it exactly). Switching works in a batch too; an
// unknown constraint is NOT_FOUND, a rigid joint FAILED_PRECONDITION, a foreign world's
// name INVALID_ARGUMENT.
TEST_F(SoftServiceTest, NailSwitchesOffAndOnAgain) {
  v1::Body box = SoftBox("jelly", v1::SOFT_MODEL_MASS_POINT);
  box.mutable_pose()->mutable_position()->set_x(0.5);
  ASSERT_TRUE(AddBody(box).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 1, &frame).ok());
  const int top = 26;  // the grid's last vertex: a top corner
  const v1::Vec3 goal = Find(frame, "jelly")->soft_vertices(top);
  ASSERT_TRUE(AddConstraint(Nail("hook", "jelly", top, goal)).ok());
  ASSERT_TRUE(Step("worlds/s", 20, &frame).ok());
  EXPECT_NEAR(Find(frame, "jelly")->soft_vertices(top).y(), goal.y(), 1e-9);

  ASSERT_TRUE(SwitchConstraint(scenes_.get(), "worlds/s/constraints/hook", false).ok());
  ASSERT_TRUE(Step("worlds/s", 20, &frame).ok());
  // Free fall for 20 ticks at 100 Hz drops it by about g t^2 / 2 = 0.2 m.
  EXPECT_LT(Find(frame, "jelly")->soft_vertices(top).y(), goal.y() - 0.1);

  v1::BatchEditRequest batch;
  batch.set_parent("worlds/s");
  v1::SetConstraintEnabledRequest* on = batch.add_edits()->mutable_set_constraint_enabled();
  on->set_name("worlds/s/constraints/hook");
  on->set_enabled(true);
  {
    grpc::ClientContext ctx;
    v1::BatchEditResponse resp;
    ASSERT_TRUE(scenes_->BatchEdit(&ctx, batch, &resp).ok());
  }
  ASSERT_TRUE(Step("worlds/s", 1, &frame).ok());
  EXPECT_NEAR(Find(frame, "jelly")->soft_vertices(top).y(), goal.y(), 1e-9);

  EXPECT_EQ(SwitchConstraint(scenes_.get(), "worlds/s/constraints/nope", false).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::Constraint hinge;
  hinge.set_id("pin");
  hinge.mutable_point()->set_body_a("ball");
  ASSERT_TRUE(AddConstraint(hinge).ok());
  EXPECT_EQ(SwitchConstraint(scenes_.get(), "worlds/s/constraints/pin", false).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  const grpc::Status foreign =
      SwitchConstraint(scenes_.get(), "worlds/other/constraints/hook", false);
  EXPECT_NE(foreign.error_code(), grpc::StatusCode::OK);
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
  // Cutting: any model, tissue parameters in range, scalpels only rigid.
  for (const v1::SoftModel model : {v1::SOFT_MODEL_MASS_POINT, v1::SOFT_MODEL_STVK_FEM}) {
    bad = SoftBox("bad", model);
    bad.mutable_soft()->mutable_cutting()->set_toughness(0.0);
    expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.cutting.toughness");
    bad.mutable_soft()->mutable_cutting()->set_toughness(1e4);
    bad.mutable_soft()->mutable_cutting()->set_cut_damage(2.0);
    expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.cutting.cut_damage");
  }
  v1::Body cuttable = SoftBox("cuttable_jelly", v1::SOFT_MODEL_MASS_POINT);
  cuttable.mutable_soft()->mutable_cutting()->set_toughness(1e4);
  ASSERT_TRUE(AddBody(cuttable).ok());
  cuttable = SoftBox("cuttable_stvk", v1::SOFT_MODEL_STVK_FEM);
  cuttable.mutable_soft()->mutable_cutting()->set_toughness(1e4);
  ASSERT_TRUE(AddBody(cuttable).ok());
  bad = SoftBox("bad", v1::SOFT_MODEL_COROTATIONAL_FEM);
  bad.mutable_soft()->set_friction(-0.5);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.friction");
  bad = SoftBox("bad", v1::SOFT_MODEL_COROTATIONAL_FEM);
  bad.mutable_soft()->mutable_cutting()->set_toughness(-1.0);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.cutting.toughness");
  bad.mutable_soft()->mutable_cutting()->set_toughness(1e4);
  bad.mutable_soft()->mutable_cutting()->set_damage(0.01);
  expect(AddBody(bad), grpc::INVALID_ARGUMENT, "body.soft.cutting.damage");
  v1::Body blade_on_soft = SoftBox("bad", v1::SOFT_MODEL_COROTATIONAL_FEM);
  blade_on_soft.mutable_scalpel();
  expect(AddBody(blade_on_soft), grpc::INVALID_ARGUMENT, "body.scalpel");
  v1::Body blade;
  blade.set_id("blade");
  blade.set_kind(v1::BODY_KIND_KINEMATIC);
  blade.mutable_shape()->mutable_sphere()->set_radius(0.01);
  blade.mutable_scalpel()->set_cut_depth(-0.01);
  expect(AddBody(blade), grpc::INVALID_ARGUMENT, "body.scalpel.cut_depth");
  EXPECT_EQ(Get().constraint_count(), 1);
  // The world still steps.
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 5, &frame).ok());
}

// The built-in ligament: the scalpel, moved by pose updates on the paused world, presses
// into the middle of the band and is drawn across it. Frames report the cuts, the last one
// leaving two pieces; the band's topology version and vertex count grow; the export
// carries the cut mesh, and a world made from it has the same vertices.
TEST_F(SoftServiceTest, ScalpelCutsTheLigament) {
  CreateWorld("lig", "ligament");
  ASSERT_TRUE(SetPaused("worlds/lig", true).ok());
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/lig", 200, &frame).ok());  // the band sags to rest
  ASSERT_NE(Find(frame, "ligament"), nullptr);
  const int vertices = Find(frame, "ligament")->soft_vertices_size();
  EXPECT_EQ(Find(frame, "ligament")->topology_version(), 0u);
  double top = -1.0;  // the top surface at mid-length, sagged
  for (const v1::Vec3& p : Find(frame, "ligament")->soft_vertices()) {
    if (std::abs(p.x()) < 1e-3 && p.y() > 0.0) top = std::max(top, p.y());
  }
  auto move_scalpel = [&](double y, double z) {
    grpc::ClientContext ctx;
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name("worlds/lig/bodies/scalpel");
    v1::Vec3* at = req.mutable_body()->mutable_pose()->mutable_position();
    at->set_y(y + 0.02);  // the tip is 2 cm below the blade's centre
    at->set_z(z);
    req.mutable_update_mask()->add_paths("pose.position");
    v1::Body out;
    return scenes_->UpdateBody(&ctx, req, &out);
  };
  std::vector<v1::CutEvent> cuts;
  auto stroke = [&](double y0, double z0, double y1, double z1, int ticks) {
    for (int i = 1; i <= ticks; ++i) {
      const double s = static_cast<double>(i) / ticks;
      ASSERT_TRUE(move_scalpel(y0 + s * (y1 - y0), z0 + s * (z1 - z0)).ok());
      ASSERT_TRUE(Step("worlds/lig", 1, &frame).ok());
      cuts.insert(cuts.end(), frame.cuts().begin(), frame.cuts().end());
    }
  };
  const double pressed = top - 0.002;
  stroke(top + 0.002, -0.005, pressed, -0.005, 20);
  stroke(pressed, -0.005, pressed, 0.014, 100);
  stroke(pressed, 0.014, top + 0.03, 0.014, 20);
  ASSERT_FALSE(cuts.empty());
  for (const v1::CutEvent& cut : cuts) {
    EXPECT_EQ(cut.body(), "ligament");
    EXPECT_EQ(cut.tool(), "scalpel");
    EXPECT_GT(cut.vertices_added(), 0);
    EXPECT_GE(cut.cutting_stress(), 2000.0);  // the scene's toughness
  }
  EXPECT_EQ(cuts.back().pieces(), 2);
  const v1::BodyState* band = Find(frame, "ligament");
  ASSERT_NE(band, nullptr);
  EXPECT_EQ(band->topology_version(), cuts.size());
  EXPECT_GT(band->soft_vertices_size(), vertices);

  grpc::ClientContext ctx;
  v1::ExportSceneRequest req;
  req.set_parent("worlds/lig");
  v1::Scene scene;
  ASSERT_TRUE(scenes_->ExportScene(&ctx, req, &scene).ok());
  v1::World copy;
  ASSERT_TRUE(CreateWorld("lig2", scene, &copy).ok());
  ASSERT_TRUE(SetPaused("worlds/lig2", true).ok());
  ASSERT_TRUE(Step("worlds/lig2", 1, &frame).ok());
  ASSERT_NE(Find(frame, "ligament"), nullptr);
  EXPECT_EQ(Find(frame, "ligament")->soft_vertices_size(), band->soft_vertices_size());
}

}  // namespace
}  // namespace ligature::testing
