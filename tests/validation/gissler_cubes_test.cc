// Gissler's hanging cubes (the built-in gissler_cubes_3950 and gissler_cubes_14950
// scenes): 790 or 2990 mass-point cubes under explicit Verlet, each column nailed at the
// top and every cube linked to the next by points-to-point constraints. After every step
// the nails hold their goals and each link's two points coincide, to 1e-9 m; the columns
// hang under gravity.

#include <gtest/gtest.h>

#include <cstdio>

#include "server/scene/generated_scenes.h"
#include "server/scene/scene_proto.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

class GisslerCubes : public ::testing::TestWithParam<std::string> {};

TEST_P(GisslerCubes, NailsAndLinksHoldExactlyEveryStep) {
  absl::StatusOr<SceneDesc> scene = SceneFromProto(*GenerateScene(GetParam()));
  ASSERT_TRUE(scene.ok()) << scene.status();
  auto world = testing::MakeWorld(*scene);
  const std::vector<Vec3> rest = world->soft_bodies().FindBody("cubes")->positions();
  double worst_nail = 0.0, worst_link = 0.0;
  for (int step = 0; step < 100; ++step) {
    world->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0) << "at step " << step;
    const std::vector<Vec3>& x = world->soft_bodies().FindBody("cubes")->positions();
    for (const SoftConstraintDesc& c : world->soft_bodies().constraints()) {
      if (c.type == LocalConstraintType::kNail) {
        worst_nail = std::max(worst_nail, (x[c.vertices[0]] - c.goal).norm());
      } else {
        worst_link = std::max(worst_link, (x[c.vertices[0]] - x[c.vertices[1]]).norm());
      }
    }
  }
  std::printf("worst nail %.3g m, worst link %.3g m\n", worst_nail, worst_link);
  EXPECT_LT(worst_nail, 1e-9);  // m
  EXPECT_LT(worst_link, 1e-9);  // m
  // The columns sag: the lowest cube has moved down.
  const std::vector<Vec3>& x = world->soft_bodies().FindBody("cubes")->positions();
  double lowest_rest = 1e9, lowest_now = 1e9;
  for (size_t v = 0; v < x.size(); ++v) {
    lowest_rest = std::min(lowest_rest, rest[v].y());
    lowest_now = std::min(lowest_now, x[v].y());
  }
  EXPECT_LT(lowest_now, lowest_rest - 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Scenes, GisslerCubes,
                         ::testing::Values("gissler_cubes_3950", "gissler_cubes_14950"));

}  // namespace
}  // namespace ligature
