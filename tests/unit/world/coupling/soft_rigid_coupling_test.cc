// SoftRigidCoupling through its stages: a soft body's vertex below a floor's top is one
// contact with the floor, and the force solved for it starts the next tick's block.

#include "server/world/coupling/soft_rigid_coupling.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

// A static floor (top at y = 0) and a small corotational cube whose lowest vertices sit
// 1 mm into it, in the Gauss-Seidel pipeline.
struct Scene {
  Scene() {
    settings.rate_hz = 100.0;
    BodyDesc floor;
    floor.id = "floor";
    floor.kind = BodyKind::kStatic;
    floor.rigid()->shape = Shape::Box(Vec3(1.0, 0.05, 1.0));
    floor.rigid()->pose.position = Vec3(0.0, -0.05, 0.0);
    body_ids["floor"] = bodies.Add(floor);
    SoftBodyDesc cube;
    cube.id = "cube";
    cube.mesh = MakeBoxMesh(Vec3(0.02, 0.02, 0.02), 1, 1, 1);
    for (Vec3& v : cube.mesh.vertices) v += Vec3(0.0, 0.019, 0.0);
    cube.model = SoftModelKind::kCorotational;
    cube.fem.young = 1e5;
    cube.fem.density = 1000.0;
    EXPECT_TRUE(soft.AddBody(cube).ok());
  }

  WorldView View() { return {settings, bodies, rods, soft, body_ids, scalpels, stats}; }

  // The stages up to the rows, as the world runs them for one tick.
  void FindAndBuild(SoftRigidCoupling& coupling) {
    soft.StepFreeMotion(0.0, settings.dt(), settings.gravity, {});
    ctx.aabbs.clear();
    for (int i = 0; i < bodies.size(); ++i) {
      const Transform pose{bodies.position[i], bodies.orientation[i]};
      ctx.aabbs.push_back(
          PlaceShape(bodies.shapes[i][0], pose, 0.5 * settings.contact_margin).bounds);
    }
    ctx.soft_points.clear();
    ctx.rows.Clear();
    coupling.FindContacts(View(), ctx);
    coupling.BuildRows(View(), ctx);
  }

  WorldSettings settings;
  RigidBodies bodies;
  RodWorld rods;
  SoftWorld soft;
  absl::flat_hash_map<std::string, BodyHandle> body_ids;
  std::map<std::string, ScalpelDesc> scalpels;
  StepStats stats;
  StepContext ctx;
};

TEST(SoftRigidCoupling, FindsTheFloorUnderALowVertexAndWarmStartsFromItsForce) {
  Scene scene;
  SoftRigidCoupling coupling;
  scene.FindAndBuild(coupling);

  // Each of the four bottom vertices meets the floor, 1 mm deep, pushed up.
  ASSERT_EQ(coupling.contacts().size(), 4u);
  ASSERT_EQ(scene.ctx.soft_points.size(), 4u);
  ASSERT_EQ(scene.ctx.rows.blocks.size(), 4u);
  std::vector<ContactRecord> seen;
  coupling.ForEachContact([&](size_t block, const ContactRecord& c) {
    EXPECT_LT(block, scene.ctx.rows.blocks.size());
    seen.push_back(c);
  });
  ASSERT_EQ(seen.size(), 4u);
  for (const ContactRecord& c : seen) {
    EXPECT_TRUE(c.soft);
    EXPECT_EQ(c.b, 0u);  // the floor
    EXPECT_NEAR(c.contact.distance, -0.001, 1e-4);
    EXPECT_NEAR(std::abs(c.contact.normal.y()), 1.0, 1e-9);
  }
  // No warm start on the first tick.
  for (const ConstraintBlock& b : scene.ctx.rows.blocks) EXPECT_TRUE(b.force.isZero());

  // The solve's forces: each point's sum takes its block's force, the coupling keeps it.
  for (size_t k = 0; k < scene.ctx.rows.blocks.size(); ++k) {
    scene.ctx.rows.blocks[k].force = Vec3(1.0 + static_cast<double>(k), 0.0, 0.0);
  }
  scene.ctx.soft_point_forces.assign(scene.ctx.soft_points.size(), Vec3::Zero());
  coupling.ApplySolvedForces(scene.View(), scene.ctx);
  EXPECT_EQ(coupling.warm().size(), 4u);
  for (const Vec3& f : scene.ctx.soft_point_forces) EXPECT_GT(f.norm(), 0.5);

  // The next tick's blocks start from those forces, vertex by vertex.
  std::map<int, double> force_of_vertex;
  for (size_t k = 0; k < coupling.contacts().size(); ++k) {
    force_of_vertex[coupling.contacts()[k].vertex] = 1.0 + static_cast<double>(k);
  }
  scene.FindAndBuild(coupling);
  ASSERT_EQ(coupling.contacts().size(), 4u);
  for (size_t k = 0; k < coupling.contacts().size(); ++k) {
    EXPECT_EQ(scene.ctx.rows.blocks[k].force.x(),
              force_of_vertex.at(coupling.contacts()[k].vertex));
  }

  // A snapshot carries the warm start, sorted.
  WorldSavedState saved;
  coupling.SaveWarmStart(&saved);
  ASSERT_EQ(saved.soft_warm.size(), 4u);
  EXPECT_TRUE(std::is_sorted(saved.soft_warm.begin(), saved.soft_warm.end(),
                             [](const auto& x, const auto& y) { return x.first < y.first; }));
  SoftRigidCoupling restored;
  restored.RestoreWarmStart(saved);
  EXPECT_EQ(restored.warm(), coupling.warm());
}

}  // namespace
}  // namespace ligature
