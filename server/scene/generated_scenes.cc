#include "server/scene/generated_scenes.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Gissler's test scene at one size: `columns` columns of cubes side by side along x, the
// first `long_columns` of them `height` cubes tall and the others one shorter. Every cube
// (edge 0.1 m) is 8 vertices and 5 tetrahedra (4 corners and the centre), all in one
// mass-point soft body stepped by explicit Verlet as in the paper; the 4 top corners of
// each column are nailed, and each bottom corner of a cube is linked to the top corner of
// the cube below (a points-to-point constraint with two points).
struct CubeGrid {
  const char* name;
  int columns;
  int long_columns;
  int height;
};

constexpr std::array<CubeGrid, 2> kCubeGrids = {{
    // 790 cubes: 3950 tets, 160 nails, 3000 links (the paper: 2964).
    {"gissler_cubes_3950", 40, 30, 20},
    // 2990 cubes: 14950 tets, 520 nails, 11440 links (the paper: 11924 constraints in all).
    {"gissler_cubes_14950", 130, 130, 23},
}};

constexpr double kEdge = 0.1;  // m
constexpr double kGap = 0.05;  // m between columns

void SetVec(double x, double y, double z, v1::Vec3* out) {
  out->set_x(x);
  out->set_y(y);
  out->set_z(z);
}

v1::Scene CubeScene(const CubeGrid& grid) {
  v1::Scene scene;
  v1::WorldSettings* settings = scene.mutable_settings();
  settings->set_rate_hz(1000);
  v1::Body* body = scene.add_bodies();
  body->set_id("cubes");
  v1::SoftBody* soft = body->mutable_soft();
  soft->set_model(v1::SOFT_MODEL_MASS_POINT);
  soft->set_integrator(v1::SOFT_INTEGRATOR_VERLET);
  soft->set_density(1000);
  soft->set_distance_stiffness(2000);
  soft->set_volume_stiffness(200);
  soft->set_damping(0.5);
  v1::TetMeshData* mesh = soft->mutable_tets();
  // Corner c of a cube has bits (x, y, z); the centre tet joins the corners of odd parity.
  constexpr std::array<std::array<int, 4>, 5> kTets = {
      {{0, 1, 2, 4}, {3, 1, 7, 2}, {5, 1, 4, 7}, {6, 2, 7, 4}, {1, 2, 4, 7}}};
  int links = 0, nails = 0;
  for (int c = 0; c < grid.columns; ++c) {
    const int height = c < grid.long_columns ? grid.height : grid.height - 1;
    const double x0 = c * (kEdge + kGap);
    for (int k = 0; k < height; ++k) {
      const int first = mesh->vertices_size();
      const double top = 2.0 - k * kEdge;  // m, the cube's top face
      for (int corner = 0; corner < 8; ++corner) {
        SetVec(x0 + kEdge * (corner & 1), top - kEdge + kEdge * ((corner >> 1) & 1),
               kEdge * ((corner >> 2) & 1), mesh->add_vertices());
      }
      for (const auto& tet : kTets) {
        for (const int corner : tet) mesh->add_tets(first + corner);
      }
      // Top corners (y bit set): nailed on the first cube, linked to the cube above else.
      for (const int corner : {2, 3, 6, 7}) {
        v1::Constraint* constraint = scene.add_constraints();
        v1::SoftConstraint* s = constraint->mutable_soft();
        s->set_body("cubes");
        if (k == 0) {
          constraint->set_id(absl::StrCat("nail", nails++));
          s->set_kind(v1::SOFT_CONSTRAINT_KIND_NAIL);
          s->add_vertices(first + corner);
          SetVec(x0 + kEdge * (corner & 1), top, kEdge * ((corner >> 2) & 1), s->mutable_goal());
        } else {
          constraint->set_id(absl::StrCat("link", links++));
          s->set_kind(v1::SOFT_CONSTRAINT_KIND_POINTS_TO_POINT);
          s->add_vertices(first - 8 + (corner & ~2));  // the same corner of the cube above, bottom
          s->add_vertices(first + corner);
        }
      }
    }
  }
  return scene;
}

}  // namespace

std::vector<std::string> GeneratedSceneNames() {
  std::vector<std::string> names;
  for (const CubeGrid& grid : kCubeGrids) names.push_back(grid.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<v1::Scene> GenerateScene(const std::string& name) {
  for (const CubeGrid& grid : kCubeGrids) {
    if (name == grid.name) return CubeScene(grid);
  }
  return std::nullopt;
}

}  // namespace ligature
